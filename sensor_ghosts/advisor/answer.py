"""What a hint answers (``Hint``), the errors it raises, and the Wilson
interval its chance is given with."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ..rules.errors import SensorGhostsError
from ..rules.observation import Observation
from ..rules.state import Status
from ..rules.turns import Turn

__all__ = ["GameOverObservation", "Hint", "HintError", "answer_head", "check_askable", "wilson"]


class HintError(SensorGhostsError, ValueError):
    """A hint cannot be given for this observation (not the active player's, ...)."""


class GameOverObservation(HintError):
    """A hint was asked for a finished game."""


def check_askable(observation: Observation) -> None:
    """Refuse an observation no hint can be given for: a finished game, or
    another player's view."""
    if observation.outcome.status is not Status.ONGOING:
        raise GameOverObservation(f"the game is over ({observation.outcome})")
    if observation.active != observation.player:
        raise HintError("hints are for the active player (the observation is another player's)")


def answer_head(best: Turn, win: float, low: float, high: float) -> dict[str, Any]:
    """The first keys of a hint as JSON (both engines' hints): the turn, its
    chance and the interval."""
    return {"best": str(best), "win": round(win, 4), "ci95": [round(low, 4), round(high, 4)]}


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95 % by default)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(max(0.0, p * (1 - p) / n + z * z / (4 * n * n))) / den
    return max(0.0, centre - half), min(1.0, centre + half)



@dataclass
class Hint:
    """The hinted command, its chance, and the re-scan for each outcome."""

    best: Turn
    """The hinted turn: the command, with the re-scan for its likeliest outcome."""
    win: float
    """The estimated chance to win with this command and good play after it."""
    low: float
    high: float
    worlds: int
    """Worlds the hinted command was valued in (the interval's sample size)."""
    reason: str
    rescans: list[tuple[str, float, frozenset[int]]] = field(default_factory=list)
    """(outcome described, its probability, the re-scan columns) per outcome."""
    runner_up: Turn | None = None
    runner_up_win: float | None = None
    candidates: int = 0
    commands: int = 0
    seconds: float = 0.0
    method: str = ""
    raw_win: float = 0.0
    """The estimate before calibration."""
    careful: bool = False
    """The command keeps to a careful route: its outcome is certain, and so is
    the re-scan that goes with it."""

    def __str__(self) -> str:
        lines = [f"best: {self.best}"]
        lines.append(
            f"  win ≈ {self.win:.0%} (95% interval {self.low:.0%}-{self.high:.0%}; "
            f"valued in {self.worlds} sampled worlds)"
        )
        lines.append(f"  why: {self.reason}")
        if len(self.rescans) > 1:
            lines.append("  re-scan after the command, by what happens:")
            for label, p, cols in self.rescans:
                lines.append(f"    {label} ({p:.0%}): {_cols(cols)}")
        if self.runner_up is not None:
            extra = "" if self.runner_up_win is None else f" (win ≈ {self.runner_up_win:.0%})"
            lines.append(f"runner-up: {self.runner_up}{extra}")
        lines.append(f"({self.commands} commands, {self.candidates} weighed, {self.seconds:.2f}s; "
                     f"{self.method})")
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        return {
            **answer_head(self.best, self.win, self.low, self.high),
            "raw_win": round(self.raw_win, 4),
            "worlds": self.worlds,
            "reason": self.reason,
            "rescans": [{"outcome": lab, "probability": round(p, 4), "columns": sorted(c)}
                        for lab, p, c in self.rescans],
            "runner_up": None if self.runner_up is None else str(self.runner_up),
            "runner_up_win": None if self.runner_up_win is None else round(self.runner_up_win, 4),
            "candidates": self.candidates,
            "commands": self.commands,
            "seconds": round(self.seconds, 3),
            "method": self.method,
        }


def _cols(cols: frozenset[int]) -> str:
    return "flip columns " + ",".join(map(str, sorted(cols))) if cols else "nothing to flip"
