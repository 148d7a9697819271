"""Setup steps 1-2 (RULES.md §3): the start cards and the shuffled sector cards,
every card front up.

A *card grid* here is a flat list of 35 cards, index ``(row-1)*5 + (col-1)``;
``pos_of``/``index_of`` convert. It is the generator's working form before it
becomes a :class:`~sensor_ghosts.rules.setup.Setup` grid.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..rules.cards import START_CARDS, SectorCard, SectorCardSet
from ..rules.errors import InvalidArgumentError
from ..rules.geometry import COLS, ROWS, Pos

CardGrid = list[SectorCard]

START_POSITIONS: tuple[Pos, Pos] = ((1, 1), (1, 2))
"""Setup step 1: the two start cards."""

ALL_POSITIONS: tuple[Pos, ...] = tuple(
    (r, c) for r in range(1, ROWS + 1) for c in range(1, COLS + 1)
)
SECTOR_POSITIONS: tuple[Pos, ...] = tuple(p for p in ALL_POSITIONS if p not in START_POSITIONS)
"""The 33 cells the sector cards fill, row 1 first, left to right."""


def index_of(pos: Pos) -> int:
    return (pos[0] - 1) * COLS + (pos[1] - 1)


def pos_of(index: int) -> Pos:
    return (index // COLS + 1, index % COLS + 1)


def deal_cards(rng: random.Random, sector_cards: SectorCardSet) -> CardGrid:
    """Steps 1-2: start cards at (1,1), (1,2); the sector cards, shuffled with
    ``rng``, fill the other 33 cells in row-major order."""
    cards = list(sector_cards.cards)
    rng.shuffle(cards)
    return cards_in_order(cards)


def cards_in_order(cards: Sequence[SectorCard]) -> CardGrid:
    """A card grid from 33 sector cards listed in :data:`SECTOR_POSITIONS` order."""
    if len(cards) != len(SECTOR_POSITIONS):
        raise InvalidArgumentError(f"need {len(SECTOR_POSITIONS)} sector cards, got {len(cards)}")
    grid: CardGrid = [START_CARDS[0], START_CARDS[1]]
    grid.extend(cards)
    return grid
