"""``generate_solved``: the generator's seeded walk with the solver as its last
filter; and the solver's names (Mode, Objective, Status) as strings."""

from __future__ import annotations

import json

import pytest

import sensor_ghosts as sg
from sensor_ghosts.generators import GenerationFailedError, generate_setup
from sensor_ghosts.puzzles import generate_solved, solve_setup
from sensor_ghosts.solver.api import MODES, OBJECTIVES


def test_generate_solved_keeps_solved_setups_in_seed_order():
    # Seeds 653 and 655 solve (fewest turns) in a fraction of a second; 654 is
    # passed over by a cheap filter, which runs before the solver.
    skipped: list[int] = []
    got = list(generate_solved(653, 2, timeout=20, objective="turns-only",
                               filters=[lambda s: not s.id.endswith("#654")], skipped=skipped))
    assert [s.id for s, _ in got] == ["1p-standard#653", "1p-standard#655"]
    assert skipped == [654]
    for setup, result in got:
        assert setup == generate_setup(int(setup.id.split("#")[1]))
        assert result.status is sg.Status.SOLVED and result.objective is sg.Objective.TURNS_ONLY
        again = solve_setup(setup, timeout=20, objective="turns-only")
        assert (again.turns, again.cards) == (result.turns, result.cards)


def test_generate_solved_gives_up_after_its_seeds_naming_the_filters():
    # Seed 653 is solved but ``want`` refuses it; 654 fails the cheap filter.
    with pytest.raises(GenerationFailedError, match=r"not solved: 1, <lambda>: 1\)") as e:
        next(generate_solved(653, 1, timeout=5, objective="turns-only", want=lambda r: False,
                             max_seeds=2, filters=[lambda s: not s.id.endswith("#654")]))
    assert (e.value.max_attempts, e.value.found) == (2, 0)


def test_solve_setup_takes_only_the_generator_objectives():
    with pytest.raises(ValueError, match="objective 'cards'"):
        solve_setup(generate_setup(1), timeout=1, objective="cards")


def test_the_names_are_their_strings():
    assert MODES == ("deal", "open", "expected")
    assert OBJECTIVES == ("turns", "cards", "turns-only")
    assert [s.value for s in sg.Status] == ["solved", "unsolvable", "unknown"]
    for name in (sg.Mode.OPEN, sg.Objective.TURNS_ONLY, sg.Status.UNKNOWN):
        assert name == name.value and str(name) == f"{name}" == name.value
        assert json.dumps(name) == json.dumps(name.value)
    assert f"{sg.Status.SOLVED:>8}" == "  solved"


def test_a_solve_result_carries_the_names():
    setup = generate_setup(653)
    res = sg.solve(setup, mode=sg.Mode.DEAL, objective=sg.Objective.TURNS_ONLY, timeout=20)
    assert res.status is sg.Status.SOLVED and res.mode is sg.Mode.DEAL
    plain = sg.solve(setup, mode="deal", objective="turns-only", timeout=20)
    assert plain.objective is sg.Objective.TURNS_ONLY
    assert json.dumps({**res.as_dict(), "seconds": 0}) == json.dumps({**plain.as_dict(), "seconds": 0})
    assert res.as_dict()["status"] == "solved"
    with pytest.raises(sg.SensorGhostsError, match=r"unknown mode 'fast' \(use deal, open, expected\)"):
        sg.solve(setup, mode="fast")
