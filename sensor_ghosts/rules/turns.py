"""What a player does in one turn: ``Turn`` = bolster + ``Command`` (+ a second
command under the §12 option) + re-scan choices (RULES.md §4)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from .geometry import Direction, Pos, format_pos

DECK_PLAYER = -1
"""[D18] The player index of the deck's top card, discarded as the third card of a
two-player wild."""


class ActionKind(str, Enum):
    FLY = "fly"
    PEEK = "peek"
    FLIP = "flip"  # Deep Scan: flip one sector card
    SHIFT = "shift"  # Deep Scan: shift one row one place left
    SHIELDS = "shields"


@dataclass(frozen=True)
class Action:
    kind: ActionKind
    direction: Direction | None = None  # FLY, PEEK
    target: Pos | None = None  # FLIP
    row: int | None = None  # SHIFT

    def __str__(self) -> str:
        if self.kind in (ActionKind.FLY, ActionKind.PEEK):
            assert self.direction is not None
            return f"{self.kind.value} {self.direction.letter}"
        if self.kind is ActionKind.FLIP:
            assert self.target is not None
            return f"flip {format_pos(self.target)}"
        if self.kind is ActionKind.SHIFT:
            return f"shift {self.row}"
        return "shields"

    @property
    def is_deep_scan(self) -> bool:
        return self.kind in (ActionKind.FLIP, ActionKind.SHIFT)


@dataclass(frozen=True)
class PlayedCard:
    card: str
    player: int = 0  # 0-based; DECK_PLAYER for the deck's top card [D18]


def _card_text(pc: PlayedCard) -> str:
    # Card ids name their holder, so only the deck's card needs a marker.
    return f"deck:{pc.card}" if pc.player == DECK_PLAYER else pc.card


@dataclass(frozen=True)
class Command:
    """Cards played for one action. The last card of ``cards`` lands on top of the
    discard pile; it sets the heading ([D11]) and the pod's movement value (§10).

    ``arrow`` is the orientation of the top card when it is a Fly card (else None).
    ``pod_direction`` is the pod's direction where the player chooses it (escape
    pod variant, top card not a Fly card); else None.
    """

    cards: tuple[PlayedCard, ...]
    action: Action
    arrow: Direction | None = None
    pod_direction: Direction | None = None

    @property
    def top(self) -> PlayedCard:
        return self.cards[-1]

    def key(self) -> tuple:
        """Identity for counting distinct turns: set of cards, the top, action,
        arrow, pod direction (see the README's perft definition)."""
        return (
            frozenset(pc.card for pc in self.cards),
            self.top.card,
            self.action,
            self.arrow,
            self.pod_direction,
        )

    def __str__(self) -> str:
        cards = "+".join(_card_text(pc) for pc in self.cards)
        out = f"{cards} {self.action}"
        if self.arrow is not None and (self.action.direction is None):
            out += f" arrow {self.arrow.letter}"
        if self.pod_direction is not None:
            out += f" pod {self.pod_direction.letter}"
        return out


@dataclass(frozen=True)
class Turn:
    """One turn of the active player.

    ``command`` is None only when the active player holds no card (multi-player:
    steps 1-3 are skipped). ``second`` is the §12 second action. ``rescan`` holds
    the columns flipped in the row two ahead.
    """

    command: Command | None
    bolster: int = 0
    second: Command | None = None
    rescan: frozenset[int] = field(default_factory=frozenset)

    def key(self) -> tuple:
        return (
            self.bolster,
            self.command.key() if self.command else None,
            self.second.key() if self.second else None,
            self.rescan,
        )

    def __str__(self) -> str:
        parts = []
        if self.bolster:
            parts.append(f"bolster {self.bolster}")
        parts.append(str(self.command) if self.command else "skip")
        if self.second is not None:
            parts.append(f"then {self.second}")
        if self.rescan:
            parts.append("rescan " + ",".join(str(c) for c in sorted(self.rescan)))
        return "; ".join(parts)
