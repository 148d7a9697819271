"""A setup: the dealt grid, samples, card sets, rule options, and optionally the
deal of the command deck (RULES.md §3, [D22])."""

from __future__ import annotations

from dataclasses import dataclass, field

from .cards import CommandCardSet, SectorCard, SectorCardSet, Side
from .errors import InvalidArgumentError
from .geometry import COLS, ROWS, Pos, on_grid
from .options import RuleOptions


@dataclass(frozen=True)
class Sample:
    """A sample token: 3 virus, 2 rock in the game."""

    id: int
    virus: bool

    @property
    def letter(self) -> str:
        return "v" if self.virus else "r"


@dataclass(frozen=True)
class Slot:
    """A cell holding a card; ``up`` is the side face up. Tokens on the card
    travel with it ([D17])."""

    card: SectorCard
    up: Side = Side.FRONT
    sample: Sample | None = None

    @property
    def face(self):
        return self.card.side(self.up)

    @property
    def down(self):
        return self.card.side(self.up.other)

    def flipped(self) -> Slot:
        # [D4] start cards never flip.
        if self.card.start:
            return self
        return Slot(self.card, self.up.other, self.sample)

    @property
    def flippable(self) -> bool:
        return not self.card.start


@dataclass(frozen=True)
class Gap:
    """A removed card's cell. [D26] The setup remembers which card it held: its
    front was seen at setup, its back never was. ``card`` is None only where that
    is unknown (an observation)."""

    card: SectorCard | None = None


Cell = Slot | Gap
Grid = tuple[tuple[Cell, ...], ...]
"""Seven rows (index 0 is row 1) of five cells (index 0 is column 1)."""


def cell_at(grid: Grid, pos: Pos) -> Cell:
    return grid[pos[0] - 1][pos[1] - 1]


def replace_cell(grid: Grid, pos: Pos, cell: Cell) -> Grid:
    r, c = pos[0] - 1, pos[1] - 1
    row = grid[r][:c] + (cell,) + grid[r][c + 1 :]
    return grid[:r] + (row,) + grid[r + 1 :]


@dataclass(frozen=True)
class Deal:
    """[D22] The order of the first deck (top first) and a ranking of all command
    cards of the game: at the reshuffle the discard pile is ordered by this
    ranking, the first-ranked card drawn first."""

    first_deck: tuple[str, ...]
    ranking: tuple[str, ...]


@dataclass(frozen=True)
class Setup:
    grid: Grid
    options: RuleOptions = field(default_factory=RuleOptions)
    sector_cards: SectorCardSet = field(default_factory=SectorCardSet.default)
    command_cards: CommandCardSet = field(default_factory=CommandCardSet.default)
    deal: Deal | None = None
    id: str | None = None
    """A game ID that regenerates this setup, when a generator made it."""

    def __post_init__(self) -> None:
        if len(self.grid) != ROWS or any(len(row) != COLS for row in self.grid):
            raise InvalidArgumentError("a setup grid has 7 rows of 5 cells")

    def cell(self, pos: Pos) -> Cell:
        assert on_grid(pos), pos
        return cell_at(self.grid, pos)

    def samples(self) -> list[tuple[Pos, Sample]]:
        out = []
        for r in range(1, ROWS + 1):
            for c in range(1, COLS + 1):
                cell = self.grid[r - 1][c - 1]
                if isinstance(cell, Slot) and cell.sample is not None:
                    out.append(((r, c), cell.sample))
        return out

    def gaps(self) -> list[Pos]:
        return [
            (r, c)
            for r in range(1, ROWS + 1)
            for c in range(1, COLS + 1)
            if isinstance(self.grid[r - 1][c - 1], Gap)
        ]
