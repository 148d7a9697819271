"""Rule options: player count, difficulty, variants and difficulty adjustments.

Every reading of the rules that differs from RULES.md's default is a named
option here, never a silent change.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum
from typing import Any


class Difficulty(str, Enum):
    INTRODUCTORY = "introductory"
    STANDARD = "standard"
    ADVANCED = "advanced"


# Names of the boolean options, as written in notation and on the command line.
FLAG_NAMES: dict[str, str] = {
    "escape-pod": "escape_pod",  # §10
    "low-memory": "low_memory",  # §11
    "second-action": "second_action",  # §12 reducing difficulty
    "reveal-once": "reveal_once",  # §12 reducing difficulty
    "no-memory-cubes": "no_memory_cubes",  # §12 increasing difficulty (information only)
    "two-samples": "two_samples",  # §12 increasing difficulty
    "flip-one": "flip_one",  # §12 increasing difficulty
    # Alternative readings of gaps in the rules (RULES.md: the default is the
    # project's reading, the other one is a named option).
    "pod-once-per-turn": "pod_once_per_turn",  # §10 + §12: the pod moves once, after the last action
    "helpers-once-per-turn": "helpers_once_per_turn",  # §9 + §12: one card per player per whole turn
    "earth-in-row-7": "earth_in_row_7",  # §10 + [D14]: a ship waiting at Earth is in row 7
}


@dataclass(frozen=True)
class RuleOptions:
    players: int = 1
    difficulty: Difficulty = Difficulty.STANDARD
    escape_pod: bool = False
    low_memory: bool = False
    second_action: bool = False
    reveal_once: bool = False
    no_memory_cubes: bool = False
    two_samples: bool = False
    flip_one: bool = False
    pod_once_per_turn: bool = False
    """Escape pod with the second action (§10, §12): the pod moves once a turn,
    after the turn's last action, by that command's top card. Default: after
    each action."""
    helpers_once_per_turn: bool = False
    """Second action in a multi-player game (§9, §12): each player plays at most
    one card in the whole turn, both actions together. Default: per action."""
    earth_in_row_7: bool = False
    """A ship waiting at Earth (§10) counts as being in row 7: a Deep Scan cannot
    shift row 7 ([D14]). Default: it stands in no row."""

    def __post_init__(self) -> None:
        if not 1 <= self.players <= 4:
            raise ValueError(f"players must be 1 to 4, got {self.players}")
        if not isinstance(self.difficulty, Difficulty):
            object.__setattr__(self, "difficulty", Difficulty(self.difficulty))

    @property
    def hand_limit(self) -> int:
        """3 cards solo, 2 cards with 2-4 players (RULES.md §2)."""
        return 3 if self.players == 1 else 2

    @property
    def samples_to_win(self) -> int:
        """[D12] 1 virus sample, 2 with the 'two samples' adjustment."""
        return 2 if self.two_samples else 1

    @property
    def rescan_flips(self) -> int:
        """Cards flipped by a re-scan: 2, or 1 with 'flip one' (§8, §12)."""
        return 1 if self.flip_one else 2

    @property
    def memory_cubes(self) -> int:
        return 0 if self.no_memory_cubes else 3

    def flags(self) -> list[str]:
        """Names of the boolean options that are on, in a fixed order."""
        return [name for name, attr in FLAG_NAMES.items() if getattr(self, attr)]

    def with_flags(self, names: list[str]) -> RuleOptions:
        """A copy with the named boolean options switched on; unknown names raise
        ``ValueError`` naming the bad one."""
        changes: dict[str, Any] = {}  # (every flag is a bool field; mypy cannot tell which)
        for n in names:
            key = n.strip().lower()
            if key not in FLAG_NAMES:
                raise ValueError(f"unknown rule option {n!r} (known: {', '.join(FLAG_NAMES)})")
            changes[FLAG_NAMES[key]] = True
        return replace(self, **changes)

