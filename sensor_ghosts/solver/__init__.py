"""The exact solver (RULES.md §15): deal, open and expected modes.

``solve(instance, mode=..., objective=...)`` returns a ``SolveResult`` whose
``plan`` (a ``Plan``) has been replayed through the rules engine. See
``model`` (the compact state and the lazy re-scan flips), ``search`` (A*,
heuristic, dominance), ``expected`` (expectimax over random draws) and
``reference`` (an independent brute force on the rules engine, used to
cross-check the optimum).
"""

from __future__ import annotations

from .api import SolveResult, SolverInputError, solve, solve_staged
from .plan import Figures, Plan, PlanReplayError

__all__ = ["Figures", "Plan", "PlanReplayError", "SolveResult", "SolverInputError", "solve", "solve_staged"]
