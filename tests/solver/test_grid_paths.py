"""The card search leaves out the grids from which no turns of any pay class
win at T (``GridHalf.may_win``): checked against every grid turn worked out
by the model itself, without the relaxed game's checks, and through the card
search, whose answers it must not change."""

from __future__ import annotations

import pytest
from instances import near_earth

from sensor_ghosts.generators import generate_setup
from sensor_ghosts.rules.geometry import Direction
from sensor_ghosts.rules.options import RuleOptions
from sensor_ghosts.solver import solve, split
from sensor_ghosts.solver.api import start_state
from sensor_ghosts.solver.grid_half import EVERY_KEY, SKIP, GridHalf, grid_key, next_grids
from sensor_ghosts.solver.model import FLY, Model
from sensor_ghosts.solver.search import Heuristic, astar


def _wins_in(half: GridHalf, gk: tuple, left: int, memo: dict) -> bool:
    """Some ``left`` turns from grid ``gk``, of any kind, the last a win:
    every turn the model has (``GridHalf.ends``, the Deep Scans and a
    player's turn without cards included), no bound consulted."""
    key = (gk, left)
    if key not in memo:
        ends = half.ends(gk, None) + half.ends(gk, SKIP)
        memo[key] = any(left == 1 if nxt is None else left > 1 and _wins_in(half, nxt, left - 1, memo)
                        for _pc, end in ends for nxt in next_grids(end))
    return memo[key]


def test_grids_no_turns_win_from_are_the_ones_the_model_finds():
    seen = set()
    for seed, players in [(301, 1), (300, 4), (301, 4), (302, 4)]:
        state = near_earth(seed, RuleOptions(players=players))
        start, _fresh = start_state(state, "deal", None)
        m = Model(start, "deal")
        root = m.root_state()
        fewest = astar(m, [(root, None)], objective="turns-only", timeout=60)
        assert fewest.status == "solved"
        # One turn more than the fewest too: a win there takes other ways.
        for T in (fewest.value[0], fewest.value[0] + 1):
            half = GridHalf(m, T, None)
            # Asked of every grid the checks let through on the way, as the
            # card search asks of the grids it reaches.
            todo = [(half.grid_id(grid_key(root)), 0)]
            while todo:
                gid, t = todo.pop()
                if (gid, t) in half._may_win or t == T:
                    continue
                half.may_win(gid, t)
                table = half.live(gid, t)
                todo += [(nxt, t + 1) for pc, pod in EVERY_KEY for nxt in half.nexts(table, gid, t, pod, pc)
                         if nxt is not None]
            memo: dict = {}
            for (gid, t), got in half._may_win.items():
                assert got == _wins_in(half, half.grids[gid], T - t, memo), (seed, players, T, t)
                seen.add(got)
    assert seen == {True, False}
    assert {pc[1] for pc, _pod in EVERY_KEY if pc[0] == FLY} == set(Direction)


@pytest.mark.parametrize(("seed", "players"), [(24, 4), (528, 3)])
def test_leaving_out_grids_no_turns_win_from_changes_no_answer(monkeypatch, seed, players):
    # A card search past ``WIN_PATHS_AFTER`` nodes leaves those grids out:
    # the same fewest turns, in fewer nodes, and the plan replays (``solve``
    # replays it through the rules engine).
    setup = generate_setup(seed=seed, options=RuleOptions(players=players))
    pruned = solve(setup, mode="deal", objective="turns-only", timeout=60)
    monkeypatch.setattr(GridHalf, "may_win", lambda self, gid, t: True)
    plain = solve(setup, mode="deal", objective="turns-only", timeout=60)
    assert pruned.status == plain.status == "solved"
    assert pruned.turns == plain.turns == pruned.plan.figures.turns
    assert pruned.nodes < plain.nodes
    assert split.WIN_PATHS_AFTER < pruned.nodes


def test_grids_no_turns_win_from_prove_a_number_of_turns_short(monkeypatch):
    # Four players' 632 in open mode at 11 turns (the optimum is 12), with
    # the relaxed checks that forget the far rows throughout: leaving out
    # the grids no turns win from proves no plan of 11 soon after it starts,
    # where without it the search runs past its node limit.
    setup = generate_setup(seed=632, options=RuleOptions(players=4))
    got = {}
    soon = split.WIN_PATHS_AFTER
    for after in (soon, 10**9):
        monkeypatch.setattr(split, "WIN_PATHS_AFTER", after)
        start, fresh = start_state(setup, "open", None)
        m = Model(start, "open")
        roots = [(st, ("deal", d)) for st, d in m.open_roots()] if fresh else [(m.root_state(), None)]
        h = Heuristic(m, forget_far_rows=True)
        out = split.fewest_cards(m, roots, 11, heuristic=h, any_cards=True, max_nodes=5000)
        got[after] = (out.status, out.nodes)
    assert got[soon][0] == "unsolvable", got
    assert got[10**9] == ("unknown", 5001), got
