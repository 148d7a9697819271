"""What a solve returns, and the error for an instance it cannot take.

Their own module because both ``api`` (deal and open modes) and ``expected``
(expected mode) build them: kept in ``api``, they made ``expected`` import
``api`` while ``api`` imports ``expected``. ``api`` re-exports both."""

from __future__ import annotations

from dataclasses import dataclass

from ..rules.errors import SensorGhostsError
from .plan import Plan


class SolverInputError(SensorGhostsError, ValueError):
    """The instance cannot be solved as asked (e.g. deal mode without a deal)."""


@dataclass
class SolveResult:
    status: str  # 'solved' | 'unsolvable' | 'unknown'
    plan: Plan | None
    turns: int | None
    bound: int | None
    nodes: int
    seconds: float
    mode: str = "deal"
    objective: str = "turns"
    cards: int | None = None
    win_probability: float | None = None
    lower: float | None = None
    upper: float | None = None
    stopped: str = ""
    # Expected mode: how the probability, or each end of its interval, was
    # found, and the flight plan behind the lower bound (``expected.flight_text``).
    method: str = ""
    flight: list[str] | None = None

    def as_dict(self) -> dict:
        return {
            "status": self.status,
            "mode": self.mode,
            "objective": self.objective,
            "turns": self.turns,
            "cards": self.cards,
            "bound": self.bound,
            "win_probability": self.win_probability,
            "lower": self.lower,
            "upper": self.upper,
            "nodes": self.nodes,
            "seconds": round(self.seconds, 4),
            "stopped": self.stopped,
            "method": self.method,
            "flight": self.flight,
            "plan": self.plan.to_json() if self.plan else None,
        }
