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
distance through a virus (``_inner_bound``), and a distance over cells where
the rows two or more ahead keep their rotation (``_static_table``).

It is used only where one action is one turn (no §12 second action); the
escape pod's part of the bound stays in ``search.Heuristic``. The search can be
stopped at a ``cap``: "at least cap turns" is still a valid bound.
"""

from __future__ import annotations

from heapq import heappop, heappush
from time import perf_counter

from ..rules.cards import SectorType
from ..rules.geometry import EARTH
from .model import HELD, MASKS, PEND, ROT, SAMPLES, SHIP, SHL, members

BOOST, AST, OBST = SectorType.BOOST, SectorType.ASTEROID, SectorType.OBSTRUCTED
INF = 10**9
_DIRS = ((1, 0), (-1, 0), (0, -1), (0, 1))

# Card flags.
CAN_BOOST, CAN_STOP, NEEDS_SHIELDS, DEADLY = 1, 2, 4, 8
# Credits the static bound (``_static_table``) counts one by one; its last layer
# stands for that many or more.
_CREDIT_LAYERS = 2
_CELLS = [(1, 0)] + [(r, c) for r in range(1, 8) for c in range(1, 6)]
_IDX = {p: i for i, p in enumerate(_CELLS)}
_EARTH_IDX = len(_CELLS)
_IDX[EARTH] = _EARTH_IDX
_LAYER_MASK = (1 << (_CREDIT_LAYERS + 1)) - 1


def _lines() -> list:
    """For every cell and direction, the cells a Fly passes (index, 0-based
    row, 0-based column) up to Earth or the edge of the grid."""
    out = []
    for p in _CELLS:
        per = []
        for dr, dc in _DIRS:
            line = []
            r, c = p
            while True:
                r, c = r + dr, c + dc
                if (r, c) == EARTH:
                    line.append((_EARTH_IDX, 6, 5))
                    break
                if not (1 <= r <= 7 and 1 <= c <= 5):
                    break
                line.append((_IDX[(r, c)], r - 1, c - 1))
            per.append(line)
        out.append(per)
    return out


_LINES = _lines()


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
        self._static_cache: dict = {}
        self._learned: dict = {}
        self._ctx_ids: dict = {}
        self._any_stop = [any(f & CAN_STOP and not f & DEADLY for f in row) for row in self.flags]
        self._any_boost = [any(f & CAN_BOOST and not f & DEADLY for f in row) for row in self.flags]

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
        need = self.need
        flags = self.flags
        # Faces met on rows the relaxed path has not touched yet (see the module
        # docstring): exact, from the flip patterns the state still allows.
        exact = [self.exact_flags(r, masks[r]) if masks[r] else flags[r] for r in range(7)]
        held = min(held, 3)
        # state: (pos, rotations, rows with optimistic faces, held, shields,
        # Deep Scan credits earned in another row, credits earned in the ship's
        # row, flips only). The model state's pending Deep Scan flips are
        # credits that only flip.
        # Rotations are packed three bits a row (hashing an int is cheap).
        rot0i = sum(v << (3 * i) for i, v in enumerate(rot0))
        start = (ship, rot0i, 0, held, shields, 0, 0, credits)
        dist = {start: 0}
        # More shields and more credits never hurt: a state is skipped when one
        # reached no later has the same rest and at least as many of each (a
        # credit from another row being worth at least one from this row).
        front: dict = {start[:4]: [(shields, 0, 0, credits, 0)]}
        grid = self._inner_bound(vir)
        to_earth = self.m.to_earth
        tables: dict = {}
        moved_of: dict = {rot0i: 0}
        top = _CREDIT_LAYERS

        def hval(s2: tuple, enough: int = INF) -> int:
            # The largest of three admissible bounds: what earlier searches
            # learned, the grid distance through a virus, and the static-rows
            # distance with the credits at hand (each further credit costs a
            # wait; rows whose rotation moved since the start count as free).
            # Once one reaches ``enough`` the others are not needed.
            opt = s2[2]
            c = ctx_of.get(opt)
            if c is None:
                c = ctx(opt)
            h = learned.get((s2, c), 0)
            if h >= enough:
                return h
            pos = s2[0]
            x = to_earth[pos] if s2[3] >= need else grid(pos, s2[3])
            if x > h:
                if x >= enough:
                    return x
                h = x
            r2 = s2[1]
            moved = moved_of.get(r2)
            if moved is None:
                moved = moved_of[r2] = _moved(r2 ^ rot0i)
            t = tables.get(moved)
            if t is None:
                t = tables[moved] = self._static_table(rot0, moved)
            k = s2[5] + s2[6] + s2[7]
            i = _IDX[pos]
            if k >= top:
                x = t[top][i]
            else:
                x = t[k][i]
                for j in range(k + 1, top + 1):
                    y = t[j][i] + j - k
                    if y < x:
                        x = y
            return x if x > h else h

        # Lower bounds learned by earlier searches (``_learn``), for states of
        # the same face context: the faces each row may show, and the viruses.
        learned = self._learned
        ctx_of: dict = {}

        def ctx(opt: int) -> int:
            c = ctx_of.get(opt)
            if c is None:
                faces = (tuple(tuple(flags[r]) if (opt >> r) & 1 else tuple(exact[r]) for r in range(7)), vir)
                c = ctx_of[opt] = self._ctx_ids.setdefault(faces, len(self._ctx_ids))
            return c

        def done(value: int) -> int:
            self._learn(dist, ctx, value)
            return value

        h0 = hval(start)
        if h0 >= cap:
            return cap
        heap = [(h0, 0, start)]
        best_goal = INF
        truncated = False
        deadline = self.deadline
        pops = 0
        while heap:
            fst, g, st = heappop(heap)
            g = -g
            if fst >= best_goal:
                return done(best_goal)
            if fst >= cap:
                return done(cap)
            pops += 1
            if deadline is not None and not pops & 255 and perf_counter() > deadline:
                # Out of time: every open path needs at least fst turns.
                self._timed_out = True
                return done(fst)
            if dist[st] < g:
                continue  # reached again more cheaply
            pos, rot, opt0, hv, sh, cr0, crh0, fo0 = st
            row = pos[0]  # the dock is in row 1 [D2]
            nxt: list = []
            if hv and sh < 2:
                # bolster: a free edge
                nxt.append(((pos, rot, opt0, hv - 1, sh + 1, cr0, crh0, fo0), g))
            g1 = g + 1
            for dr, dc in _DIRS:
                work = [(pos, hv, sh, rot, opt0, cr0, crh0, fo0)]
                while work:
                    (r, c), h1, s1, rt, opt, cr, crh, fo = work.pop()
                    nr, nc = r + dr, c + dc
                    if (nr, nc) == EARTH:
                        if h1 >= need and g1 < best_goal:
                            best_goal = g1
                        continue
                    if not (1 <= nr <= 7 and 1 <= nc <= 5):
                        continue
                    ri = nr - 1
                    bit = 1 << ri
                    # A row entered or re-scanned earlier on this path meets
                    # either face; an untouched row meets the face its
                    # patterns allow.
                    faces = flags[ri] if opt & bit else exact[ri]
                    j = (nc - 1 + ((rt >> (3 * ri)) & 7)) % 5
                    choices = [(faces[j], j, rt, cr, crh, fo)]
                    if cr or crh or fo:
                        # Spend Deep Scan credits: the row was shifted (s
                        # places) or a card of it flipped earlier. A Deep Scan
                        # never shifts the ship's own row [D14], so a credit
                        # earned in this row only flips there; credits from
                        # this row go first (the others can do more).
                        shiftable = cr + (crh if nr != row else 0)
                        for sft in range(min(shiftable, 4) + 1):
                            use_h = min(sft, crh) if nr != row else 0
                            c_left, h_left = cr - (sft - use_h), crh - use_h
                            js = (j + sft) % 5
                            rs = rt if not sft else _turned(rt, ri, sft)
                            if sft:
                                choices.append((faces[js], js, rs, c_left, h_left, fo))
                            if fo:
                                choices.append((flags[ri][js], js, rs, c_left, h_left, fo - 1))
                            elif h_left:
                                choices.append((flags[ri][js], js, rs, c_left, h_left - 1, fo))
                            elif c_left:
                                choices.append((flags[ri][js], js, rs, c_left - 1, h_left, fo))
                    # Entering a card turns it over: the row is touched.
                    opt |= bit
                    for f, jj, rs, c2, ch2, fo2 in choices:
                        if f & DEADLY:
                            continue
                        s2 = s1
                        if f & NEEDS_SHIELDS:
                            if s1 < 2:
                                continue
                            s2 = 0
                        h2 = h1 + ((vir >> (ri * 5 + jj)) & 1) if h1 < 3 else 3
                        if f & CAN_STOP:
                            # Credits earned in the ship's row become
                            # spendable anywhere once it has left that row.
                            if nr == row:
                                nxt.append((((nr, nc), *_end_turn(nr, rs, opt), h2, s2, c2, ch2, fo2), g1))
                            else:
                                nxt.append((((nr, nc), *_end_turn(nr, rs, opt), h2, s2, c2 + ch2, 0, fo2), g1))
                        if f & CAN_BOOST:
                            work.append(((nr, nc), h2, s2, rs, opt, c2, ch2, fo2))
            # Waits: any non-Fly turn. The re-scan shifts the row ahead; a Deep
            # Scan may shift the row ahead once more, or another row or a card:
            # that is kept as a credit, spent on the row it was for when the
            # ship next meets it (deciding late only adds options); a Shields
            # action adds a shield.
            rot1, opt1 = _end_turn(row, rot, opt0)
            nxt.append(((pos, rot1, opt1, hv, min(2, sh + 1), cr0, crh0, fo0), g1))
            if row + 1 <= 7:
                rot2 = _turned(rot1, row, 1)
                nxt.append(((pos, rot2, opt1, hv, sh, cr0, crh0, fo0), g1))
            nxt.append(((pos, rot1, opt1, hv, sh, cr0, crh0 + 1, fo0), g1))
            limit = best_goal if best_goal < cap else cap
            for s2, g2 in nxt:
                if dist.get(s2, INF) <= g2:
                    continue
                f2 = g2 + hval(s2, limit - g2)
                if f2 >= limit:
                    truncated = truncated or f2 >= cap
                    continue
                k = s2[:4]
                a, b, c, d = s2[4], s2[5], s2[6], s2[7]
                lst = front.get(k)
                if lst is None:
                    front[k] = [(a, b, c, d, g2)]
                else:
                    for x, y, z, w, gx in lst:
                        # credits: general >= this row's >= flips only
                        if gx <= g2 and x >= a and y >= b and y + z >= b + c and y + z + w >= b + c + d:
                            break
                    else:
                        lst.append((a, b, c, d, g2))
                        dist[s2] = g2
                        heappush(heap, (f2, -g2, s2))
                    continue
                dist[s2] = g2
                heappush(heap, (f2, -g2, s2))
        if best_goal < INF:
            return done(min(best_goal, cap))
        return done(cap if truncated else INF)

    def _learn(self, dist: dict, ctx, value: int) -> None:
        """A search from S ended with "the optimum from S is (at least)
        ``value``". Then every state s it reached with cost g(s) needs at least
        ``value - g(s)`` more turns: a shorter way on from s would give a
        shorter way from S. Kept per face context, for later searches."""
        learned = self._learned
        if len(learned) > 1_000_000:
            learned.clear()
        for st, g in dist.items():
            v = value - g
            if v > 1:
                key = (st, ctx(st[2]))
                if learned.get(key, 0) < v:
                    learned[key] = v

    def _static_table(self, rot: tuple, free: int) -> list:
        """A second bound for the inner search: fewest Fly actions to Earth from
        every cell, per number of Deep Scan credits held (the last entry: any
        number). From a cell in row r the ship's own row, the row ahead and the
        rows below may show any of their cards (they rotate), and so may the
        ``free`` rows (those whose rotation moved since the search's start); a
        row two or more ahead keeps its rotation
        ``rot`` (only a Deep Scan shifts it, which costs a credit) and shows
        either face of the card there. Waits, shields and samples are ignored,
        so it never exceeds the relaxed game's own distance."""
        # A free row's rotation does not matter: left out of the key.
        if free:
            rot = tuple(0 if (free >> i) & 1 else rot[i] for i in range(7))
        key = (rot, free)
        got = self._static_cache.get(key)
        if got is not None:
            return got
        flags = self.flags
        top = _CREDIT_LAYERS
        any_stop, any_boost = self._any_stop, self._any_boost
        # rev[q]: (p, bitmask of credit counts) for every action from p that
        # may end on q. A Fly is walked once along its precomputed line, with
        # the credit counts that can reach each cell kept as a bitmask.
        rev: list = [[] for _ in range(len(_CELLS) + 1)]
        for pi, p in enumerate(_CELLS):
            near = p[0] + 1
            for line in _LINES[pi]:
                cur = 1
                for qi, ri, col in line:
                    if qi == _EARTH_IDX:
                        rev[qi].append((pi, cur))
                        break
                    if ri + 1 <= near or (free >> ri) & 1:
                        stop = cur if any_stop[ri] else 0
                        cur = cur if any_boost[ri] else 0
                    else:
                        f = flags[ri][(col + rot[ri]) % 5]
                        more = (cur << 1) & _LAYER_MASK
                        stop = (cur if f & CAN_STOP and not f & DEADLY else 0) | (more if any_stop[ri] else 0)
                        cur = (cur if f & CAN_BOOST and not f & DEADLY else 0) | (more if any_boost[ri] else 0)
                    if stop:
                        rev[qi].append((pi, stop))
                    if not cur:
                        break
        # Backward breadth-first search over (cell, credits held) from Earth;
        # the last layer is "any number of credits".
        n = len(_CELLS)
        table = [[INF] * (n + 1) for _ in range(top + 1)]
        frontier = []
        for k in range(top + 1):
            table[k][_EARTH_IDX] = 0
            frontier.append((_EARTH_IDX, k))
        g = 0
        while frontier:
            g += 1
            nxt = []
            for qi, k in frontier:
                for pi, umask in rev[qi]:
                    if k == top:
                        kp = top
                    else:
                        # the fewest credits used that reach q with k left
                        low = umask & -umask
                        kp = k + low.bit_length() - 1
                        if kp >= top:
                            continue
                    row = table[kp]
                    if row[pi] > g:
                        row[pi] = g
                        nxt.append((pi, kp))
            frontier = nxt
        # More credits never cost more.
        for k in range(1, top + 1):
            prev, row = table[k - 1], table[k]
            for i in range(n):
                if prev[i] < row[i]:
                    row[i] = prev[i]
        if len(self._static_cache) > 20_000:
            self._static_cache.clear()
        self._static_cache[key] = table
        return table

    def _inner_bound(self, vir: int):
        """An admissible, consistent bound for this search itself: the model's
        grid distance (every relaxed Fly is one of its moves), through a row
        holding a virus while the ship holds too few."""
        m = self.m
        to_earth = m.to_earth
        need = self.need
        rows = {b // 5 for b in range(35) if (vir >> b) & 1}
        cache: dict = {}

        def hval(pos, hv):
            if hv >= need:
                return to_earth[pos]
            got = cache.get(pos)
            if got is None:
                best = INF
                d = m.dist[pos]
                for r in rows:
                    for cell in m.row_cells[r]:
                        x = d.get(cell)
                        if x is not None:
                            best = min(best, x + to_earth[cell] - 1)
                got = cache[pos] = best
            return got

        return hval


def _end_turn(nr: int, rot: int, opt: int) -> tuple[int, int]:
    """Rotations and optimistic rows after a turn that ends with the ship in
    row ``nr``: the re-scan shifts the row ahead (§8) and flips cards of the
    row two ahead, whose faces are then no longer known."""
    if nr + 1 <= 7:
        rot = _turned(rot, nr, 1)
    if nr + 2 <= 7:
        opt |= 1 << (nr + 1)
    return rot, opt


def _turned(rot: int, r: int, k: int) -> int:
    """Packed rotations with row ``r`` (0-based) shifted ``k`` more places."""
    sh = 3 * r
    v = (rot >> sh) & 7
    return rot + ((((v + k) % 5) - v) << sh)


def _moved(diff: int) -> int:
    """Rows whose packed rotation differs (``diff``: the two packings XORed)."""
    out = 0
    r = 0
    while diff:
        if diff & 7:
            out |= 1 << r
        diff >>= 3
        r += 1
    return out
