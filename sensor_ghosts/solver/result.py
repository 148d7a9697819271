"""What a solve returns, and the error for an instance it cannot take.

Their own module because both ``api`` (deal and open modes) and ``expected``
(expected mode) build them: kept in ``api``, they made ``expected`` import
``api`` while ``api`` imports ``expected``. ``api`` re-exports both."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from ..rules.errors import SensorGhostsError
from .plan import Plan


class _Name(str, Enum):
    """A name that is also its string: ``Status.SOLVED == "solved"``, it prints
    and formats as ``solved`` and JSON writes it so, as the bare strings did
    (``enum.StrEnum`` is Python 3.11+; the package supports 3.10)."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)


class Mode(_Name):
    """What the solver knows of the draws: the deck order ('deal' [D22]),
    nothing but chooses it ('open'), or nothing, averaging ('expected')."""

    DEAL = "deal"
    OPEN = "open"
    EXPECTED = "expected"


class Objective(_Name):
    """What an optimal plan minimises (``solve``'s docstring)."""

    TURNS = "turns"
    CARDS = "cards"
    TURNS_ONLY = "turns-only"
    # Expected mode's, not a plan's: the chance to win with best play.
    PROBABILITY = "probability"


class Status(_Name):
    """How a solve ended: proved optimal, proved unwinnable, or stopped by a budget."""

    SOLVED = "solved"
    UNSOLVABLE = "unsolvable"
    UNKNOWN = "unknown"


class SolverInputError(SensorGhostsError, ValueError):
    """The instance cannot be solved as asked (e.g. deal mode without a deal)."""


@dataclass
class SolveResult:
    # ``status``, ``mode`` and ``objective`` are made a Status, Mode and
    # Objective on construction (``__post_init__``): the solver's parts pass
    # plain strings, so the fields take them.
    status: str
    plan: Plan | None
    turns: int | None
    bound: int | None
    nodes: int
    seconds: float
    mode: str = Mode.DEAL
    objective: str = Objective.TURNS
    cards: int | None = None
    win_probability: float | None = None
    lower: float | None = None
    upper: float | None = None
    stopped: str = ""
    # Expected mode: how the probability, or each end of its interval, was
    # found, and the flight plan behind the lower bound (``expected.flight_text``).
    method: str = ""
    flight: list[str] | None = None
    # Unsolvable: what shows it, in a sentence (``api._why_unsolvable``).
    reason: str = ""

    def __post_init__(self) -> None:
        self.status = Status(self.status)
        self.mode = Mode(self.mode)
        self.objective = Objective(self.objective)

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
            "reason": self.reason,
            "plan": self.plan.to_json() if self.plan else None,
        }
