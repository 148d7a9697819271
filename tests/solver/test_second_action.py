"""The relaxed game with the §12 second action (relaxed.py, "A second
action"): its bound against the optimum the A* finds without it, and its
guiding bounds against the search guided by the grid distance alone."""

from __future__ import annotations

import random

import pytest
from instances import near_earth

from sensor_ghosts.generators.generate import generate_setup
from sensor_ghosts.rules.engine import apply_turn, legal_turns
from sensor_ghosts.rules.geometry import EARTH
from sensor_ghosts.rules.options import RuleOptions
from sensor_ghosts.rules.setup import Slot
from sensor_ghosts.rules.state import GameState, initial_state
from sensor_ghosts.solver import relaxed, search, solve
from sensor_ghosts.solver import relaxed_kernel as kernel
from sensor_ghosts.solver.model import POD, Model
from sensor_ghosts.solver.search import Heuristic

SECOND = RuleOptions(second_action=True)
# The relaxed searches stop here ("at least CAP"), as the solver's do at its
# caps: a state that cannot win at all would be searched through.
CAP = 15


def _plan_states(seed: int) -> tuple[int, list[GameState]]:
    setup = generate_setup(seed, SECOND)
    r = solve(setup, mode="deal", objective="turns-only", timeout=60)
    assert r.status == "solved", (seed, r.status, r.bound)
    return r.turns, r.plan.replay()


def _near_the_end(seed: int, last: int, per_state: int) -> list[tuple[GameState, int | None]]:
    """The states of an optimal plan with at most ``last`` turns left (with
    those turns), and up to ``per_state`` states one legal turn from each."""
    rng = random.Random(seed)
    turns, states = _plan_states(seed)
    out: list[tuple[GameState, int | None]] = []
    for i, st in enumerate(states[:-1]):
        if turns - i > last:
            continue
        out.append((st, turns - i))
        nexts = [apply_turn(st, t) for t in legal_turns(st)]
        out += [(s2, None) for s2 in rng.sample(nexts, min(per_state, len(nexts))) if not s2.is_over]
    return out


def _relaxed_value(st: GameState, plain: bool = False, every_move: bool = False, cap: int = CAP) -> int:
    m = Model(st, "deal")
    rb = Heuristic(m).relaxed
    assert rb is not None and rb.second
    rb.plain, rb.every_move = plain, every_move
    return rb.turns(m.root_state(), cap)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_bound_never_exceeds_the_optimum_found_without_it(seed, monkeypatch):
    """For the last three turns of an optimal plan, and states one legal
    turn from them: the relaxed game's turns are at most the optimum of the
    A* that does not use it (its bound: the grid distance, two actions a
    turn), and that A* finds the plan's own remaining turns on the plan (a
    shorter way would show the plan was not optimal)."""
    cases = _near_the_end(seed, last=3, per_state=3)
    bounds = [_relaxed_value(st) for st, _ in cases]
    monkeypatch.setattr(search, "relaxed_applies", lambda m: m.actions_per_turn == 1)
    exact = 0
    for (st, left), bound in zip(cases, bounds, strict=True):
        r = solve(st, mode="deal", objective="turns-only", timeout=60)
        assert r.status in ("solved", "unsolvable"), (seed, r.status)
        if left is not None:
            assert r.turns == left
        if r.status == "solved":
            assert bound <= r.turns, (seed, bound, r.turns)
            exact += bound == r.turns
        else:
            assert bound <= CAP
    assert len(cases) >= 8 and exact >= len(cases) // 3


def _with_a_spare_sample(seed: int) -> GameState:
    """A position near Earth (rows 4-6) holding one virus more, taken off the
    board: a spare sample pays for a second action."""
    st = near_earth(seed, SECOND, rows=(4, 5, 6))
    grid = st.grid
    for r, row in enumerate(grid):
        for c, cell in enumerate(row):
            if isinstance(cell, Slot) and cell.sample is not None and cell.sample.virus:
                cells = list(row)
                cells[c] = Slot(cell.card, cell.up, None)
                return st.evolve(grid=grid[:r] + (tuple(cells),) + grid[r + 1 :], held=st.held + 1)
    raise AssertionError("no virus token left on the board")


# Seeds whose positions the A* without the relaxed game settles in seconds.
SPARE_SEEDS = (3, 4, 5, 10, 11, 14)


def test_positions_with_a_spare_sample_agree_with_the_search_without_the_bound(monkeypatch):
    """Where a second action saves turns (the one-action relaxed game
    overestimates the optimum on five of these six positions): the relaxed
    bound is at most the optimum of the A* without it, and the solver finds
    that optimum."""
    cases = [_with_a_spare_sample(seed) for seed in SPARE_SEEDS]
    bounds = [_relaxed_value(st) for st in cases]
    mine = [solve(st, mode="deal", objective="turns-only", timeout=60) for st in cases]
    monkeypatch.setattr(search, "relaxed_applies", lambda m: m.actions_per_turn == 1)
    for seed, st, bound, r in zip(SPARE_SEEDS, cases, bounds, mine, strict=True):
        ref = solve(st, mode="deal", objective="turns-only", timeout=60)
        assert ref.status == "solved" and r.status == "solved", seed
        assert bound <= ref.turns == r.turns, (seed, bound, ref.turns, r.turns)


@pytest.mark.parametrize("seed", [0, 2])
def test_the_guiding_bounds_and_left_out_moves_change_no_value(seed):
    """Guided by the grid distance alone (``plain``), or with the moves the
    search leaves out (``every_move``), every state near the end of an
    optimal plan, and one turn from it, needs the same relaxed turns."""
    cases = _near_the_end(seed, last=5, per_state=4)
    for st, _ in cases:
        v = _relaxed_value(st)
        assert _relaxed_value(st, plain=True) == v
        assert _relaxed_value(st, every_move=True) == v
    assert len(cases) >= 15


@pytest.mark.parametrize("seed", range(4))
def test_whole_games_settle_within_the_one_action_optimum(seed):
    """Whole setups are solved (none was, in 10 s each, before the relaxed
    game took the second action), in no more turns than the same setup
    without it: the second action only adds choices."""
    turns, states = _plan_states(seed)
    one = solve(generate_setup(seed), mode="deal", objective="turns-only", timeout=60)
    assert generate_setup(seed, SECOND).grid == generate_setup(seed).grid
    assert one.status == "solved" and turns <= one.turns
    assert states[-1].outcome.status.value == "won"


def test_the_relaxed_game_is_left_out_with_more_samples_than_it_counts():
    """Held samples and tokens on the board over 3: no relaxed game (the
    kernel counts held samples up to 3), the A*'s own bound only."""
    setup = generate_setup(0, SECOND)
    st = initial_state(setup, setup.deal)
    m = Model(st.evolve(held=2), "deal")
    assert Heuristic(m).relaxed is None
    assert Heuristic(Model(st, "deal")).relaxed is not None


def test_untakeable_tokens_left_out_change_no_relaxed_value(monkeypatch):
    """Seed 654 has two of its three virus tokens on cards obstructed on
    both sides, which the ship never survives: the relaxed game leaves them
    out (``relaxed.takeable_virus_bits``), so that they pay for no second
    action in its guides. The whole setup is then settled, at the one-action
    game's fewest turns (a plan that never takes the second action is legal
    with it; the relaxed game proves no fewer); and on the last turns of the
    plan and one legal turn off it the relaxed values are those of the game
    that sees every token."""
    setup = generate_setup(654, SECOND)
    m = Model(initial_state(setup, setup.deal), "deal")
    assert bin(m.virus_bits).count("1") == 3 and bin(relaxed.takeable_virus_bits(m)).count("1") == 1
    one = solve(generate_setup(654), mode="deal", objective="turns-only", timeout=60)
    turns, states = _plan_states(654)
    assert one.status == "solved" and turns == one.turns
    assert states[-1].outcome.status.value == "won"
    cases = _near_the_end(654, last=4, per_state=3)
    # (A state left without a takeable token now has no way at all: INF,
    # where the game that sees every token searches on to the cap, 8 here
    # for the suite's time.)
    values = [min(_relaxed_value(st, cap=8), 8) for st, _ in cases]
    monkeypatch.setattr(relaxed, "takeable_virus_bits", lambda model: model.virus_bits)
    assert [min(_relaxed_value(st, cap=8), 8) for st, _ in cases] == values
    assert len(set(values)) >= 3
    assert len(cases) >= 10


def test_the_static_rows_table_with_moves_without_the_turns_end_never_exceeds_the_relaxed_turns():
    """The guide while second actions may come: the static-rows table with
    the moves without the turn's end (``static_table``'s ``noturn``), read
    at a state's credits, rotation ahead and cell, counts at most twice the
    relaxed turns and at most the relaxed turns plus the second actions left
    (F); on the last turns of optimal plans and positions with a spare
    sample, searched plainly (grid distance alone) for the value."""
    lines = (kernel.LINES_Q, kernel.LINES_R, kernel.LINES_C, kernel.LINES_N)
    cases = [st for seed in (0, 1) for st, _ in _near_the_end(seed, last=6, per_state=3)]
    cases += [_with_a_spare_sample(seed) for seed in SPARE_SEEDS]
    checked = exact = 0
    for st in cases:
        m = Model(st, "deal")
        rb = Heuristic(m).relaxed
        rb.plain = True
        root = m.root_state()
        ship, rot, _masks, held, _shields, vir, credits = rb._key(root)
        free_left = held + bin(vir).count("1") - m.need
        if free_left <= 0:
            continue
        value = rb.turns(root, CAP)
        pos = kernel.cell_index(ship)
        row = int(kernel.CELL_ROW[pos])  # also the row ahead's 0-based index
        table = kernel.static_table(tuple(rot), (1 << min(7, row + 1)) - 1, rb._flags_np, rb._card_units(), m.need,
                                    rb._any_boost, *lines,
                                    kernel.every_row_free(rb._flags_np, rb._card_units(), m.need, rb._any_boost,
                                                          True), True)
        actions = int(table[-1, min(credits, kernel.CREDIT_LAYERS), kernel.table_column(rot, pos)])  # UTOP's layer
        bound = max((actions + 1) // 2, actions - free_left)
        assert bound <= value, (ship, actions, free_left, value)
        checked += 1
        exact += bound == value
    assert checked >= 30 and exact >= 3


def _successors_one_command_at_a_time(m: Model, st: tuple) -> list[tuple]:
    """``Model.successors`` worked out as it was before its grid ends were
    kept per action: every command's runs afresh, the second action among
    every action (the reference)."""
    out: list[tuple] = []
    for bolster, base, _useful in m._bolstered(st):
        for c1 in m.commands(base, st[search.HANDS:search.PEND], frozenset()):
            rec1 = m._cmd_record(base, c1)
            for b2, fl in m._run(base.copy(), c1, frozenset()):
                b3 = b2.copy() if not b2.won and b2.held >= 1 else None
                m._finish(b2, c1[5], bolster, rec1, None, fl, len(c1[0]), out)
                if b3 is None:
                    continue
                b3.held -= 1
                for c2 in m.commands(b3, c1[5], fl):
                    rec2 = m._cmd_record(b3, c2)
                    for b5, fl2 in m._run(b3.copy(), c2, fl):
                        m._finish(b5, c2[5], bolster, rec1, rec2, fl2, len(c1[0]) + len(c2[0]), out)
    return out


@pytest.mark.parametrize("mode", ["deal", "open"])
def test_grid_ends_kept_per_action_give_the_same_successors(mode):
    """The first action's runs kept per action and pod move, the second's
    grid ends per first run, action and pod move, a Peek's whatever its
    direction, and no second explicit flip outside the re-scan row
    (``Model.second_actions``), all kept per grid across calls: the same
    successors, in the same order, as every command
    worked out afresh, on the states of an optimal plan holding a virus."""
    checked = 0
    for seed in (0, 1, 2):
        _turns, states = _plan_states(seed)
        for st in states[:-1]:
            m = Model(st, mode)
            root = m.root_state()
            if root[search.HELD] < 1:
                continue
            expected = _successors_one_command_at_a_time(m, root)
            assert m.successors(root) == expected
            # Again, from the grid ends the model kept for this grid.
            assert m.successors(root) == expected
            checked += 1
    assert checked >= 3


@pytest.mark.parametrize("mode", ["deal", "open"])
def test_the_second_actions_commands_kept_across_states_give_the_same_successors(mode):
    """The second action's commands are kept by the cards, the ship's cell,
    the cards flipped so far and whether the pod may move
    (``Model._second``): one model's successors of state after state, its
    tables filling as it goes, are those worked out afresh. With the pod,
    whose moves the commands choose too."""
    rng = random.Random(7)
    checked = 0
    for seed, options in ((0, SECOND), (1, SECOND), (2, RuleOptions(second_action=True, escape_pod=True))):
        setup = generate_setup(seed, options)
        # From the first state of an optimal plan that holds a virus.
        plan = solve(setup, mode="deal", objective="turns-only", timeout=60).plan
        m = Model(next(st for st in plan.replay() if st.held), mode)
        st = m.root_state()
        for _turn in range(8):
            got = m.successors(st)
            if st[search.HELD] >= 1:
                assert got == _successors_one_command_at_a_time(m, st), (seed, _turn)
                checked += 1
            live = [s2 for s2, _rec, _n, won in got if not won]
            if not live:
                break
            holding = [s2 for s2 in live if s2[search.HELD] >= 1]
            st = rng.choice(holding or live)
            if options.escape_pod and st[search.HELD] >= 1 and st[POD] != EARTH:
                # The same cards and ship with the pod arrived: no pod move
                # to choose, so other commands than those just kept for st.
                arrived = (st[0], EARTH, *st[2:])
                m.successors(st)
                assert m.successors(arrived) == _successors_one_command_at_a_time(m, arrived), seed
                checked += 1
    assert checked >= 6
