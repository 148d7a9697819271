"""Grid geometry: cells, the dock, Earth, directions (RULES.md §1)."""

from __future__ import annotations

from enum import Enum

from .errors import InvalidArgumentError

ROWS = 7
COLS = 5

Pos = tuple[int, int]
"""A cell as ``(row, col)``; rows 1..7 from the bottom, columns 1..5 from the left."""

# [D1] The ship and the pod start left of the bottom-left card; Earth is right of
# the top-right card. Every other cell outside the 7x5 grid is off-grid.
DOCK: Pos = (1, 0)
EARTH: Pos = (7, 6)


class Direction(Enum):
    """An orthogonal direction; ``value`` is the (row, col) step."""

    UP = (1, 0)
    DOWN = (-1, 0)
    LEFT = (0, -1)
    RIGHT = (0, 1)

    # The members are singletons compared by identity, so the identity hash
    # (in C) is a valid one. Enum's own hashes the name in Python, and the
    # solver hashes headings and pod moves millions of times: it was ~10 % of
    # an escape-pod solve in open mode. Neither hash is the same from run to
    # run (a str hash follows PYTHONHASHSEED), so no output may depend on the
    # order of a set of directions; the tests solve under several hash seeds.
    __hash__ = object.__hash__

    @property
    def letter(self) -> str:
        return self.name[0]

    @property
    def arrow(self) -> str:
        return _ARROWS[self]

    def step(self, pos: Pos) -> Pos:
        return (pos[0] + self.value[0], pos[1] + self.value[1])

    @classmethod
    def parse(cls, text: str) -> Direction:
        """Parse ``U``/``D``/``L``/``R``, an arrow, or a full name (any case)."""
        key = text.strip().upper()
        for d in cls:
            if key in (d.letter, d.name, _ARROWS[d].upper()):
                return d
        raise InvalidArgumentError(f"unknown direction {text!r} (use U, D, L or R)")


_ARROWS = {Direction.UP: "^", Direction.DOWN: "v", Direction.LEFT: "<", Direction.RIGHT: ">"}

DIRECTIONS: tuple[Direction, ...] = (Direction.UP, Direction.RIGHT, Direction.DOWN, Direction.LEFT)


def on_grid(pos: Pos) -> bool:
    """True for the 35 card cells (not the dock, not Earth)."""
    return 1 <= pos[0] <= ROWS and 1 <= pos[1] <= COLS


def cells() -> list[Pos]:
    """All card cells, row 1 first, left to right."""
    return [(r, c) for r in range(1, ROWS + 1) for c in range(1, COLS + 1)]


def orthogonal_neighbours(pos: Pos) -> list[Pos]:
    """On-grid cells orthogonally adjacent to ``pos``."""
    return [p for d in DIRECTIONS if on_grid(p := d.step(pos))]


def peek_cells(pos: Pos, d: Direction) -> list[Pos]:
    """The three cells a Peek in ``d`` looks at: the neighbour ahead and its two
    diagonal neighbours (those beside it, across the direction) — on-grid only."""
    ahead = d.step(pos)
    if d in (Direction.UP, Direction.DOWN):
        side = [(ahead[0], ahead[1] - 1), ahead, (ahead[0], ahead[1] + 1)]
    else:
        side = [(ahead[0] - 1, ahead[1]), ahead, (ahead[0] + 1, ahead[1])]
    return [p for p in side if on_grid(p)]


def format_pos(pos: Pos) -> str:
    if pos == DOCK:
        return "dock"
    if pos == EARTH:
        return "earth"
    return f"{pos[0]},{pos[1]}"
