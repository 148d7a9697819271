"""``import sensor_ghosts as sg``: the core from one place, as the package docstring shows."""

from __future__ import annotations

import subprocess
import sys

import pytest

import sensor_ghosts as sg


def test_every_export_resolves():
    for name in sg.__all__:
        assert getattr(sg, name) is not None, name


def test_the_tour_runs():
    setup = sg.generate(seed=7)
    assert sg.validate(setup) == []
    state = sg.initial_state(setup, setup.deal)
    turn = sg.parse_turn("F6 fly R; rescan 1,2", state)
    after = sg.apply_turn(state, turn)
    assert after.turn == 2
    assert isinstance(sg.observe(after, 0), sg.Observation)
    assert sg.load(sg.dump(setup)) == setup
    assert sg.dump(sg.load(sg.dump(after))) == sg.dump(after)
    res = sg.solve(setup, objective="turns-only", timeout=10)
    assert res.status == "solved" and res.plan.replay()[-1].outcome.status.value == "won"
    with pytest.raises(sg.SensorGhostsError):
        sg.apply_turn(state, sg.parse_turn("F6 fly D; rescan 1,2", state))


def test_import_is_light():
    """The front door loads nothing heavy until it is used."""
    code = "import sys, sensor_ghosts; print('numba' in sys.modules, 'sensor_ghosts.solver' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_unknown_name():
    with pytest.raises(AttributeError):
        sg.no_such_thing  # noqa: B018
    with pytest.raises(TypeError):
        sg.dump(3)
    with pytest.raises(sg.SensorGhostsError):
        sg.dump(3)


def test_bad_arguments_raise_the_projects_error_and_a_value_error():
    """Every error the library raises on purpose is a ``SensorGhostsError``;
    argument errors stay ``ValueError`` for callers that caught those."""
    from sensor_ghosts.rules.geometry import Direction

    for call in (lambda: sg.generate(seed=-1), lambda: Direction.parse("X"),
                 lambda: sg.generate("1p-standard#7"), lambda: sg.generate(seed=2.5)):
        with pytest.raises(sg.InvalidArgumentError) as e:
            call()
        assert isinstance(e.value, ValueError) and isinstance(e.value, sg.SensorGhostsError)
