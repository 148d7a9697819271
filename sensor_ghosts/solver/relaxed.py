"""A relaxed game whose shortest solution bounds the real one from below.

The search (``search.Heuristic``) needs a lower bound on the turns still needed
that is close to the truth: every turn of slack multiplies the states A* must
look at. This bound solves a smaller game exactly, by A* over *relaxed states*
``(ship cell, rotation of every row, rows whose faces are no longer known,
held virus samples, shields, Deep Scan credits)``. Cards, hands and the deck
are left out. One relaxed edge is one turn (a Fly action, or any other action:
a "wait"); spending a held virus on a shield (bolster) is a free edge.

Why every real plan maps onto a relaxed path of no more turns (so the relaxed
optimum is admissible), rule by rule:

* **Rotations are tracked exactly.** A row turns only when a re-scan shifts it
  (it is the row ahead of the ship at the end of a turn, §8) or a Deep Scan
  shifts it (§5). The relaxed path applies every re-scan shift; a wait may
  shift the row ahead once more (a Deep Scan on it).
* **Deep Scan credits.** Any other Deep Scan (a shift of another row, or a
  flip) is a wait that earns a *credit*. When the ship next meets a row it may
  spend credits: each shifts that row one place, or flips the card met (either
  face). The real Deep Scan happened earlier; applying it at the next meeting
  is the same for everything the ship meets, and deciding late only adds
  options. A Deep Scan cannot shift the ship's row [D14], so a credit earned
  while the ship stays in a row only flips a card of that row until the ship
  has left it. Pending Deep Scan flips of the model state are credits that
  only flip.
* **Faces.** Entering a card turns it over and meets its other side (§5). On a
  row the relaxed path has not entered and no re-scan has flipped since the
  start (the re-scan flips cards of the row two ahead at the end of each turn),
  the face met is exactly what the model state's flip patterns allow (a lazy
  flip may still go either way: then both). Elsewhere faces are optimistic: a
  card may boost if either side is B, and may be stopped on unless both sides
  are B. A card whose faces met are A or O (one of them A; or, in low memory
  mode §11, any mix) needs two shields, which drop to 0; a card that is only O
  kills outside low memory mode. Gaps and off-grid cells kill ([D20], [D25]).
* **Samples.** Entering a card that still carries a virus token adds a held
  virus ([D13]); Earth wants ``need`` of them ([D12]). A relaxed path may count a
  token twice by coming back to it, which is optimistic.
* **Shields** grow by a Shields action (a wait with +1) or bolster (free, one
  held virus each), never above 2 ([D9]). More shields or credits never hurt,
  so a relaxed state is dropped when one reached no later has the same rest and
  at least as many of both.

The relaxed search is itself guided by two admissible bounds: the model's grid
distance through a virus (``_grid_bound``), and a distance over cells where
the rows two or more ahead keep their rotation (``relaxed_kernel.static_table``).
Every search also starts from the lower bounds earlier searches learned: a
search from S that ends with "S needs v turns" proves that each state s it
reached at cost g(s) needs at least v - g(s) more (a shorter way on from s
would be a shorter way from S); these are kept per face context (the faces each
row may show, and the viruses).

The search itself runs compiled (``relaxed_kernel``, Numba): this module holds
the rules and tables, the kernel the same A* step for step.

It is used only where one action is one turn (no §12 second action); the
escape pod's part of the bound stays in ``search.Heuristic``. The search can be
stopped at a ``cap``: "at least cap turns" is still a valid bound.
"""

from __future__ import annotations

import numpy as np

from ..rules.cards import SectorType
from ..rules.geometry import EARTH
from . import relaxed_kernel as kernel
from .model import HELD, MASKS, PEND, ROT, SAMPLES, SHIP, SHL, members

BOOST, AST, OBST = SectorType.BOOST, SectorType.ASTEROID, SectorType.OBSTRUCTED
INF = 10**9

# Card flags.
CAN_BOOST, CAN_STOP, NEEDS_SHIELDS, DEADLY = 1, 2, 4, 8
_CELLS = [(1, 0)] + [(r, c) for r in range(1, 8) for c in range(1, 6)]
"""Cells in the kernel's index order (the dock first; Earth is index 36)."""


class RelaxedBound:
    """Static per-instance tables and the search of the relaxed game."""

    def __init__(self, model) -> None:
        self.m = model
        self.need = model.need
        self._low = model.options.low_memory
        # Optimistic flags: either side of the card may be met.
        self.flags = [
            [DEADLY if model.gap[r][j] else self._flags_of(set(model.sides[r][j])) for j in range(5)]
            for r in range(7)
        ]
        self._cache: dict = {}
        # Wall-clock deadline (``time.perf_counter``) of the outer search's
        # budget: a search still running then stops with the smallest f still
        # open, a valid but weaker bound, not cached as exact.
        self.deadline: float | None = None
        self._timed_out = False
        self._exact_cache: dict = {}
        # Shared by the searches (kernel-side typed dicts): lower bounds learned
        # per (state, face context), and the face contexts' ids.
        self._learned = kernel.new_table(1 << 14)
        self._learned_count = np.zeros(1, dtype=np.int64)
        self._ctx_tab = kernel.new_table(1 << 10)
        self._ctx_count = np.zeros(1, dtype=np.int64)
        # Each row's face sets met, numbered; the optimistic faces are 0.
        self._row_ids: list[dict] = [{tuple(row): 0} for row in self.flags]
        self._rows_cache: dict = {}
        self._grid_cache: dict = {}
        self._flags_np = np.array(self.flags, dtype=np.int64)
        self._f_ids = np.zeros(7, dtype=np.int64)
        self._to_earth = np.array(
            [model.to_earth[p] for p in _CELLS] + [0], dtype=np.int64
        )
        self._any_stop_np = np.array(
            [any(f & CAN_STOP and not f & DEADLY for f in row) for row in self.flags]
        )
        self._any_boost_np = np.array(
            [any(f & CAN_BOOST and not f & DEADLY for f in row) for row in self.flags]
        )

    def _flags_of(self, faces: set) -> int:
        """Card flags for the set of faces the ship may meet on a card."""
        f = 0
        if BOOST in faces:
            f |= CAN_BOOST
        if faces != {BOOST}:
            f |= CAN_STOP
        if faces <= {AST, OBST}:
            if not self._low and faces == {OBST}:
                return DEADLY
            f |= NEEDS_SHIELDS
        return f

    def exact_flags(self, r: int, patterns: int) -> tuple:
        """Flags of the cards of row ``r`` met before the row is flipped again:
        entering turns a card over, so the face met is the other side of each
        parity its flip patterns (the model's lazy flips) still allow."""
        key = (r, patterns)
        got = self._exact_cache.get(key)
        if got is None:
            m = self.m
            out = []
            for j in range(5):
                if m.gap[r][j]:
                    out.append(DEADLY)
                    continue
                if not m.flippable[r][j]:
                    out.append(self.flags[r][j])
                    continue
                parities = {(p >> j) & 1 for p in members(patterns)}
                out.append(self._flags_of({m.sides[r][j][q ^ 1] for q in parities}))
            got = self._exact_cache[key] = tuple(out)
        return got

    def turns(self, st: tuple, cap: int = INF) -> int:
        """Fewest turns for the ship of model state ``st`` to reach Earth in the
        relaxed game, or ``cap`` when that is at least ``cap`` (the search stops
        there)."""
        ship = st[SHIP]
        if ship == EARTH:
            return 0
        rot, masks = st[ROT], st[MASKS]
        held, shields, vir = st[HELD], st[SHL], st[SAMPLES] & self.m.virus_bits
        credits = len(st[PEND])
        key = (ship, rot, masks, held, shields, vir, credits)
        got = self._cache.get(key)
        # A cached value is exact, or a proven "at least" (cached with its flag).
        if got is not None and (got[1] or got[0] >= cap):
            return min(got[0], cap)
        self._timed_out = False
        value = self._search(ship, rot, masks, held, shields, vir, credits, cap)
        if len(self._cache) > 500_000:
            self._cache.clear()
        self._cache[key] = (value, not self._timed_out and (value < cap or value >= INF))
        return value

    def _search(self, ship, rot0, masks, held, shields, vir, credits: int = 0, cap: int = INF) -> int:
        """The relaxed search itself, compiled (``relaxed_kernel.search``): A*
        over relaxed states, guided by the largest of three admissible bounds
        (what earlier searches learned, the grid distance through a virus, the
        static-rows distance with the credits at hand), with dominance on
        shields and credits (see the module docstring)."""
        exact, e_ids = self._exact_rows(masks)
        deadline = -1.0 if self.deadline is None else self.deadline
        self._make_room()
        value, timed_out = kernel.search(
            kernel.cell_index(ship),
            np.asarray(rot0, dtype=np.int64),
            min(held, 3),
            shields,
            credits,
            min(cap, INF),
            self.need,
            self._flags_np,
            exact,
            vir,
            self._to_earth,
            self._grid_bound(vir),
            self._any_stop_np,
            self._any_boost_np,
            kernel.LINES_Q,
            kernel.LINES_R,
            kernel.LINES_C,
            kernel.LINES_N,
            e_ids,
            self._f_ids,
            self._ctx_tab,
            self._ctx_count,
            self._learned,
            self._learned_count,
            deadline,
        )
        self._timed_out = bool(timed_out)
        return int(value)

    def _make_room(self) -> None:
        """Grow the shared tables before a search: a search adds at most 128
        face contexts (one per set of optimistic rows); the learned bounds are
        dropped past a million, as a cache."""
        if (self._ctx_count[0] + 128) * 2 > len(self._ctx_tab):
            self._ctx_tab = self._grown(self._ctx_tab, self._ctx_count)
        if self._learned_count[0] > 1_000_000:
            self._learned = kernel.new_table(1 << 14)
            self._learned_count[0] = 0
        elif self._learned_count[0] * 2 > len(self._learned):
            self._learned = self._grown(self._learned, self._learned_count)

    @staticmethod
    def _grown(tab: np.ndarray, count: np.ndarray) -> np.ndarray:
        new = kernel.new_table(2 * len(tab))
        kernel.table_rehash(tab, new, count)
        return new

    def _exact_rows(self, masks: tuple) -> tuple[np.ndarray, np.ndarray]:
        """The faces met on untouched rows, as an array, and each row's face
        id (equal faces, equal id: the learned bounds are shared by context)."""
        got = self._rows_cache.get(masks)
        if got is None:
            rows = [self.exact_flags(r, masks[r]) if masks[r] else tuple(self.flags[r]) for r in range(7)]
            ids = []
            for r, faces in enumerate(rows):
                known = self._row_ids[r]
                i = known.get(faces)
                if i is None:
                    i = known[faces] = len(known)
                    if i > 255:  # packed in 8 bits a row (3^5 face sets + 1 at most)
                        raise AssertionError("too many face sets in one row")
                ids.append(i)
            got = (np.array(rows, dtype=np.int64), np.array(ids, dtype=np.int64))
            if len(self._rows_cache) > 100_000:
                self._rows_cache.clear()
            self._rows_cache[masks] = got
        return got

    def _grid_bound(self, vir: int) -> np.ndarray:
        """Per cell, the model's grid distance to Earth through a row holding a
        virus (for states holding too few): every relaxed Fly is one of the
        grid's moves, so it never exceeds the relaxed distance."""
        got = self._grid_cache.get(vir)
        if got is None:
            m = self.m
            to_earth = m.to_earth
            rows = {b // 5 for b in range(35) if (vir >> b) & 1}
            got = np.full(kernel.N_CELLS, INF, dtype=np.int64)
            for i, pos in enumerate(_CELLS):
                d = m.dist[pos]
                best = INF
                for r in rows:
                    for cell in m.row_cells[r]:
                        x = d.get(cell)
                        if x is not None:
                            best = min(best, x + to_earth[cell] - 1)
                got[i] = best
            got[kernel.EARTH_IDX] = 0
            self._grid_cache[vir] = got
        return got
