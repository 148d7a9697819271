"""The fewest Fly actions between the grid's cells, gaps and hazards ignored:
the relaxed distances behind the solver's admissible bounds
(``GridRules._init_heuristic``)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..rules.geometry import DIRECTIONS, DOCK, EARTH


@lru_cache(maxsize=256)
def fly_distances(boosty: tuple[bool, ...]) -> tuple[dict, list[dict]]:
    """Fewest Fly actions when row r may boost anywhere iff ``boosty[r]``
    (``Model._init_heuristic``): {cell: d to Earth} and, per row r (0-based),
    {src: fewest Fly actions to Earth through a cell of row r} (the grid
    bounds of a ship that still needs a virus: ``search.Heuristic``,
    ``relaxed.RelaxedBound._grid_bound``). Pure in its argument and
    read-only for callers, so cached: only 128 argument values exist."""
    cells = [DOCK] + [(r, c) for r in range(1, 8) for c in range(1, 6)] + [EARTH]
    index = {p: i for i, p in enumerate(cells)}
    n = len(cells)
    big = 1 << 20
    d = np.full((n, n), big, dtype=np.int64)
    np.fill_diagonal(d, 0)
    steps = [dd.value for dd in DIRECTIONS]
    for p in cells[:-1]:  # one Fly action: a step, then on while the row boosts
        for dr, dc in steps:
            q = p
            while True:
                q = (q[0] + dr, q[1] + dc)
                if q == EARTH:
                    d[index[p], index[q]] = 1
                    break
                if not (1 <= q[0] <= 7 and 1 <= q[1] <= 5):
                    break
                d[index[p], index[q]] = 1
                if not boosty[q[0] - 1]:
                    break
    for k in range(n):  # shortest paths (Floyd-Warshall, 37 cells)
        np.minimum(d, d[:, k : k + 1] + d[k : k + 1, :], out=d)
    src = cells[:-1]  # the dock and the grid's cells, in ``index`` order
    te = np.where(d[:-1, -1] < big, d[:-1, -1], 99)  # to Earth (99: no way)
    to_earth = dict(zip(src, te.tolist(), strict=True))
    to_earth[EARTH] = 0
    # A way through a cell of row r: to the cell, then on to Earth; the cell
    # is one of both Fly actions' ends, so one less. Per source and row, the
    # least over the row's five cells (index 1 + 5(r-1) + c-1) it reaches.
    to_cell = d[:-1, 1:-1]
    ways = np.where(to_cell < big, to_cell + te[1:] - 1, big).reshape(len(src), 7, 5).min(axis=2)
    via_row = [{p: x for p, x in zip(src, ways[:, r].tolist(), strict=True) if x < big} for r in range(7)]
    return to_earth, via_row
