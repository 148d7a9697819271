"""Hidden information (RULES.md §14): hints from what a player can see, and bots
that play real games with them."""

from .endgame import EndgameResult, EndgameUnsupported, solve_endgame
from .search import GameOverObservation, Hint, HintError, flipped_positions, hint, rescan_hint

__all__ = [
    "EndgameResult",
    "EndgameUnsupported",
    "GameOverObservation",
    "Hint",
    "HintError",
    "flipped_positions",
    "hint",
    "rescan_hint",
    "solve_endgame",
]
