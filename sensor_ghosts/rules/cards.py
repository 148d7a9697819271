"""Sector cards and command cards, and the card sets loaded from data files.

RULES.md §2. The default sets ship in ``sensor_ghosts/data`` ([D3], [D5]); a user
may load their own files in the same format.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import Enum
from functools import cached_property
from importlib import resources
from pathlib import Path

from .errors import CardSetError, InvalidArgumentError, UnknownCardError
from .options import Difficulty


class SectorType(str, Enum):
    """What one side of a sector card shows."""

    EMPTY = "E"
    BOOST = "B"
    ASTEROID = "A"
    OBSTRUCTED = "O"

    @property
    def safe_front(self) -> bool:
        """Empty and Boost fronts make a row safe (setup step 4)."""
        return self in (SectorType.EMPTY, SectorType.BOOST)


class Side(Enum):
    FRONT = "front"
    BACK = "back"

    @property
    def other(self) -> Side:
        return Side.BACK if self is Side.FRONT else Side.FRONT


@dataclass(frozen=True)
class SectorCard:
    """A sector card: ``front/back``. Start cards are Empty on both sides and never
    flip ([D4])."""

    id: int
    front: SectorType
    back: SectorType
    start: bool = False

    def side(self, side: Side) -> SectorType:
        return self.front if side is Side.FRONT else self.back

    @property
    def pair(self) -> str:
        return f"{self.front.value}/{self.back.value}"


# [D4] The two blue start cards: Empty both sides, 'no flip'. Their ids are kept
# apart from the 33 sector cards' ids (which are 1..N in a card-set file).
START_CARDS: tuple[SectorCard, SectorCard] = (
    SectorCard(-1, SectorType.EMPTY, SectorType.EMPTY, start=True),
    SectorCard(-2, SectorType.EMPTY, SectorType.EMPTY, start=True),
)

SECTOR_CARD_COUNT = 33


def _read_card_file(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise CardSetError(f"cannot read: {e}", source=str(path)) from None


def _type_of(token: str) -> SectorType:
    try:
        return SectorType(token.upper())
    except ValueError:
        raise InvalidArgumentError(f"unknown sector type {token!r} (use E, B, A or O)") from None


@dataclass(frozen=True)
class SectorCardSet:
    """The 33 double-sided sector cards in play (RULES.md §2, [D3])."""

    name: str
    cards: tuple[SectorCard, ...]

    def by_id(self, card_id: int) -> SectorCard:
        for c in self.cards:
            if c.id == card_id:
                return c
        raise UnknownCardError(card_id, self.name)

    def pair_counts(self) -> Counter[tuple[SectorType, SectorType]]:
        return Counter((c.front, c.back) for c in self.cards)

    @classmethod
    def parse(cls, text: str, *, name: str = "custom", source: str = "<card set>") -> SectorCardSet:
        """Parse ``id front/back`` lines; ``#`` starts a comment."""
        cards: list[SectorCard] = []
        seen: dict[int, int] = {}
        for lineno, raw in enumerate(text.splitlines(), 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) != 2 or parts[1].count("/") != 1:
                raise CardSetError(
                    f"expected 'id front/back', got {line!r}", source=source, line=lineno
                )
            try:
                card_id = int(parts[0])
            except ValueError:
                raise CardSetError(
                    f"card id must be a whole number, got {parts[0]!r}", source=source, line=lineno
                ) from None
            if card_id < 1:
                raise CardSetError(f"card id must be 1 or more, got {card_id}", source=source, line=lineno)
            if card_id in seen:
                raise CardSetError(
                    f"duplicate card id {card_id} (first on line {seen[card_id]})",
                    source=source,
                    line=lineno,
                )
            front_s, back_s = parts[1].split("/")
            try:
                front, back = _type_of(front_s), _type_of(back_s)
            except ValueError as e:
                raise CardSetError(str(e), source=source, line=lineno) from None
            seen[card_id] = lineno
            cards.append(SectorCard(card_id, front, back))
        if len(cards) != SECTOR_CARD_COUNT:
            raise CardSetError(
                f"a sector card set has {SECTOR_CARD_COUNT} cards, this one has {len(cards)}",
                source=source,
            )
        return cls(name, tuple(cards))

    @classmethod
    def load(cls, path: str | Path) -> SectorCardSet:
        p = Path(path)
        return cls.parse(_read_card_file(p), name=p.stem, source=str(p))

    @classmethod
    def default(cls) -> SectorCardSet:
        return _default_sectors()


class CommandKind(str, Enum):
    FLY = "fly"
    DEEP_SCAN = "deep-scan"
    SHIELDS = "shields"
    WILD = "wild"


@dataclass(frozen=True)
class CommandCard:
    """A command card with its escape-pod movement value (1..3, [D5])."""

    id: str
    kind: CommandKind
    pod_value: int


# The rulebook's "Command Deck Composition" table: (fly, deep scan, shields) by
# difficulty and player count. Every deck also has 1 Wild, which per [D6] lies
# beside the first deck and joins at the reshuffle.
DECK_COMPOSITION: dict[Difficulty, tuple[tuple[int, int, int], ...]] = {
    Difficulty.INTRODUCTORY: ((8, 2, 2), (9, 2, 2), (9, 3, 2), (10, 3, 2)),
    Difficulty.STANDARD: ((7, 2, 2), (8, 2, 2), (8, 3, 2), (9, 3, 2)),
    Difficulty.ADVANCED: ((6, 2, 2), (7, 2, 2), (8, 2, 2), (9, 2, 2)),
}


@dataclass(frozen=True)
class CommandCardSet:
    """The 16 command cards (10 Fly, 3 Deep Scan, 2 Shields, 1 Wild)."""

    name: str
    cards: tuple[CommandCard, ...]

    @cached_property
    def _index(self) -> dict[str, CommandCard]:
        return {c.id: c for c in self.cards}

    def by_id(self, card_id: str) -> CommandCard:
        # The engine asks this for every candidate play: a dict, not a scan.
        try:
            return self._index[card_id]
        except (KeyError, TypeError):
            raise UnknownCardError(card_id, self.name) from None

    def of_kind(self, kind: CommandKind) -> list[CommandCard]:
        return [c for c in self.cards if c.kind is kind]

    @property
    def wild(self) -> CommandCard:
        return self.of_kind(CommandKind.WILD)[0]

    def deck_for(self, difficulty: Difficulty, players: int) -> tuple[CommandCard, ...]:
        """The cards of the first deck (Wild excluded, [D6]) in file order ([D5])."""
        fly, deep, shields = DECK_COMPOSITION[difficulty][players - 1]
        return (
            tuple(self.of_kind(CommandKind.FLY)[:fly])
            + tuple(self.of_kind(CommandKind.DEEP_SCAN)[:deep])
            + tuple(self.of_kind(CommandKind.SHIELDS)[:shields])
        )

    def game_cards(self, difficulty: Difficulty, players: int) -> tuple[CommandCard, ...]:
        """Every command card in the game: the first deck and the Wild."""
        return self.deck_for(difficulty, players) + (self.wild,)

    @classmethod
    def parse(cls, text: str, *, name: str = "custom", source: str = "<command cards>") -> CommandCardSet:
        """Parse ``id kind pod-value`` lines; ``#`` starts a comment."""
        cards: list[CommandCard] = []
        seen: dict[str, int] = {}
        for lineno, raw in enumerate(text.splitlines(), 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) != 3:
                raise CardSetError(
                    f"expected 'id kind pod-value', got {line!r}", source=source, line=lineno
                )
            card_id, kind_s, value_s = parts
            if card_id in seen:
                raise CardSetError(
                    f"duplicate card id {card_id!r} (first on line {seen[card_id]})",
                    source=source,
                    line=lineno,
                )
            try:
                kind = CommandKind(kind_s.lower())
            except ValueError:
                raise CardSetError(
                    f"unknown command kind {kind_s!r} (use fly, deep-scan, shields or wild)",
                    source=source,
                    line=lineno,
                ) from None
            if value_s not in ("1", "2", "3"):
                raise CardSetError(
                    f"pod value must be 1, 2 or 3, got {value_s!r}", source=source, line=lineno
                )
            seen[card_id] = lineno
            cards.append(CommandCard(card_id, kind, int(value_s)))
        need = {CommandKind.FLY: 10, CommandKind.DEEP_SCAN: 3, CommandKind.SHIELDS: 2, CommandKind.WILD: 1}
        have = Counter(c.kind for c in cards)
        for kind, n in need.items():
            if have[kind] != n:
                raise CardSetError(
                    f"a command card set has {n} {kind.value} card(s), this one has {have[kind]}",
                    source=source,
                )
        return cls(name, tuple(cards))

    @classmethod
    def load(cls, path: str | Path) -> CommandCardSet:
        p = Path(path)
        return cls.parse(_read_card_file(p), name=p.stem, source=str(p))

    @classmethod
    def default(cls) -> CommandCardSet:
        return _default_commands()


_DEFAULTS: dict[str, object] = {}


def _data_text(filename: str) -> str:
    return resources.files("sensor_ghosts.data").joinpath(filename).read_text(encoding="utf-8")


def _default_sectors() -> SectorCardSet:
    if "sectors" not in _DEFAULTS:
        _DEFAULTS["sectors"] = SectorCardSet.parse(
            _data_text("sectors.txt"), name="default", source="sectors.txt"
        )
    return _DEFAULTS["sectors"]  # type: ignore[return-value]


def _default_commands() -> CommandCardSet:
    if "commands" not in _DEFAULTS:
        _DEFAULTS["commands"] = CommandCardSet.parse(
            _data_text("commands.txt"), name="default", source="commands.txt"
        )
    return _DEFAULTS["commands"]  # type: ignore[return-value]
