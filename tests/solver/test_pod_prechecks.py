"""The card search's checks before it works out a turn for each move of the
escape pod (``GridHalf.nexts``: ``_pod_may_fit`` and ``_ship_live``):
where they say no turn may fit, none of the next grids the turn leads to
fits the turns left (``GridHalf._fits``), on grids the game reaches with the
pod anywhere, every pay class, every move of the pod and every number of
turns left; and the card search finds the same optimum with the same nodes
with and without them."""

from __future__ import annotations

import random

import pytest
from test_grid_kernel import PAY_CLASSES, _model, _walk

from sensor_ghosts.generators.generate import generate_setup
from sensor_ghosts.rules.geometry import DIRECTIONS, EARTH
from sensor_ghosts.rules.options import RuleOptions
from sensor_ghosts.solver import grid_half as grid_half_module
from sensor_ghosts.solver import solve, split
from sensor_ghosts.solver.model import SCAN

POD_MOVES = [(d, n) for d in DIRECTIONS for n in (1, 2, 3)]
# Where the pod is put: every row, row 7 at every column (a step right
# from its last card is Earth), the dock and Earth.
POD_CELLS = [(r, 3) for r in range(1, 8)] + [(7, c) for c in (1, 2, 4, 5)] + [(1, 0), EARTH]


@pytest.mark.parametrize(("seed", "mode"), [(0, "deal"), (7, "deal"), (3, "open")])
def test_a_turn_the_checks_rule_out_has_no_next_grid_that_fits(seed: int, mode: str) -> None:
    model = _model(seed, "escape-pod", mode)
    turns = 13
    half = split.GridHalf(model, turns, None)
    rng = random.Random(seed)
    grids = _walk(model, rng, 20)  # (the grid kernel tests' walk)
    # The ship waiting at Earth for the pod, which a Deep Scan's shift of
    # row 7 may carry beside it ([D17]).
    at_earth = [(EARTH, *gk[1:]) for gk in grids[:4]]
    ruled_out = fitting = 0
    for gk in grids + at_earth:
        for pod_at in POD_CELLS[6:11] if gk[0] == EARTH else rng.sample(POD_CELLS, 4):
            g = (gk[0], pod_at, *gk[2:])
            gid = half.grid_id(g)
            for left in range(turns):
                t = turns - 1 - left
                for pc in PAY_CLASSES:
                    for pod in POD_MOVES:
                        fits = [n for n in half._next_grids(g, pod, pc) if half._fits(n, left)]
                        if not (grid_half_module._pod_may_fit(pod_at, pod, left)
                                and half._ship_live(gid, pc, left)):
                            ruled_out += 1
                            assert not fits, (g, pc, pod, left)
                        fitting += bool(fits)
                        got = half.nexts({}, gid, t, pod, pc)
                        assert got == [None if n is None else half.grid_id(n) for n in fits] or (
                            pc == SCAN and left and not half.scan_may_fit(gid, left) and got == [])
    # Not vacuous: the checks rule out many turns, and many others fit.
    assert ruled_out > 1000 and fitting > 100


@pytest.mark.parametrize("mode", ["deal", "open"])
def test_card_search_is_the_same_without_the_checks(monkeypatch, mode: str) -> None:
    setups = [generate_setup(seed=s, options=RuleOptions(escape_pod=True)) for s in (2, 5, 9)]
    with_checks = [solve(s, mode=mode, objective="turns-only") for s in setups]
    monkeypatch.setattr(grid_half_module, "_pod_may_fit", lambda at, move, left: True)
    monkeypatch.setattr(split.GridHalf, "_ship_live", lambda self, gid, pc, left: -1)
    without = [solve(s, mode=mode, objective="turns-only") for s in setups]
    for a, b in zip(with_checks, without, strict=True):
        assert (a.status, a.turns, a.nodes) == (b.status, b.turns, b.nodes)
        assert a.plan == b.plan
