"""Policies: who makes the setter's choices (RULES.md §3 steps 4, 9, 10).

Every choice point of the generator asks the policy:

* ``choose_swaps(plans, rng)`` — which optimal row-safety plan ([D7]);
* ``choose_samples(problem, rng)`` — which cell per row 3..7 (step 9);
* ``choose_removals(problem, samples, rng)`` — which three cards (step 10, [D8]).

``plans`` is the sorted list of every legal optimal plan; ``problem`` is a
:class:`~.placement.LayoutProblem`, which can enumerate (``placements()``,
``removals(samples)``), count and sample its legal choices. A policy must
return one of the legal choices, and must draw any randomness from ``rng``.

Chance that is not a choice (the shuffles of cards and sample tokens, the
command deal) never goes through the policy.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from .placement import LayoutProblem, Placement, Removal
from .row_safety import SwapPlan


class Policy:
    """The default policy: uniform over the legal choices at every choice point.

    Subclass and override one method to steer one choice."""

    name = "uniform"

    def choose_swaps(self, plans: Sequence[SwapPlan], rng: random.Random) -> SwapPlan:
        if len(plans) == 1:
            return plans[0]
        return plans[rng.randrange(len(plans))]

    def choose_samples(self, problem: LayoutProblem, rng: random.Random) -> Placement:
        return problem.sample_placement(rng)

    def choose_removals(
        self, problem: LayoutProblem, samples: Placement, rng: random.Random
    ) -> Removal:
        return problem.sample_removal(samples, rng)


UniformPolicy = Policy


class FirstChoicePolicy(Policy):
    """Always the first legal choice in sorted order: a canonical, rng-free setter
    (useful for tests and for reproducible hand-made layouts)."""

    name = "first"

    def choose_swaps(self, plans: Sequence[SwapPlan], rng: random.Random) -> SwapPlan:
        return plans[0]

    def choose_samples(self, problem: LayoutProblem, rng: random.Random) -> Placement:
        from .errors import NoLegalChoiceError

        legal = problem.placements()
        if not legal:
            raise NoLegalChoiceError("sample placement", problem._names())
        return legal[0]

    def choose_removals(
        self, problem: LayoutProblem, samples: Placement, rng: random.Random
    ) -> Removal:
        from .errors import NoLegalChoiceError

        legal = problem.removals(samples)
        if not legal:
            raise NoLegalChoiceError("removal", problem._names())
        return legal[0]


DEFAULT_POLICY = Policy()
