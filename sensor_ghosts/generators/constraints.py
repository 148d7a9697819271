"""Extra constraints a caller may put on sample placement (step 9) and card
removal (step 10), on top of the rules.

A constraint may act at three levels; the generator uses the cheapest it can:

* ``sample_cell_ok(grid, pos)`` — may a sample lie on this cell? (per cell)
* ``removal_cell_ok(grid, pos)`` — may this card be removed? (per cell)
* ``accept(grid, samples, removals)`` — is this whole choice acceptable?

``samples`` lists the sample cells of rows 3..7 in row order; ``removals`` the
three removed cells, sorted. ``grid`` is the card grid after row safety (see
:mod:`.deal`); every card in it is front up.

Ready-made constraints, by name (the names appear in game IDs):

* ``no-o-sample`` — no sample on an O-front card (:data:`NO_SAMPLE_ON_OBSTRUCTED`);
* ``remove-only-a`` — remove only A-front cards (:data:`REMOVE_ONLY_ASTEROIDS`);
* ``reachable`` — every sample reachable from the dock without crossing a gap
  (:data:`SAMPLES_REACHABLE`).

Any predicate becomes a constraint with :func:`predicate`, :func:`sample_cells`
or :func:`removal_cells`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ..rules.cards import SectorType
from ..rules.errors import InvalidArgumentError
from ..rules.geometry import COLS, ROWS, Pos
from .deal import CardGrid, index_of


class Constraint:
    """Base class: accepts everything. Subclass and override any of the three
    hooks; give it a ``name``."""

    name: str = "constraint"
    named: bool = False
    """True for the ready-made constraints that a game ID can name."""

    def sample_cell_ok(self, grid: CardGrid, pos: Pos) -> bool:
        return True

    def removal_cell_ok(self, grid: CardGrid, pos: Pos) -> bool:
        return True

    def accept(self, grid: CardGrid, samples: Sequence[Pos], removals: Sequence[Pos]) -> bool:
        return True

    @property
    def whole_choice(self) -> bool:
        """Does this constraint look at whole choices (not only single cells)?"""
        return type(self).accept is not Constraint.accept

    def __repr__(self) -> str:
        return f"<constraint {self.name}>"


class _NoSampleOnObstructed(Constraint):
    name = "no-o-sample"
    named = True

    def sample_cell_ok(self, grid: CardGrid, pos: Pos) -> bool:
        return grid[index_of(pos)].front is not SectorType.OBSTRUCTED


class _RemoveOnlyAsteroids(Constraint):
    name = "remove-only-a"
    named = True

    def removal_cell_ok(self, grid: CardGrid, pos: Pos) -> bool:
        return grid[index_of(pos)].front is SectorType.ASTEROID


def reachable_cells(gaps: Iterable[Pos]) -> set[Pos]:
    """Cells the ship could reach from the dock moving orthogonally over cards,
    never onto a gap (card types ignored). The dock's only neighbour is (1,1)."""
    blocked = set(gaps)
    if (1, 1) in blocked:
        return set()
    seen = {(1, 1)}
    stack = [(1, 1)]
    while stack:
        r, c = stack.pop()
        for nxt in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if (
                1 <= nxt[0] <= ROWS
                and 1 <= nxt[1] <= COLS
                and nxt not in seen
                and nxt not in blocked
            ):
                seen.add(nxt)
                stack.append(nxt)
    return seen


_ALL = (1 << (ROWS * COLS)) - 1
_NOT_COL1 = sum(1 << (r * COLS) for r in range(ROWS)) ^ _ALL
_NOT_COL5 = sum(1 << (r * COLS + COLS - 1) for r in range(ROWS)) ^ _ALL


def _bit(pos: Pos) -> int:
    return 1 << ((pos[0] - 1) * COLS + pos[1] - 1)


def reachable_mask(gaps: Iterable[Pos]) -> int:
    """:func:`reachable_cells` as a bit mask (bit ``(row-1)*5 + col-1``): a flood
    fill with shifts, much faster than a search over cells."""
    allowed = _ALL
    for g in gaps:
        allowed &= ~_bit(g)
    reach = _bit((1, 1)) & allowed
    while True:
        grown = (
            reach
            | (reach << COLS)
            | (reach >> COLS)
            | ((reach << 1) & _NOT_COL1)
            | ((reach >> 1) & _NOT_COL5)
        ) & allowed
        if grown == reach:
            return reach
        reach = grown


class _SamplesReachable(Constraint):
    name = "reachable"
    named = True

    def accept(self, grid: CardGrid, samples: Sequence[Pos], removals: Sequence[Pos]) -> bool:
        reach = reachable_mask(removals)
        return all(reach & _bit(s) for s in samples)


NO_SAMPLE_ON_OBSTRUCTED: Constraint = _NoSampleOnObstructed()
REMOVE_ONLY_ASTEROIDS: Constraint = _RemoveOnlyAsteroids()
SAMPLES_REACHABLE: Constraint = _SamplesReachable()

NAMED_CONSTRAINTS: dict[str, Constraint] = {
    c.name: c for c in (NO_SAMPLE_ON_OBSTRUCTED, REMOVE_ONLY_ASTEROIDS, SAMPLES_REACHABLE)
}


@dataclass(frozen=True, eq=False, repr=False)
class _Predicate(Constraint):
    fn: Callable[[CardGrid, Sequence[Pos], Sequence[Pos]], bool]
    name: str = "predicate"

    def accept(self, grid: CardGrid, samples: Sequence[Pos], removals: Sequence[Pos]) -> bool:
        return bool(self.fn(grid, samples, removals))


@dataclass(frozen=True, eq=False, repr=False)
class _SampleCells(Constraint):
    fn: Callable[[CardGrid, Pos], bool]
    name: str = "sample-cells"

    def sample_cell_ok(self, grid: CardGrid, pos: Pos) -> bool:
        return bool(self.fn(grid, pos))


@dataclass(frozen=True, eq=False, repr=False)
class _RemovalCells(Constraint):
    fn: Callable[[CardGrid, Pos], bool]
    name: str = "removal-cells"

    def removal_cell_ok(self, grid: CardGrid, pos: Pos) -> bool:
        return bool(self.fn(grid, pos))


def predicate(
    fn: Callable[[CardGrid, Sequence[Pos], Sequence[Pos]], bool], name: str = "predicate"
) -> Constraint:
    """A constraint on whole choices: ``fn(grid, samples, removals) -> bool``."""
    return _Predicate(fn, name)


def sample_cells(fn: Callable[[CardGrid, Pos], bool], name: str = "sample-cells") -> Constraint:
    """A per-cell constraint on sample placement: ``fn(grid, pos) -> bool``."""
    return _SampleCells(fn, name)


def removal_cells(fn: Callable[[CardGrid, Pos], bool], name: str = "removal-cells") -> Constraint:
    """A per-cell constraint on removals: ``fn(grid, pos) -> bool``."""
    return _RemovalCells(fn, name)


def constraint_by_name(name: str) -> Constraint:
    try:
        return NAMED_CONSTRAINTS[name]
    except KeyError:
        raise InvalidArgumentError(
            f"unknown constraint {name!r} (known: {', '.join(NAMED_CONSTRAINTS)})"
        ) from None
