"""Sample placement and removal, steps 9-10 [D8]: enumeration by two backends,
caller constraints, uniform sampling (chi-square)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from sensor_ghosts.generators import constraints as C
from sensor_ghosts.generators.deal import deal_cards, index_of
from sensor_ghosts.generators.errors import NoLegalChoiceError
from sensor_ghosts.generators.placement import LayoutProblem
from sensor_ghosts.generators.policy import FirstChoicePolicy, Policy
from sensor_ghosts.generators.row_safety import apply_plan, optimal_swap_plans
from sensor_ghosts.rules.cards import SectorCardSet, SectorType

COLS12 = C.sample_cells(lambda g, p: p[1] <= 2, "cols12")
COL1 = C.sample_cells(lambda g, p: p[1] == 1 or p[0] == 7, "col1")


def safe_grid(seed: int):
    g = deal_cards(random.Random(seed), SectorCardSet.default())
    return apply_plan(g, optimal_swap_plans(g)[0])


def _is_legal(grid, samples, removal):
    """[D8] straight from the rule, no shared code."""
    assert [r for r, _ in samples] == [3, 4, 5, 6, 7]
    assert len(set(removal)) == 3
    for pos in removal:
        card = grid[index_of(pos)]
        if card.start or card.front is SectorType.OBSTRUCTED or pos in samples:
            return False
        if not any(abs(pos[0] - s[0]) + abs(pos[1] - s[1]) == 1 for s in samples):
            return False
    return True


CASES = [
    (COLS12,),
    (COLS12, C.SAMPLES_REACHABLE),
    (COLS12, C.NO_SAMPLE_ON_OBSTRUCTED),
    (COLS12, C.REMOVE_ONLY_ASTEROIDS),
    (COLS12, C.NO_SAMPLE_ON_OBSTRUCTED, C.REMOVE_ONLY_ASTEROIDS, C.SAMPLES_REACHABLE),
    (C.sample_cells(lambda g, p: p[1] in (2, 4), "cols24"), C.SAMPLES_REACHABLE),
]


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("cons", CASES, ids=lambda cs: "+".join(k.name for k in cs))
def test_backends_agree(seed, cons):
    g = safe_grid(seed)
    py = LayoutProblem(g, cons)
    cs = LayoutProblem(g, cons, backend="csp")
    assert py.count() == cs.count()
    assert py.placements() == cs.placements()
    assert py.layouts() == cs.layouts()


def test_counts_full_grid_python_vs_rule():
    """Without constraints the count is the sum of C(candidates, 3) over all 5^5
    placements; every enumerated layout obeys [D8]."""
    g = safe_grid(4)
    prob = LayoutProblem(g)
    n_place, n_layouts = prob.count()
    assert n_place <= 5**5
    lay = prob.layouts()
    assert len(lay) == n_layouts
    assert all(_is_legal(g, s, r) for s, r in lay[:: max(1, len(lay) // 2000)])


def test_constraints_honoured():
    for seed in range(30):
        g = safe_grid(seed)
        cons = (C.NO_SAMPLE_ON_OBSTRUCTED, C.REMOVE_ONLY_ASTEROIDS, C.SAMPLES_REACHABLE)
        prob = LayoutProblem(g, cons)
        rng = random.Random(seed)
        try:
            s = prob.sample_placement(rng)
        except NoLegalChoiceError:
            continue
        r = prob.sample_removal(s, rng)
        assert _is_legal(g, s, r)
        assert all(g[index_of(p)].front is not SectorType.OBSTRUCTED for p in s)
        assert all(g[index_of(p)].front is SectorType.ASTEROID for p in r)
        reach = C.reachable_cells(r)
        assert all(p in reach for p in s)


def test_custom_predicate():
    """A caller predicate over the whole choice: no two samples in one column."""
    distinct = C.predicate(lambda g, s, r: len({c for _, c in s}) == 5, "distinct-cols")
    g = safe_grid(7)
    prob = LayoutProblem(g, (distinct,))
    rng = random.Random(0)
    for _ in range(50):
        s = prob.sample_placement(rng)
        assert len({c for _, c in s}) == 5


def test_no_legal_choice():
    never = C.sample_cells(lambda g, p: False, "never")
    with pytest.raises(NoLegalChoiceError, match="never"):
        LayoutProblem(safe_grid(1), (never,)).sample_placement(random.Random(0))
    impossible = C.predicate(lambda g, s, r: False, "impossible")
    with pytest.raises(NoLegalChoiceError):
        LayoutProblem(safe_grid(1), (impossible,)).sample_placement(random.Random(0))


def test_first_choice_policy_is_canonical():
    g = safe_grid(2)
    prob = LayoutProblem(g, (COLS12,))
    p = FirstChoicePolicy()
    s = p.choose_samples(prob, random.Random(1))
    assert s == prob.placements()[0]
    assert p.choose_removals(prob, s, random.Random(2)) == prob.removals(s)[0]


def _chi2(counts: Counter, support: list, draws: int) -> float:
    from scipy.stats import chisquare

    assert set(counts) <= set(support)
    observed = [counts[x] for x in support]
    return chisquare(observed, [draws / len(support)] * len(support)).pvalue


def test_uniform_placement_chi_square():
    """The default policy draws sample placements evenly from the enumerated legal
    set (with a whole-choice constraint, so rejection is exercised)."""
    pytest.importorskip("scipy")
    g = safe_grid(5)
    prob = LayoutProblem(g, (COL1, C.SAMPLES_REACHABLE, C.REMOVE_ONLY_ASTEROIDS))
    support = prob.placements()
    assert 3 <= len(support) <= 40
    rng = random.Random(12345)
    draws = 150 * len(support)
    counts = Counter(Policy().choose_samples(prob, rng) for _ in range(draws))
    assert _chi2(counts, support, draws) > 0.001


def test_uniform_removal_chi_square():
    pytest.importorskip("scipy")
    g = safe_grid(6)
    prob = LayoutProblem(g)
    samples = prob.sample_placement(random.Random(1))
    support = prob.removals(samples)
    assert len(support) >= 4
    rng = random.Random(54321)
    draws = 100 * len(support)
    counts = Counter(Policy().choose_removals(prob, samples, rng) for _ in range(draws))
    assert _chi2(counts, support, draws) > 0.001


def test_uniform_swap_plan_chi_square():
    pytest.importorskip("scipy")
    for seed in range(1000):
        g = deal_cards(random.Random(seed), SectorCardSet.default())
        plans = optimal_swap_plans(g)
        if len(plans) >= 5:
            break
    rng = random.Random(99)
    draws = 100 * len(plans)
    counts = Counter(Policy().choose_swaps(plans, rng) for _ in range(draws))
    assert _chi2(counts, plans, draws) > 0.001


def test_reachable_mask_matches_search():
    """The bit-mask flood fill agrees with a plain search over cells."""
    rng = random.Random(3)
    cells = [(r, c) for r in range(1, 8) for c in range(1, 6)]
    for _ in range(500):
        gaps = rng.sample(cells, rng.randrange(0, 12))
        mask = C.reachable_mask(gaps)
        got = {p for p in cells if mask >> ((p[0] - 1) * 5 + p[1] - 1) & 1}
        assert got == C.reachable_cells(gaps)
