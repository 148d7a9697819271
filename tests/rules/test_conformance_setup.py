"""Setup decisions [D3] [D7] [D8] [D26] as validation.py checks them (RULES.md §3)."""

from __future__ import annotations

from test_conformance import _quick_setup

from sensor_ghosts.rules.cards import SectorType
from sensor_ghosts.rules.geometry import COLS, ROWS, orthogonal_neighbours
from sensor_ghosts.rules.setup import Gap, Setup, Slot, cell_at, replace_cell
from sensor_ghosts.rules.validation import validate


def _setups(n=400):
    for seed in range(n):
        yield _quick_setup(seed, None)


def _rules(setup):
    return {v.rule for v in validate(setup)}


def _row_safe_without_gaps(setup, r):
    return any(
        isinstance(c, Slot) and c.card.front.safe_front for c in (cell_at(setup.grid, (r, col)) for col in range(1, COLS + 1))
    )


def test_D7_row_without_safe_front_is_reported():
    bad = next(s for s in _setups() if any(
        not any(cell_at(s.grid, (r, c)).card.front.safe_front for c in range(1, COLS + 1)) for r in range(2, ROWS + 1)
    ))
    vs = [v for v in validate(bad) if v.rule == "step 4"]
    assert vs and "no E or B front" in str(vs[0].message if hasattr(vs[0], "message") else vs[0])


def test_D26_row_safety_counts_the_gaps_cards_in_place():
    # A deal whose row is safe only thanks to a removed card is valid.
    for s in _setups():
        if validate(s):
            continue
        for r in range(2, ROWS + 1):
            if not _row_safe_without_gaps(s, r):
                return
    raise AssertionError("no quick setup with a row safe only through a gap's card")


def _valid():
    return next(s for s in _setups() if not validate(s))


def test_D8_an_O_front_card_cannot_be_removed():
    s = _valid()
    gap = s.gaps()[0]
    samples = {p for p, _ in s.samples()}
    # Put the gap's card back and remove an O-front card beside a sample instead.
    o_cells = [
        q for p in samples for q in orthogonal_neighbours(p)
        if isinstance(cell_at(s.grid, q), Slot) and not cell_at(s.grid, q).card.start
        and cell_at(s.grid, q).sample is None and cell_at(s.grid, q).card.front is SectorType.OBSTRUCTED
    ]
    s2 = next(
        _valid_or_none(s, gap, q) for q in o_cells
    )
    assert "D8" in _rules(s2)
    assert any("O-front" in str(v) for v in validate(s2))


def _valid_or_none(s, gap, q):
    g = replace_cell(s.grid, gap, Slot(cell_at(s.grid, gap).card))
    g = replace_cell(g, q, Gap(cell_at(g, q).card))
    return Setup(g, s.options)


def test_D8_removed_card_must_be_beside_a_sample_and_exactly_three():
    s = _valid()
    gap = s.gaps()[0]
    samples = {p for p, _ in s.samples()}
    far = next(
        (r, c) for r in range(2, ROWS + 1) for c in range(1, COLS + 1)
        if isinstance(cell_at(s.grid, (r, c)), Slot) and not cell_at(s.grid, (r, c)).card.start
        and not any(n in samples for n in orthogonal_neighbours((r, c)))
        and cell_at(s.grid, (r, c)).card.front is not SectorType.OBSTRUCTED
    )
    s2 = _valid_or_none(s, gap, far)
    assert any("adjacent to a sample" in str(v) for v in validate(s2))
    g = replace_cell(s.grid, gap, Slot(cell_at(s.grid, gap).card))
    assert any("exactly 3" in str(v) for v in validate(Setup(g, s.options)))


def test_D3_quick_setups_use_the_default_set_and_validate():
    assert not validate(_valid())
