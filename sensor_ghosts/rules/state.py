"""The true state of a game (RULES.md §§4-12). Immutable: the engine returns new
states. What a player may see of it is ``observation.observe`` (§14)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from enum import Enum

from .cards import CommandCard, CommandKind
from .geometry import DOCK, EARTH, Direction, Pos, on_grid
from .setup import Deal, Grid, Setup, Slot, cell_at
from .turns import DECK_PLAYER

MAX_SHIELDS = 2  # [D9]
TOTAL_VIRUS, TOTAL_ROCK = 3, 2  # the sample tokens (setup step 9)
MAX_TURN = 999
"""No game comes near it: every turn plays a card or skips an empty hand, and
the deck runs out on its second pass."""


class Status(str, Enum):
    ONGOING = "ongoing"
    WON = "won"
    LOST = "lost"


@dataclass(frozen=True)
class Outcome:
    status: Status = Status.ONGOING
    reason: str = ""

    def __str__(self) -> str:
        return self.status.value + (f": {self.reason}" if self.reason else "")


ONGOING = Outcome()


@dataclass(frozen=True)
class DiscardEntry:
    """A card on the discard pile. ``arrow`` is its orientation when it is a Fly
    card that lands on top of a play; the top entry's arrow is the heading [D11]."""

    card: str
    arrow: Direction | None = None


def heading_of(discard: tuple[DiscardEntry, ...]) -> Direction | None:
    """[D11] The heading: the arrow of the top discard if it is a Fly card, else
    none (also at the start and after a reshuffle, when the pile is empty)."""
    return discard[-1].arrow if discard else None


@dataclass(frozen=True)
class GameState:
    setup: Setup
    grid: Grid
    hands: tuple[tuple[str, ...], ...]
    deck: tuple[str, ...]  # top first
    ranking: tuple[str, ...]  # [D22] order of the reshuffled deck
    discard: tuple[DiscardEntry, ...] = ()  # bottom first
    ship: Pos = DOCK
    pod: Pos | None = None  # None without the escape-pod variant
    shields: int = 0
    held: int = 0  # virus samples the ship holds (uncontaminated)
    rocks_found: int = 0  # rock tokens the ship picked up (seen by all, §6)
    lost_unseen: int = 0  # tokens removed unseen by low memory mode (§11)
    second_pass: bool = False
    active: int = 0
    turn: int = 1
    seen: frozenset[int] = field(default_factory=frozenset)
    """Ids of the cards whose down side the players have seen (§14)."""
    outcome: Outcome = ONGOING

    # ----- derived facts -------------------------------------------------
    @property
    def options(self):
        return self.setup.options

    @property
    def heading(self) -> Direction | None:
        return heading_of(self.discard)

    @property
    def wild_aside(self) -> bool:
        """[D6] The Wild lies beside the deck until the reshuffle."""
        return not self.second_pass

    @property
    def is_over(self) -> bool:
        return self.outcome.status is not Status.ONGOING

    @property
    def ship_row(self) -> int:
        """[D2] The ship's row; row 1 at the dock."""
        return self.ship[0]

    @property
    def ship_at_earth(self) -> bool:
        return self.ship == EARTH

    @property
    def pod_arrived(self) -> bool:
        return self.pod == EARTH

    def cell(self, pos: Pos):
        return cell_at(self.grid, pos)

    def card(self, card_id: str) -> CommandCard:
        return self.setup.command_cards.by_id(card_id)

    def kind(self, card_id: str) -> CommandKind:
        return self.card(card_id).kind

    def slot(self, pos: Pos) -> Slot | None:
        if not on_grid(pos):
            return None
        c = cell_at(self.grid, pos)
        return c if isinstance(c, Slot) else None

    def evolve(self, **changes) -> GameState:
        """A copy with ``changes``. Bypasses ``__init__`` (as ``dataclasses.replace``
        would not) because the engine makes hundreds of thousands of these."""
        new = object.__new__(GameState)
        d = new.__dict__
        d.update(self.__dict__)
        d.update(changes)
        return new


def random_deal(setup: Setup, rng: random.Random) -> Deal:
    """A uniformly random deal: a shuffled first deck and a shuffled ranking.

    [D22] Ordering the discard pile by an independent random ranking gives a
    uniformly random reshuffle, so this deal is the real game's chance."""
    o = setup.options
    first = [c.id for c in setup.command_cards.deck_for(o.difficulty, o.players)]
    rng.shuffle(first)
    ranking = [c.id for c in setup.command_cards.game_cards(o.difficulty, o.players)]
    rng.shuffle(ranking)
    return Deal(tuple(first), tuple(ranking))


def initial_state(setup: Setup, deal: Deal | None = None, *, seed: int | None = None) -> GameState:
    """The state after setup steps 1-14. The deal is ``deal``, else the setup's own,
    else drawn from ``seed``: chance is explicit, never hidden."""
    deal = deal or setup.deal
    if deal is None:
        deal = random_deal(setup, random.Random(seed))
    o = setup.options
    # Hands are dealt from the top, one card at a time, first player first [D22].
    deck = list(deal.first_deck)
    if len(deck) < o.players * o.hand_limit:
        from .errors import InvalidSetupError
        from .validation import Violation

        raise InvalidSetupError([Violation(
            "D22", f"the first deck holds {len(deck)} card(s): too few to deal {o.players} hand(s) of "
            f"{o.hand_limit}", key="deck")])  # fmt: skip
    hands: list[list[str]] = [[] for _ in range(o.players)]
    for _ in range(o.hand_limit):
        for p in range(o.players):
            hands[p].append(deck.pop(0))
    return GameState(
        setup=setup,
        grid=setup.grid,
        hands=tuple(tuple(h) for h in hands),
        deck=tuple(deck),
        ranking=deal.ranking,
        pod=DOCK if o.escape_pod else None,
    )


__all__ = [
    "DECK_PLAYER",
    "MAX_SHIELDS",
    "MAX_TURN",
    "TOTAL_ROCK",
    "TOTAL_VIRUS",
    "DiscardEntry",
    "GameState",
    "Outcome",
    "Status",
    "heading_of",
    "initial_state",
    "random_deal",
]
