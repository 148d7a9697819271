"""The strong static-rows tables (``relaxed_kernel.static_table`` with
``strong``: units, shields and held samples together, and the rotation of
the ship's own row) never exceed the relaxed game's turns, in the variants
where units count most (low memory's O, two samples, asteroid-heavy setups),
on states a few random turns from the dock; and the relaxed search guided
by them from its first search finds the same values as one guided by the
grid distance alone."""

from __future__ import annotations

import random

import pytest

from sensor_ghosts.generators.generate import generate_setup
from sensor_ghosts.rules.geometry import EARTH
from sensor_ghosts.rules.options import Difficulty, RuleOptions
from sensor_ghosts.rules.state import initial_state
from sensor_ghosts.solver import relaxed
from sensor_ghosts.solver import relaxed_kernel as kernel
from sensor_ghosts.solver.model import Model
from sensor_ghosts.solver.search import Heuristic

CAP = 10
LINES = (kernel.LINES_Q, kernel.LINES_R, kernel.LINES_C, kernel.LINES_N)


def _walk(m: Model, rng: random.Random, steps: int) -> list[tuple]:
    """States after 4 .. ``steps`` random turns from the dock (no win)."""
    out = []
    st = m.root_state()
    for step in range(steps):
        succ = [s for s, _rec, _n, won in m.successors(st) if not won]
        if not succ:
            break
        st = rng.choice(succ)
        if step >= 4:
            out.append(st)
    return out


@pytest.mark.parametrize(
    ("options", "seeds"),
    [
        (RuleOptions(), (654, 3366, 5969, 7642, 0, 1, 2, 3, 4, 5)),
        (RuleOptions(low_memory=True), range(10)),
        (RuleOptions().with_flags(["two-samples"]), range(10)),
        (RuleOptions(difficulty=Difficulty.ADVANCED), range(10)),
    ],
    ids=["standard", "low-memory", "two-samples", "advanced"],
)
def test_strong_tables_never_exceed_the_relaxed_turns(options, seeds, monkeypatch):
    """Read at a state's units, credits, rotations and cell, the strong table
    is at most the relaxed turns (searched plainly, capped at CAP); the
    search guided by strong tables from the start finds the same values;
    and the units and the own row make the table larger than the weak one
    somewhere, so an overestimate there would show."""
    monkeypatch.setattr(relaxed, "STRONG_AFTER", 0)
    rng = random.Random(7)
    checked = stronger = 0
    for seed in seeds:
        setup = generate_setup(seed, options)
        m = Model(initial_state(setup, setup.deal), "deal")
        guided, plain = Heuristic(m).relaxed, Heuristic(m).relaxed
        plain.plain = True
        for st in _walk(m, rng, 14):
            ship, rot, _masks, held, shields, _vir, credits = guided._key(st)
            if ship == EARTH:
                continue
            value = plain.turns(st, CAP)
            assert guided.turns(st, CAP) == value, (seed, st[:7])
            pos = kernel.cell_index(ship)
            row = int(kernel.CELL_ROW[pos])
            args = (tuple(rot), (1 << min(7, row + 1)) - 1, guided._flags_np, guided._card_units(), guided.need,
                    guided._any_boost, *LINES)
            strong = kernel.static_table(*args, guided._free[0], False, True)
            weak = kernel.static_table(
                *args, kernel.every_row_free(guided._flags_np, guided._card_units(), guided.need,
                                             guided._any_boost, False, False), False, False)
            units = kernel.UTOP if held >= 3 else min(held + shields, kernel.UTOP)
            k = min(credits, kernel.CREDIT_LAYERS)
            bound = int(strong[units, k, kernel.table_column(rot, pos)])
            weak_bound = int(weak[-1, k, kernel.table_column(rot, pos, strong=False)])  # (UTOP's layer alone)
            assert bound <= value or value == CAP, (seed, st[:7], bound, value)
            assert weak_bound <= bound, (seed, st[:7], weak_bound, bound)
            checked += 1
            stronger += bound > weak_bound
    assert checked >= 40 and stronger >= 5, (checked, stronger)


def test_static_table_refuses_parts_of_another_kind():
    """A table is made from the table with every row free and the own row's
    edges of its own kind (strong or not, with moves without the turn's end
    or not): given another kind's, it reads them at the wrong places, so it
    refuses them rather than return a wrong bound."""
    setup = generate_setup(5)
    rb = Heuristic(Model(initial_state(setup, setup.deal), "deal")).relaxed
    cardu = rb._card_units()
    base = (rb._flags_np, cardu, rb.need, rb._any_boost)
    args = ((0,) * 7, 3, *base, *LINES)

    def rows(noturn: bool, strong: bool):
        return kernel.row_edges(rb._flags_np, cardu, *LINES, noturn, strong)

    weak_free = kernel.every_row_free(*base, False, False)
    strong_free = kernel.every_row_free(*base, False, True)
    assert kernel.static_table(*args, weak_free, False, False, rows(False, False)).shape[0] == 1
    for tfree, noturn, strong, edges in [
        (strong_free, False, False, rows(False, False)),  # a strong tfree for a weak table
        (weak_free, False, True, rows(False, True)),  # and the other way round
        (weak_free, False, False, rows(False, True)),  # strong rows for a weak table
        (strong_free, False, True, rows(True, True)),  # rows with moves without the turn's end
    ]:
        with pytest.raises(ValueError, match="another kind"):
            kernel.static_table(*args, tfree, noturn, strong, edges)


def test_strong_tables_never_exceed_the_relaxed_turns_on_the_way_to_two_samples():
    """Two samples, along optimal plans and one turn from them: states whose
    relaxed ways still take a token, often from a row that has turned since
    (where the table lets any card be met, and only a stop on a card with a
    token takes one). The strong table is at most the relaxed turns,
    searched plainly, and equal to them on many states (so a
    token counted where none is taken would show): the last turns of each
    plan, where the relaxed search without its guides (capped at CAP) is
    quick."""
    from sensor_ghosts.solver import solve

    options = RuleOptions().with_flags(["two-samples"])
    checked = exact = 0
    for seed in (0, 2, 3, 5):
        setup = generate_setup(seed, options)
        result = solve(setup, mode="deal", objective="turns-only", timeout=60)
        for state in result.plan.replay()[-CAP:-1]:
            m = Model(state, "deal")
            rb, plain = Heuristic(m).relaxed, Heuristic(m).relaxed
            plain.plain = True
            tfree = kernel.every_row_free(rb._flags_np, rb._card_units(), rb.need, rb._any_boost,
                                          False, True)
            root = m.root_state()
            for st in [root] + [s for s, _rec, _n, won in m.successors(root) if not won][:12]:
                ship, rot, _masks, held, shields, _vir, credits = rb._key(st)
                if held >= 2:
                    continue  # (no token left to take)
                pos = kernel.cell_index(ship)
                row = int(kernel.CELL_ROW[pos])
                table = kernel.static_table(tuple(rot), (1 << min(7, row + 1)) - 1, rb._flags_np, rb._card_units(),
                                            rb.need, rb._any_boost, *LINES, tfree, False, True)
                units = min(held + shields, kernel.UTOP)
                bound = int(table[units, min(credits, kernel.CREDIT_LAYERS), kernel.table_column(rot, pos)])
                value = plain.turns(st, CAP)
                assert bound <= value or value == CAP, (seed, st[:7], bound, value)
                checked += 1
                exact += bound == value
    assert checked >= 100 and exact >= checked // 5, (checked, exact)
