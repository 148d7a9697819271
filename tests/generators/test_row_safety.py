"""Row safety, setup step 4 [D7]: fewest swaps, every optimal plan, checked
against a brute-force search over swap sequences."""

from __future__ import annotations

import random

import pytest

from sensor_ghosts.generators.deal import deal_cards
from sensor_ghosts.generators.errors import UnsafeDealError
from sensor_ghosts.generators.row_safety import (
    Swap,
    apply_plan,
    brute_force_plans,
    legal_swaps,
    min_swaps,
    optimal_swap_plans,
    safe_bits,
    unsafe_rows,
)
from sensor_ghosts.rules.cards import SectorCardSet

from .helpers import card_set, grid_from_rows


def _finals(grid, plans):
    return {tuple(c.id for c in apply_plan(grid, p)) for p in plans}


def _unsafe_deals(cards: SectorCardSet, want: int, max_k: int, seeds=range(100000)):
    out = []
    for seed in seeds:
        g = deal_cards(random.Random(seed), cards)
        k = min_swaps(g)
        if 1 <= k <= max_k:
            out.append(g)
            if len(out) == want:
                break
    return out


def test_min_swaps_python_matches_brute_force_default_set():
    """[D7] On random unsafe deals of the default set, the python backend's plans
    are exactly the minimum-depth results of a brute-force BFS over sequences."""
    for g in _unsafe_deals(SectorCardSet.default(), 40, 2):
        plans = optimal_swap_plans(g)
        depth, finals = brute_force_plans(g, max_depth=3)
        assert depth == min_swaps(g) == len(plans[0])
        assert _finals(g, plans) == finals


def test_min_swaps_sparse_set_matches_brute_force():
    """A set with few E/B fronts: several unsafe rows and adjacent-column swaps."""
    sparse = card_set(5, 3, 13, 12)
    deals = _unsafe_deals(sparse, 25, 3)
    assert any(min_swaps(g) >= 2 for g in deals)
    for g in deals:
        plans = optimal_swap_plans(g)
        depth, finals = brute_force_plans(g, max_depth=3)
        assert depth == len(plans[0])
        assert _finals(g, plans) == finals


def test_cpsat_backend_agrees_with_python():
    """The CP-SAT optimisation (then enumeration of every optimal solution) gives
    the same sorted plan list as the python search."""
    deals = _unsafe_deals(SectorCardSet.default(), 6, 2)
    deals += _unsafe_deals(card_set(5, 3, 13, 12), 3, 2)
    for g in deals:
        assert optimal_swap_plans(g, backend="cpsat") == optimal_swap_plans(g)


def test_safe_deal_needs_no_swap():
    g = grid_from_rows(["E A A A A"] * 6 + ["S S A A A"])
    assert optimal_swap_plans(g) == [()]
    assert optimal_swap_plans(g, backend="cpsat") == [()]


def test_same_column_donor_first_then_adjacent():
    """[D7] Row 4 is unsafe. Column 3 has a donor (row 6), so a swap at column 3
    uses it; column 5 has no E/B donor, so a swap at column 5 may take one from
    column 4; columns 1 and 2 hold E only as start cards, which never count."""
    g = grid_from_rows(
        [
            "A E A O E",  # 7
            "E A E A A",  # 6
            "E O A A A",  # 5
            "A A A A A",  # 4  unsafe
            "B A A A O",  # 3
            "E A A E A",  # 2
            "S S A A O",  # 1
        ]
    )
    assert unsafe_rows(safe_bits(g)) == [4]
    swaps = set(legal_swaps(safe_bits(g)))
    assert Swap((4, 3), (6, 3)) in swaps
    assert not any(s.receiver == (4, 3) and s.donor[1] != 3 for s in swaps)
    # column 5 has an E at row 7 -> only same column
    assert {s for s in swaps if s.receiver == (4, 5)} == {Swap((4, 5), (7, 5))}
    # column 4: E at row 2 only
    assert {s for s in swaps if s.receiver == (4, 4)} == {Swap((4, 4), (2, 4))}


def test_adjacent_column_only_when_column_empty():
    g = grid_from_rows(
        [
            "A A A A A",  # 7 unsafe
            "E B A A A",  # 6
            "E A A A A",  # 5
            "B A E A A",  # 4
            "E A A E A",  # 3
            "B A A A E",  # 2
            "S S A A A",  # 1
        ]
    )
    swaps = set(legal_swaps(safe_bits(g)))
    # column 2 has B at row 6 -> same column only
    assert {s for s in swaps if s.receiver == (7, 2)} == {Swap((7, 2), (6, 2))}
    # column 5 has E at row 2 -> same column
    assert {s for s in swaps if s.receiver == (7, 5)} == {Swap((7, 5), (2, 5))}
    g2 = grid_from_rows(
        [
            "A A A A A",  # 7 unsafe
            "E A A A A",  # 6
            "E A A A A",  # 5
            "B A E A A",  # 4
            "E A A E A",  # 3
            "B A A E A",  # 2
            "S S A A A",  # 1
        ]
    )
    swaps = set(legal_swaps(safe_bits(g2)))
    # column 2 has no E/B donor (the start card does not count): columns 1 and 3
    assert {s for s in swaps if s.receiver == (7, 2)} == {
        Swap((7, 2), (6, 1)), Swap((7, 2), (5, 1)), Swap((7, 2), (4, 1)),
        Swap((7, 2), (3, 1)), Swap((7, 2), (2, 1)), Swap((7, 2), (4, 3)),
    }  # fmt: skip
    # column 5 has none: column 4 only (rows 3 and 2)
    assert {s for s in swaps if s.receiver == (7, 5)} == {
        Swap((7, 5), (3, 4)),
        Swap((7, 5), (2, 4)),
    }
    plans = optimal_swap_plans(g2)
    # every optimal plan leaves every row safe; donor rows keep an E/B front
    for p in plans:
        assert unsafe_rows(safe_bits(apply_plan(g2, p))) == []
    # row 4 has two E/B (B at col 1, E at col 3): either may go; rows with one may not
    assert (Swap((7, 1), (6, 1)),) not in plans
    assert (Swap((7, 1), (4, 1)),) in plans
    assert brute_force_plans(g2)[1] == _finals(g2, plans)


def test_donor_from_row_one():
    """[D7] Row 1 may give (its non-start cards). Rows 2..6 each have one E/B, so
    only row 1's E may go: same column at column 3, and from columns 2 and 4
    (which have no donor of their own) as adjacent-column swaps."""
    g = grid_from_rows(
        [
            "A A A A A",  # 7 unsafe
            "E A A A A",
            "E A A A A",
            "E A A A A",
            "E A A A A",
            "E A A A A",
            "S S E A A",
        ]
    )
    plans = optimal_swap_plans(g)
    assert plans == [
        (Swap((7, 2), (1, 3)),),
        (Swap((7, 3), (1, 3)),),
        (Swap((7, 4), (1, 3)),),
    ]
    assert optimal_swap_plans(g, backend="cpsat") == plans


def test_unmakeable_deal_raises():
    """[D7] Fewer than 6 E/B fronts: the rule cannot be satisfied; reported, not looped."""
    g = deal_cards(random.Random(3), card_set(3, 2, 15, 13))
    with pytest.raises(UnsafeDealError) as ei:
        optimal_swap_plans(g)
    assert ei.value.safe_fronts == 5
    with pytest.raises(UnsafeDealError):
        optimal_swap_plans(g, backend="cpsat")
