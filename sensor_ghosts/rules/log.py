"""What a turn did, as the engine tells it: ``apply_turn(state, turn, log=[])``
appends these events in the order they happened, so that a reader (the
solution page, an explanation) never works the rules out a second time."""

from __future__ import annotations

from dataclasses import dataclass

from .cards import SectorType
from .geometry import Direction, Pos
from .state import Outcome


@dataclass(frozen=True)
class Flew:
    """A Fly action started in ``direction`` (a ship waiting at Earth does not move)."""

    direction: Direction


@dataclass(frozen=True)
class Entered:
    """The ship moved into ``pos``: a card, whose side met is ``met`` (its new
    face), or Earth, a gap or off the grid (``met`` None). A Boost carries it on."""

    pos: Pos
    met: SectorType | None


@dataclass(frozen=True)
class SampleTaken:
    pos: Pos
    virus: bool


@dataclass(frozen=True)
class SampleLost:
    """§11 low memory: a token removed unseen."""

    pos: Pos


@dataclass(frozen=True)
class Flipped:
    """A card flipped by choice: ``cause`` is 'deep scan' or 're-scan'."""

    pos: Pos
    face: SectorType
    cause: str


@dataclass(frozen=True)
class Shifted:
    """A row shifted one place left: ``cause`` is 'deep scan' or 're-scan'."""

    row: int
    cause: str


@dataclass(frozen=True)
class Peeked:
    cells: tuple[Pos, ...]


@dataclass(frozen=True)
class ShieldsRaised:
    shields: int


@dataclass(frozen=True)
class PodMoved:
    start: Pos
    end: Pos


@dataclass(frozen=True)
class Drew:
    cards: tuple[str, ...]
    reshuffled: bool


@dataclass(frozen=True)
class GameEnded:
    outcome: Outcome


Event = Flew | Entered | SampleTaken | SampleLost | Flipped | Shifted | Peeked | ShieldsRaised | PodMoved | Drew | GameEnded

__all__ = [
    "Drew",
    "Entered",
    "Event",
    "Flew",
    "Flipped",
    "GameEnded",
    "Peeked",
    "PodMoved",
    "SampleLost",
    "SampleTaken",
    "ShieldsRaised",
    "Shifted",
]
