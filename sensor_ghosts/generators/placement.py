"""Setup steps 9-10: one sample per row 3..7, then three removals ([D8]).

The legal choices, as modelled:

* A *placement* puts one sample on a card of each row 3..7 (every cell of those
  rows holds a sector card when step 9 is done). It is legal only if step 10 can
  then be completed, i.e. at least one legal removal exists — a setter cannot
  choose a placement that makes the next step impossible.
* A *removal* is a set of three cards, each orthogonally adjacent to at least
  one sample, none an O-front card, a start card or a card with a sample ([D8]).

Caller constraints (:mod:`.constraints`) narrow both. Two backends enumerate and
count the legal choices: ``"python"`` (plain loops, fast) and ``"csp"`` (the same
problem stated for ``python-constraint``). They must agree (tested).

Sampling is uniform over the legal set and independent of the backend: a
placement is drawn by choosing a cell uniformly in each row among the cells the
per-cell constraints allow, rejecting placements the backend says are illegal
(rejection from a product set keeps it uniform); after :data:`MAX_REJECTIONS`
rejections the legal placements are enumerated and one is chosen uniformly.
A removal is chosen uniformly from the sorted list of legal removals.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cached_property
from itertools import combinations, product

from ..rules.cards import SectorType
from ..rules.errors import InvalidArgumentError
from ..rules.geometry import COLS, Pos
from .constraints import Constraint
from .deal import CardGrid, index_of

SAMPLE_ROWS: tuple[int, ...] = (3, 4, 5, 6, 7)
REMOVALS = 3
MAX_REJECTIONS = 64
BACKENDS = ("python", "csp")

Placement = tuple[Pos, ...]
"""Sample cells for rows 3..7, in row order."""
Removal = tuple[Pos, ...]
"""Three removed cells, sorted."""


def _neighbours(pos: Pos) -> tuple[Pos, ...]:
    r, c = pos
    return tuple(
        p
        for p in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1))
        if 1 <= p[0] <= 7 and 1 <= p[1] <= COLS
    )


_NEIGHBOURS: dict[Pos, tuple[Pos, ...]] = {
    (r, c): _neighbours((r, c)) for r in range(1, 8) for c in range(1, COLS + 1)
}


def _check_backend(backend: str) -> None:
    if backend not in BACKENDS:
        raise InvalidArgumentError(f"unknown layout backend {backend!r} (use {' or '.join(BACKENDS)})")


def removable_cells(grid: CardGrid, constraints: Sequence[Constraint] = ()) -> frozenset[Pos]:
    """Cells whose card step 10 may remove, ignoring adjacency and samples: not
    an O front, not a start card ([D8]), and allowed by per-cell constraints."""
    out = []
    for r in range(1, 8):
        for c in range(1, COLS + 1):
            card = grid[index_of((r, c))]
            if card.start or card.front is SectorType.OBSTRUCTED:
                continue
            if all(k.removal_cell_ok(grid, (r, c)) for k in constraints):
                out.append((r, c))
    return frozenset(out)


def sample_choices(grid: CardGrid, constraints: Sequence[Constraint] = ()) -> list[list[Pos]]:
    """For each row 3..7, the cells a sample may go on under per-cell constraints."""
    return [
        [
            (r, c)
            for c in range(1, COLS + 1)
            if all(k.sample_cell_ok(grid, (r, c)) for k in constraints)
        ]
        for r in SAMPLE_ROWS
    ]


def removal_candidates(samples: Sequence[Pos], removable: frozenset[Pos]) -> list[Pos]:
    """Cells adjacent to a sample, removable, without a sample — sorted."""
    sset = set(samples)
    cand = {n for s in samples for n in _NEIGHBOURS[s] if n in removable and n not in sset}
    return sorted(cand)


class LayoutProblem:
    """Steps 9-10 for one dealt (row-safe) grid under caller constraints."""

    def __init__(
        self, grid: CardGrid, constraints: Sequence[Constraint] = (), *, backend: str = "python"
    ):
        _check_backend(backend)
        self.grid = grid
        self.constraints = tuple(constraints)
        self.backend = backend
        self.removable = removable_cells(grid, self.constraints)
        self.row_cells = sample_choices(grid, self.constraints)
        self._whole = tuple(k for k in self.constraints if k.whole_choice)

    # ----- removals given a placement ----------------------------------------
    def _accept(self, samples: Sequence[Pos], removal: Sequence[Pos]) -> bool:
        return all(k.accept(self.grid, samples, removal) for k in self._whole)

    def removals(self, samples: Placement) -> list[Removal]:
        """Every legal removal for this placement, sorted."""
        if self.backend == "csp":
            return list(self._csp_by_placement.get(tuple(samples), ()))
        cand = removal_candidates(samples, self.removable)
        combos = combinations(cand, REMOVALS)
        if not self._whole:
            return list(combos)
        return [rem for rem in combos if self._accept(samples, rem)]

    def has_removal(self, samples: Placement) -> bool:
        if self.backend == "csp":
            return tuple(samples) in self._csp_by_placement
        cand = removal_candidates(samples, self.removable)
        if len(cand) < REMOVALS:
            return False
        if not self._whole:
            return True
        return any(self._accept(samples, rem) for rem in combinations(cand, REMOVALS))

    # ----- placements -----------------------------------------------------------
    def placements(self) -> list[Placement]:
        """Every legal placement, sorted."""
        if self.backend == "csp":
            return sorted(self._csp_by_placement)
        return [p for p in product(*self.row_cells) if self.has_removal(p)]

    def layouts(self) -> list[tuple[Placement, Removal]]:
        """Every legal (placement, removal) pair, sorted."""
        if self.backend == "csp":
            return list(self._csp_layouts())
        return [(p, rem) for p in product(*self.row_cells) for rem in self.removals(p)]

    def count(self) -> tuple[int, int]:
        """(legal placements, legal placement-and-removal pairs)."""
        if self.backend == "csp":
            lay = self._csp_layouts()
            return len({p for p, _ in lay}), len(lay)
        n_p = n_l = 0
        for p in product(*self.row_cells):
            k = len(self.removals(p))
            n_p += k > 0
            n_l += k
        return n_p, n_l

    # ----- uniform sampling --------------------------------------------------
    def sample_placement(self, rng: random.Random) -> Placement:
        """A legal placement, uniformly at random (see module doc)."""
        from .errors import NoLegalChoiceError

        rows = self.row_cells
        if any(not cells for cells in rows):
            raise NoLegalChoiceError("sample placement", self._names())
        for _ in range(MAX_REJECTIONS):
            p = tuple(cells[rng.randrange(len(cells))] for cells in rows)
            if self.has_removal(p):
                return p
        legal = self.placements()
        if not legal:
            raise NoLegalChoiceError("sample placement", self._names())
        return legal[rng.randrange(len(legal))]

    def sample_removal(self, samples: Placement, rng: random.Random) -> Removal:
        from .errors import NoLegalChoiceError

        legal = self.removals(samples)
        if not legal:
            raise NoLegalChoiceError("removal", self._names())
        return legal[rng.randrange(len(legal))]

    def _names(self) -> tuple[str, ...]:
        return tuple(k.name for k in self.constraints)

    # ----- python-constraint backend ------------------------------------------
    @cached_property
    def _csp_by_placement(self) -> dict[Placement, list[Removal]]:
        out: dict[Placement, list[Removal]] = {}
        for p, rem in self._csp_layouts():
            out.setdefault(p, []).append(rem)
        return out

    @cached_property
    def _csp_all(self) -> list[tuple[Placement, Removal]]:
        return solve_layouts_csp(self.grid, self.constraints)

    def _csp_layouts(self) -> list[tuple[Placement, Removal]]:
        return self._csp_all


def solve_layouts_csp(
    grid: CardGrid, constraints: Sequence[Constraint] = ()
) -> list[tuple[Placement, Removal]]:
    """Steps 9-10 as a ``python-constraint`` problem; every legal (placement,
    removal) pair, sorted.

    Variables: ``s3``..``s7`` (the sample's column in each row) and ``x0 < x1 <
    x2`` (indices of removed cells). Constraints: per-cell filters as domains;
    each removed cell adjacent to a sample and not a sample; caller predicates
    over all eight variables."""
    import constraint as csp

    removable = sorted(removable_cells(grid, constraints))
    if len(removable) < REMOVALS:
        return []
    rows = sample_choices(grid, constraints)
    if any(not cells for cells in rows):
        return []
    prob = csp.Problem()
    svars = [f"s{r}" for r in SAMPLE_ROWS]
    xvars = [f"x{i}" for i in range(REMOVALS)]
    for v, cells in zip(svars, rows, strict=True):
        prob.addVariable(v, [c for _, c in cells])
    prob.addVariables(xvars, list(range(len(removable))))
    for a, b in zip(xvars, xvars[1:], strict=False):
        prob.addConstraint(lambda i, j: i < j, (a, b))

    def adjacent_free(x: int, *cols: int) -> bool:
        cell = removable[x]
        samples = list(zip(SAMPLE_ROWS, cols, strict=True))
        if cell in samples:
            return False
        return any(s in _NEIGHBOURS[cell] for s in samples)

    for x in xvars:
        prob.addConstraint(adjacent_free, [x, *svars])
    whole = [k for k in constraints if k.whole_choice]
    if whole:

        def accept(*vals: int) -> bool:
            samples = tuple(zip(SAMPLE_ROWS, vals[:5], strict=True))
            rem = tuple(removable[i] for i in vals[5:])
            return all(k.accept(grid, samples, rem) for k in whole)

        prob.addConstraint(accept, [*svars, *xvars])
    out = []
    for sol in prob.getSolutionIter():
        placement = tuple((r, sol[f"s{r}"]) for r in SAMPLE_ROWS)
        rem = tuple(removable[sol[x]] for x in xvars)
        out.append((placement, rem))
    out.sort()
    return out
