"""The relaxed game tracks the virus tokens it takes where Earth wants two
samples (relaxed.py, "Samples"; ``search_args``): a token counts once, not
again when the way comes back to its card. Checked against the optimum
the solver finds with the tokens not tracked (the relaxed game as before,
admissible on its own)."""

from __future__ import annotations

import pytest
from instances import near_earth

from sensor_ghosts.generators.generate import generate_setup
from sensor_ghosts.rules.options import RuleOptions
from sensor_ghosts.solver import relaxed, solve
from sensor_ghosts.solver.model import Model
from sensor_ghosts.solver.search import Heuristic

TWO = RuleOptions(two_samples=True)
CAP = 15
# near_earth seeds (rows 5-7) where a way that took one token twice was the
# relaxed optimum: tracked, the bound rises to the optimum.
SEEDS = [56, 58, 154, 168, 291]


def _untracked(monkeypatch) -> None:
    monkeypatch.setattr(relaxed, "search_args", lambda m: ())
    monkeypatch.setattr(relaxed, "TRACK_AFTER", 10**9)


def _relaxed_turns(state) -> int:
    m = Model(state, "deal")
    return Heuristic(m).relaxed.turns(m.root_state(), CAP)


def test_two_samples_track_the_tokens():
    m = Model(near_earth(SEEDS[0], TWO, rows=(5, 6, 7)), "deal")
    assert relaxed.search_args(m) == (True,)
    assert relaxed.search_args(Model(near_earth(SEEDS[0], rows=(5, 6, 7)), "deal")) == ()


def test_tracking_raises_the_bound_and_never_past_the_optimum(monkeypatch):
    states = {s: near_earth(s, TWO, rows=(5, 6, 7)) for s in SEEDS}
    tracked = {s: _relaxed_turns(st) for s, st in states.items()}
    _untracked(monkeypatch)
    for seed, st in states.items():
        before = _relaxed_turns(st)
        r = solve(st, mode="deal", objective="turns-only", timeout=30)
        assert r.status == "solved", (seed, r.status)
        assert before < tracked[seed] <= r.turns, (seed, before, tracked[seed], r.turns)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_whole_setups_settle_in_the_same_turns(seed, monkeypatch):
    setup = generate_setup(seed, TWO)
    now = solve(setup, mode="deal", objective="turns-only", timeout=60)
    _untracked(monkeypatch)
    before = solve(setup, mode="deal", objective="turns-only", timeout=60)
    assert now.status == before.status == "solved"
    assert now.turns == before.turns


def test_the_one_sample_game_turns_to_tracking_after_many_searches(monkeypatch):
    m = Model(near_earth(SEEDS[0], rows=(5, 6, 7)), "deal")
    monkeypatch.setattr(relaxed, "TRACK_AFTER", 3)
    bound = Heuristic(m).relaxed
    for cap in range(1, 5):  # (each a search: the value is 7, above every cap)
        bound._cache.clear()  # (else the first search's "at least" answers)
        bound.turns(m.root_state(), cap)
        assert bound._search_args == (() if cap < 3 else relaxed.TRACKED)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_the_one_sample_game_settles_the_same_tracked_from_the_start(seed, monkeypatch):
    setup = generate_setup(seed)
    monkeypatch.setattr(relaxed, "TRACK_AFTER", 1)
    tracked = solve(setup, mode="deal", objective="turns-only", timeout=60)
    monkeypatch.setattr(relaxed, "TRACK_AFTER", 10**9)
    plain = solve(setup, mode="deal", objective="turns-only", timeout=60)
    assert tracked.status == plain.status == "solved"
    assert tracked.turns == plain.turns
