"""The compiled relaxed search's building blocks (solver/relaxed_kernel.py)
against the model's own pattern-set operations (solver/model.py), and its
learned-bounds table."""

from __future__ import annotations

import random

import numpy as np
import pytest

from sensor_ghosts.generators.generate import generate_setup
from sensor_ghosts.rules.options import RuleOptions
from sensor_ghosts.rules.state import initial_state
from sensor_ghosts.solver import relaxed
from sensor_ghosts.solver import relaxed_kernel as kernel
from sensor_ghosts.solver.model import Model, xor_set
from sensor_ghosts.solver.relaxed import INF as INF_TURNS
from sensor_ghosts.solver.search import Heuristic


@pytest.mark.parametrize(
    "options",
    [RuleOptions(), RuleOptions(flip_one=True)],
    ids=["standard", "flip-one"],
)
def test_rescan_reaches_the_models_pattern_set(options):
    setup = generate_setup(seed=4, options=options)
    m = Model(initial_state(setup, setup.deal), "deal")
    rb = Heuristic(m).relaxed
    rng = random.Random(1)
    for r in range(7):
        for _ in range(40):
            s = rng.getrandbits(32) or 1
            got = kernel._rescan(s, r, rb._choices, rb._n_choices, False)
            assert got == m.rescan_set(r, s, 0), (r, s)


def test_reveal_once_rescan_lets_the_row_show_anything():
    setup = generate_setup(seed=4, options=RuleOptions(reveal_once=True))
    m = Model(initial_state(setup, setup.deal), "deal")
    rb = Heuristic(m).relaxed
    assert rb._rescan_full
    for r in range(7):
        model_set = m.rescan_set(r, 1, 0)
        got = kernel._rescan(1, r, rb._choices, rb._n_choices, rb._rescan_full)
        assert got & model_set == model_set  # a superset: still a relaxation


def test_xor_set_matches_the_model():
    rng = random.Random(2)
    for _ in range(200):
        s = rng.getrandbits(32)
        j = rng.randrange(5)
        assert kernel._xor_set(s, j) == xor_set(s, j)


def test_learned_table_keeps_the_largest_value_and_survives_growth():
    tab = kernel.new_table(16)
    count = np.zeros(1, dtype=np.int64)
    keys = [(i, i * 7, -i, 3, i % 5, 11) for i in range(9)]  # 9 of 16 slots: under the load limit
    for k in keys:
        assert kernel._key_put(tab, count, *k, 5) == 5
    assert kernel._key_put(tab, count, *keys[0], 3) == 5  # a smaller value does not replace
    assert kernel._key_put(tab, count, *keys[0], 8) == 8
    assert kernel._key_put(tab, count, 99, 0, 0, 0, 0, 0, kernel.EMPTY) == kernel.EMPTY
    assert kernel._key_put(tab, count, 100, 0, 0, 0, 0, 0, 4) == -2  # too full for a new key
    big = kernel.new_table(64)
    kernel.table_rehash(tab, big, count)
    assert count[0] == len(keys)
    assert kernel._key_put(big, count, *keys[0], kernel.EMPTY) == 8
    assert all(kernel._key_put(big, count, *k, kernel.EMPTY) >= 5 for k in keys)


def _static_bound(flags: np.ndarray, cell: tuple[int, int]) -> int:
    any_boost = np.array([any(f & kernel.CAN_BOOST and not f & kernel.DEADLY for f in row) for row in flags])
    cardu = np.where(flags & kernel.CAN_STOP, kernel.FREE_STOP, 0)  # no shields needed, no tokens
    table = kernel.static_table(
        (0,) * 7, 0, flags, cardu, 0, any_boost,
        kernel.LINES_Q, kernel.LINES_R, kernel.LINES_C, kernel.LINES_N,
        kernel.every_row_free(flags, cardu, 0, any_boost),
    )
    return int(table[0, 0, kernel.table_column((kernel.WILD,) * 7, kernel.cell_index(cell))])


@pytest.mark.parametrize(("boost_slots", "expected"), [((3,), 2), ((2, 3), 1), ((4, 0), 1)])
def test_static_bound_along_the_ships_row_uses_consecutive_cards(boost_slots, expected):
    """From (7,3) one Fly right reaches Earth only through two boosts side by
    side in row 7 (its rotation is one for the whole Fly; slots 4 and 0 are
    neighbours too). Otherwise the ship stops on an E card first: two turns."""
    flags = np.full((7, 5), kernel.CAN_STOP, dtype=np.int64)  # every card an E
    for j in boost_slots:
        flags[6, j] = kernel.CAN_BOOST
    assert _static_bound(flags, (7, 3)) == expected


def test_highest_moved_row_is_the_highest_row_whose_rotation_changed():
    """The static-rows bound finds the highest moved row three rows at a time
    (``kernel._highest_moved``); against a row-by-row scan, for every set of
    changed rows (each with a random change) and every floor it is given."""
    rng = random.Random(5)
    for rows in range(128):
        diff = sum(rng.randrange(1, 8) << (3 * r) for r in range(7) if (rows >> r) & 1)
        for at_least in range(1, 7):
            want = max([at_least] + [r for r in range(7) if (rows >> r) & 1])
            assert kernel._highest_moved(diff, at_least) == want, (rows, at_least)


def test_static_tables_kept_across_searches_are_the_ones_a_search_would_build():
    """The static-rows tables are kept across searches (``new_static_cache``)
    by the start's rotations of the rows that did not move: a table must not
    read the others. Every kept table equals one built afresh from a start
    that agrees on the unmoved rows and is random on the moved ones."""
    setup = generate_setup(seed=5)
    m = Model(initial_state(setup, setup.deal), "deal")
    m.pending_shifts = False  # a Deep Scan shift of every row: many starts
    h = Heuristic(m)
    rb = h.relaxed
    root = m.root_state()
    # Searches from the start and from every state one turn on fill the cache.
    for st, *_ in [(root,)] + m.successors(root):
        rb.turns(st, 12)
    keys, tables, count = rb._static
    assert count[0] > 20
    rng = random.Random(3)
    checked = 0
    for i in range(keys.shape[0]):
        if keys[i, 0] == -1:
            continue
        moved = int(keys[i, 0]) & 127
        rot = int(keys[i, 0]) >> 7
        strong = bool((int(keys[i, 0]) >> 41) & 1)
        rot0 = tuple(rng.randrange(5) if (moved >> r) & 1 else (rot >> (3 * r)) & 7 for r in range(7))
        cardu = rb._card_units() if strong else rb._cardu
        tfree = kernel.every_row_free(rb._flags_np, cardu, rb.need, rb._any_boost, False, strong)
        fresh = kernel.static_table(rot0, moved, rb._flags_np, cardu, rb.need, rb._any_boost,
                                    kernel.LINES_Q, kernel.LINES_R, kernel.LINES_C, kernel.LINES_N, tfree, False,
                                    strong)
        assert np.array_equal(fresh.ravel(), tables[keys[i, 5], : fresh.size]), (moved, rot0)
        checked += 1
    assert checked == count[0]


def test_moves_left_out_of_the_relaxed_search_change_no_value():
    """The relaxed search leaves out moves that another one always matches:
    a wait that shifts the row ahead at once, after the first turn (a credit
    wait shifts that row as the ship enters it), a shield wait at two shields (a plain wait, which a
    credit wait beats) and a bolster before the flight (made instead as the
    flight meets a card that needs the shields, from the samples held when
    the turn began, once a turn). Searched with them (``every_move``) and
    without, every state a few turns from the dock needs the same turns
    (fresh learned bounds each way, nothing shared). A bolster that could use
    a sample picked up in the same flight, or come twice in one flight,
    lowered 16 of 1,133 values on seeds 0-11; seed 1 is here for that."""
    checked = 0
    for seed in (0, 1, 4, 5):
        setup = generate_setup(seed=seed)
        m = Model(initial_state(setup, setup.deal), "deal")
        pruned, full = Heuristic(m).relaxed, Heuristic(m).relaxed
        full.every_move = True
        states, frontier = [], [m.root_state()]
        for _turn in range(2):
            nxt = [st2 for st in frontier for st2, _rec, _n, won in m.successors(st) if not won]
            frontier = list(dict.fromkeys(nxt))[:60]
            states += frontier
        for st in states:
            assert pruned.turns(st, 14) == full.turns(st, 14), (seed, st[:7])
            checked += 1
    assert checked > 150


@pytest.mark.parametrize("strong", [False, True], ids=["tables", "strong-tables"])
@pytest.mark.parametrize("forget_far_rows", [False, True], ids=["rows-kept", "far-rows-forgotten"])
def test_the_bounds_guiding_the_relaxed_search_change_no_value(forget_far_rows, strong, monkeypatch):
    """The relaxed search is A* guided by the grid distance, the static-rows
    tables (``static_table``; the rows up to the one ahead of the start count
    as moved; ``strong``: with units and the own row's rotation from the
    first search on) and the bounds learned by earlier searches. Guided by
    the grid distance alone (``plain``), every state of the last turns of a
    kept optimal game, and every state one turn from them, needs the same
    turns: the other bounds prune, they never overestimate (an inadmissible
    table would show here as a larger value)."""
    monkeypatch.setattr(relaxed, "STRONG_AFTER", 0 if strong else 10**18)
    from pathlib import Path

    from sensor_ghosts.rules.engine import apply_turn
    from sensor_ghosts.rules.notation import parse_turn

    checked = 0
    for seed in (0, 1, 3, 9):
        setup = generate_setup(seed=seed)
        state = initial_state(setup, setup.deal)
        lines = (Path(__file__).parent / "data" / f"plan-1p-standard-{seed}.txt").read_text().splitlines()
        for i, line in enumerate(lines):
            if i >= len(lines) - 6:
                m = Model(state, "deal")
                guided, plain = (Heuristic(m, forget_far_rows).relaxed for _ in range(2))
                plain.plain = True
                root = m.root_state()
                states = [root] + [st for st, _rec, _n, won in m.successors(root) if not won][:25]
                for st in states:
                    assert guided.turns(st) == plain.turns(st), (seed, i, st[:7])
                    checked += 1
            state = apply_turn(state, parse_turn(line, state))
    assert checked > 400


def test_static_rows_tables_never_exceed_the_relaxed_turns():
    """``static_table`` bounds the relaxed game's turns from below, read at a
    state's own row ahead (its rotation), credits and cell, for every state of
    four kept optimal games and up to 25 states one turn from each; and it is
    often exact there (so an overestimate by one would show)."""
    from pathlib import Path

    from sensor_ghosts.rules.engine import apply_turn
    from sensor_ghosts.rules.notation import parse_turn

    lines_ = (kernel.LINES_Q, kernel.LINES_R, kernel.LINES_C, kernel.LINES_N)
    checked = exact = 0
    for seed in (0, 1, 3, 9):
        setup = generate_setup(seed=seed)
        state = initial_state(setup, setup.deal)
        for line in (Path(__file__).parent / "data" / f"plan-1p-standard-{seed}.txt").read_text().splitlines():
            m = Model(state, "deal")
            rb = Heuristic(m).relaxed
            root = m.root_state()
            for st in [root] + [st for st, _rec, _n, won in m.successors(root) if not won][:25]:
                ship, rot, _masks, held, shields, _vir, credits = rb._key(st)
                pos = kernel.cell_index(ship)
                row = int(kernel.CELL_ROW[pos])  # also the row ahead's 0-based index
                table = kernel.static_table(tuple(rot), (1 << min(7, row + 1)) - 1, rb._flags_np, rb._card_units(),
                                            rb.need, rb._any_boost, *lines_,
                                            kernel.every_row_free(rb._flags_np, rb._card_units(), rb.need,
                                                                  rb._any_boost))
                units = kernel.UTOP if held >= 3 else min(held + shields, kernel.UTOP)
                bound = int(table[units, min(credits, kernel.CREDIT_LAYERS), kernel.table_column(rot, pos)])
                value = rb.turns(st)
                assert bound <= value, (seed, st[:7])
                checked += 1
                exact += bound == value
            state = apply_turn(state, parse_turn(line, state))
    assert checked > 600 and exact > checked // 4


def _kept_game_states(seed: int, last: int, per_turn: int) -> list[tuple]:
    """(model, states, relaxed game, the same searched plainly) for each of
    the ``last`` turns of kept optimal game ``seed``: the state before the
    turn and up to ``per_turn`` states one turn from it; the relaxed games
    are the card search's (far rows forgotten), the plain one guided by the
    grid distance alone."""
    from pathlib import Path

    from sensor_ghosts.rules.engine import apply_turn
    from sensor_ghosts.rules.notation import parse_turn

    setup = generate_setup(seed=seed)
    state = initial_state(setup, setup.deal)
    lines = (Path(__file__).parent / "data" / f"plan-1p-standard-{seed}.txt").read_text().splitlines()
    out = []
    for i, line in enumerate(lines):
        if i >= len(lines) - last:
            m = Model(state, "deal")
            root = m.root_state()
            guided, plain = Heuristic(m, True).relaxed, Heuristic(m, True).relaxed
            plain.plain = True
            states = [root] + [st for st, _rec, _n, won in m.successors(root) if not won][:per_turn]
            out.append((m, states, guided, plain))
        state = apply_turn(state, parse_turn(line, state))
    return out


def test_within_answers_as_the_exact_search_does():
    """``RelaxedBound.within`` (is the relaxed value at most k?) stops at the
    first win within k, taking the states nearest Earth first, and reads the
    wins found by earlier searches (the kernel's ways table: a state on a way
    to Earth of g + u turns, reached at cost g, wins within u). Asked in
    turn for k = value - 1, value, value + 1 on one shared instance, it
    answers as the plain exact search, and the ways it kept were read: a
    way recorded one turn too short would say True at value - 1."""
    checked = 0
    for seed, shared, valued in _kept_states_with_values():
        for st, value in valued:
            for k in (value - 1, value, value + 1):
                assert shared.within(st, k) == (value <= k), (seed, st[:7], k, value)
                checked += 1
        assert shared._ways_count[0] > 0
    assert checked > 300


def _kept_states_with_values():
    """Per turn of ``_kept_game_states`` of setups 0 and 3 (8 turns, 20
    states each): (seed, the card search's relaxed game, its states that can
    reach Earth, each with the plain search's value)."""
    for seed in (0, 3):
        for _m, states, shared, plain in _kept_game_states(seed, 8, 20):
            yield seed, shared, [(st, v) for st in states if (v := plain.turns(st)) < INF_TURNS]


def _packed(a: int) -> tuple[int, int, int]:
    """(cell index, held samples, shields) of a packed relaxed state."""
    return a & 63, (a >> 27) & 3, (a >> 29) & 3


def test_each_kept_way_goes_on_by_a_state_kept_one_turn_nearer_earth():
    """The ways table keeps, with each state on a way found, the state after
    its first turn (``_record_way``): the card search orders its commands by
    it (``RelaxedBound.way_first``). That next state is itself kept, one turn
    nearer Earth (or as near, when it is the free bolster that keeps the
    turn), and a next state of Earth is one turn from it; and the hint names
    a cell one Fly away in line, or the ship's own for a wait. (Storing a
    state as its own next fails this.)"""
    checked = hinted = 0
    for seed, shared, valued in _kept_states_with_values():
        for st, value in valued:
            assert shared.within(st, value)
            hint = shared.way_first(st)
            if hint is not None:
                (r, c), _shields = hint
                r0, c0 = st[0]
                assert r == r0 or c == c0, (seed, st[:7], hint)
                hinted += 1
        tab = shared._ways
        rows = tab[tab[:, 6] != kernel.EMPTY]
        least: dict[int, int] = {}
        for a, v in zip(rows[:, 0].tolist(), rows[:, 6].tolist(), strict=True):
            least[a] = min(v, least.get(a, v))
        for a, v, nxt in zip(rows[:, 0].tolist(), rows[:, 6].tolist(), rows[:, 7].tolist(), strict=True):
            if nxt == kernel.EARTH_IDX:
                assert v >= 1
                continue
            assert nxt in least, (seed, a, v)
            cell, held, shields = _packed(a)
            bolster = _packed(nxt) == (cell, held - 1, shields + 1)
            assert least[nxt] <= (v if bolster else v - 1), (seed, a, v, least[nxt])
            checked += 1
    assert checked > 300 and hinted > 200


def test_a_deep_scan_is_no_better_than_the_credit_wait():
    """The card search drops every Deep Scan of a grid at once when the
    relaxed game, made to start with a credit wait (``scan_first``), needs
    more than the turns left (``split.GridHalf.scan_may_fit``). That is
    exact only if no real Deep Scan leads anywhere faster: the relaxed value
    of every grid a Deep Scan leads to is at least that search's value less
    one, and it is often equal (so a search one turn too long would show)."""
    from sensor_ghosts.solver.split import SCAN

    checked = equal = 0
    for seed in (0, 3):
        for m, states, rb, plain in _kept_game_states(seed, 8, 6):
            for st in states:
                key = rb._key(st)
                ship, rot, masks, held, shields, vir, credits = key
                after_scan = rb._search(ship, rot, masks, held, shields, vir, credits, scan_first=True)
                children = [end for _act, end in m.grid_moves(st, None, SCAN) if end is not None]
                values = []
                for _won, data in children:
                    for grid, pend, _cols, _ops in data:
                        values.append(plain.turns((*grid, *st[7:13], pend)))
                assert values
                assert min(values) >= after_scan - 1, (seed, st[:7])
                checked += len(values)
                equal += min(values) == after_scan - 1
                if after_scan < INF_TURNS:
                    assert rb.scan_within(st, after_scan) and not rb.scan_within(st, after_scan - 1)
    assert checked > 500 and equal > 20
