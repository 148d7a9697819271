"""The relaxed game's search (``relaxed.RelaxedBound``), compiled with Numba.

Profiling put 97 % of a fewest-turns solve inside this search: hundreds of
small A* searches per solve, each a few hundred pops, each pop a dozen
successors. Python spends ~80 µs a pop on tuples and dicts; compiled, the same
work takes about a microsecond. ``relaxed.py`` holds the rules of the relaxed
game and why they bound the real one; this module is only their fast form,
step for step the same search:

* A relaxed state is packed into one int64 (``_pack``): ship cell index (6
  bits), the rows' rotations (3 bits a row), rows whose faces are no longer
  known (7 bits), held viruses (0-3), shields (0-2), Deep Scan credits from
  another row, from the ship's row, and flips only (6 bits each).
* ``learned`` (lower bounds learned by earlier searches) and the face
  contexts' ids are open-addressing tables on numpy arrays (``table_get``,
  ``table_put``) owned by the ``RelaxedBound`` and shared by its searches.
* Credits are capped at ``MAX_CREDITS``: no path can spend more (at most four
  shifts and a flip in each of the seven rows), and the cap keeps an
  exhaustive search finite.
* The static-rows bound (``static_table``) is computed per search for each set
  of moved rows it meets.

The clock is read every 256 pops (in object mode) when a deadline is set.
The first call in a process loads the compiled code from Numba's cache
(about half a second); the first call after a change compiles it (~15 s).
"""

from __future__ import annotations

import heapq
import time

import numpy as np
from numba import njit, objmode, types
from numba.typed import Dict

INF = 10**9
MAX_CREDITS = 40
CAN_BOOST, CAN_STOP, NEEDS_SHIELDS, DEADLY = 1, 2, 4, 8
CREDIT_LAYERS = 2
LAYER_MASK = (1 << (CREDIT_LAYERS + 1)) - 1
EARTH_IDX = 36
N_CELLS = 37  # the dock, the 35 grid cells, Earth

# Cell index <-> (row, col): 0 is the dock (1, 0); 1 + (r-1)*5 + (c-1) the grid.
CELL_ROW = np.array([1] + [r for r in range(1, 8) for _ in range(5)] + [7], dtype=np.int64)
CELL_COL = np.array([0] + [c for _ in range(1, 8) for c in range(1, 6)] + [6], dtype=np.int64)
DR = np.array([1, -1, 0, 0], dtype=np.int64)
DC = np.array([0, 0, -1, 1], dtype=np.int64)

# ----------------------------------------------------------------------------
# Tables shared by the searches of one RelaxedBound: (int64, int64) -> int64,
# open addressing on numpy arrays. Typed dicts would do, but a typed dict that
# crosses into Python costs half a second of compiling in every process.
# ----------------------------------------------------------------------------

EMPTY = -1
MAX_LOAD = 0.6


def new_table(capacity: int = 1 << 12) -> np.ndarray:
    """An empty table: rows (key a, key b, value); row 0 col 0 of ``meta`` is
    the count (kept in a separate 1-element array)."""
    tab = np.full((capacity, 3), EMPTY, dtype=np.int64)
    return tab


@njit(cache=True, inline="always")
def _home(a, b, mask):
    h = a ^ (b * 0x5851F42D4C957F2D)
    h ^= h >> 29
    h *= 0x2545F4914F6CDD1D
    h ^= h >> 32
    return h & mask


@njit(cache=True)
def table_get(tab, a, b):
    """The value stored for (a, b), or -1."""
    mask = tab.shape[0] - 1
    i = _home(a, b, mask)
    while True:
        k = tab[i, 0]
        if k == EMPTY:
            return EMPTY
        if k == a and tab[i, 1] == b:
            return tab[i, 2]
        i = (i + 1) & mask


@njit(cache=True)
def table_put(tab, count, a, b, v):
    """Store v for (a, b) (``count[0]`` counts the keys). False, and nothing
    stored, when the table is too full for a new key."""
    mask = tab.shape[0] - 1
    i = _home(a, b, mask)
    while True:
        k = tab[i, 0]
        if k == EMPTY:
            if count[0] + 1 > MAX_LOAD * tab.shape[0]:
                return False
            tab[i, 0] = a
            tab[i, 1] = b
            tab[i, 2] = v
            count[0] += 1
            return True
        if k == a and tab[i, 1] == b:
            tab[i, 2] = v
            return True
        i = (i + 1) & mask


@njit(cache=True)
def table_rehash(old, new, count):
    count[0] = 0
    for i in range(old.shape[0]):
        if old[i, 0] != EMPTY:
            table_put(new, count, old[i, 0], old[i, 1], old[i, 2])


def cell_index(pos: tuple[int, int]) -> int:
    r, c = pos
    if c == 0:
        return 0
    if c == 6:
        return EARTH_IDX
    return 1 + (r - 1) * 5 + (c - 1)


def _lines() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For every cell and direction, the cells a Fly passes (index, 0-based
    row, 0-based column) up to Earth or the edge of the grid."""
    q = np.zeros((N_CELLS, 4, 8), dtype=np.int64)
    rr = np.zeros((N_CELLS, 4, 8), dtype=np.int64)
    cc = np.zeros((N_CELLS, 4, 8), dtype=np.int64)
    n = np.zeros((N_CELLS, 4), dtype=np.int64)
    for pi in range(N_CELLS - 1):
        for d in range(4):
            r, c = int(CELL_ROW[pi]), int(CELL_COL[pi])
            k = 0
            while True:
                r, c = r + int(DR[d]), c + int(DC[d])
                if (r, c) == (7, 6):
                    q[pi, d, k], rr[pi, d, k], cc[pi, d, k] = EARTH_IDX, 6, 5
                    k += 1
                    break
                if not (1 <= r <= 7 and 1 <= c <= 5):
                    break
                q[pi, d, k], rr[pi, d, k], cc[pi, d, k] = cell_index((r, c)), r - 1, c - 1
                k += 1
            n[pi, d] = k
    return q, rr, cc, n


LINES_Q, LINES_R, LINES_C, LINES_N = _lines()


@njit(cache=True, inline="always")
def _pack(pos, rot, opt, held, sh, cr, crh, fo):
    return (
        pos
        | (rot << 6)
        | (opt << 27)
        | (held << 34)
        | (sh << 36)
        | (cr << 38)
        | (crh << 44)
        | (fo << 50)
    )


@njit(cache=True, inline="always")
def _turned(rot, r, k):
    sh = 3 * r
    v = (rot >> sh) & 7
    return rot + ((((v + k) % 5) - v) << sh)


@njit(cache=True, inline="always")
def _end_rot(nr, rot):
    if nr + 1 <= 7:
        return _turned(rot, nr, 1)
    return rot


@njit(cache=True, inline="always")
def _end_opt(nr, opt):
    if nr + 2 <= 7:
        return opt | (1 << (nr + 1))
    return opt


@njit(cache=True)
def static_table(rot0, free, flags, any_stop, any_boost, lq, lr, lc, ln):
    """A second bound for the relaxed search: fewest Fly actions to Earth from
    every cell, per number of Deep Scan credits held (the last layer: any
    number). From a cell in row r the ship's own row, the row ahead and the
    rows below may show any of their cards (they rotate), and so may the
    ``free`` rows (whose rotation moved since the search's start); a row two or
    more ahead keeps its rotation ``rot0`` (only a Deep Scan shifts it, which
    costs a credit) and shows either face of the card there. Waits, shields
    and samples are ignored, so it never exceeds the relaxed game's distance.
    Computed by a backward breadth-first search from Earth over (cell,
    credits) along precomputed Fly lines."""
    top = CREDIT_LAYERS
    rev_p = np.zeros((N_CELLS, 200), dtype=np.int64)
    rev_m = np.zeros((N_CELLS, 200), dtype=np.int64)
    rev_n = np.zeros(N_CELLS, dtype=np.int64)
    for pi in range(N_CELLS - 1):
        near = CELL_ROW[pi] + 1
        for d in range(4):
            cur = 1
            for k in range(ln[pi, d]):
                qi = lq[pi, d, k]
                ri = lr[pi, d, k]
                col = lc[pi, d, k]
                if qi == EARTH_IDX:
                    rev_p[qi, rev_n[qi]] = pi
                    rev_m[qi, rev_n[qi]] = cur
                    rev_n[qi] += 1
                    break
                if ri + 1 <= near or (free >> ri) & 1:
                    stop = cur if any_stop[ri] else 0
                    cur = cur if any_boost[ri] else 0
                else:
                    f = flags[ri, (col + rot0[ri]) % 5]
                    more = (cur << 1) & LAYER_MASK
                    ok = (f & DEADLY) == 0
                    stop = (cur if (f & CAN_STOP) and ok else 0) | (more if any_stop[ri] else 0)
                    cur = (cur if (f & CAN_BOOST) and ok else 0) | (more if any_boost[ri] else 0)
                if stop:
                    rev_p[qi, rev_n[qi]] = pi
                    rev_m[qi, rev_n[qi]] = stop
                    rev_n[qi] += 1
                if not cur:
                    break
    table = np.full((top + 1, N_CELLS), INF, dtype=np.int64)
    fr_i = np.empty(N_CELLS * (top + 1), dtype=np.int64)
    fr_k = np.empty(N_CELLS * (top + 1), dtype=np.int64)
    nx_i = np.empty(N_CELLS * (top + 1), dtype=np.int64)
    nx_k = np.empty(N_CELLS * (top + 1), dtype=np.int64)
    nf = 0
    for k in range(top + 1):
        table[k, EARTH_IDX] = 0
        fr_i[nf] = EARTH_IDX
        fr_k[nf] = k
        nf += 1
    g = 0
    while nf:
        g += 1
        nn = 0
        for a in range(nf):
            qi = fr_i[a]
            k = fr_k[a]
            for e in range(rev_n[qi]):
                pi = rev_p[qi, e]
                umask = rev_m[qi, e]
                if k == top:
                    kp = top
                else:
                    low = umask & -umask
                    b = 0
                    while low > 1:
                        low >>= 1
                        b += 1
                    kp = k + b
                    if kp >= top:
                        continue
                if table[kp, pi] > g:
                    table[kp, pi] = g
                    nx_i[nn] = pi
                    nx_k[nn] = kp
                    nn += 1
        for a in range(nn):
            fr_i[a] = nx_i[a]
            fr_k[a] = nx_k[a]
        nf = nn
    for k in range(1, top + 1):
        for i in range(N_CELLS):
            if table[k - 1, i] < table[k, i]:
                table[k, i] = table[k - 1, i]
    return table


@njit(cache=True)
def _moved(diff):
    out = 0
    r = 0
    while diff:
        if diff & 7:
            out |= 1 << r
        diff >>= 3
        r += 1
    return out


@njit(cache=True)
def search(
    pos0,
    rot0,
    held,
    shields,
    credits,
    cap,
    need,
    flags,
    exact,
    vir,
    to_earth,
    gridb,
    any_stop,
    any_boost,
    lq,
    lr,
    lc,
    ln,
    e_ids,
    f_ids,
    ctx_tab,
    ctx_count,
    learned,
    learned_count,
    deadline,
):
    """The relaxed optimum from the given state, ``cap`` when it is at least
    ``cap``. Returns (value, timed_out). ``deadline`` < 0: no clock."""
    rot0i = 0
    for i in range(7):
        rot0i |= rot0[i] << (3 * i)
    top = CREDIT_LAYERS
    start = _pack(pos0, rot0i, 0, held, shields, 0, 0, credits)
    dist = Dict.empty(key_type=types.int64, value_type=types.int64)
    dist[start] = 0
    # Dominance lists per (cell, rotations, optimistic rows, held): linked
    # entries (shields, credits, this row's credits, flips only, g, next).
    front = Dict.empty(key_type=types.int64, value_type=types.int64)
    ent = np.empty((1024, 6), dtype=np.int64)
    n_ent = 0
    ent[0, 0] = shields
    ent[0, 1] = 0
    ent[0, 2] = 0
    ent[0, 3] = credits
    ent[0, 4] = 0
    ent[0, 5] = -1
    n_ent = 1
    front[start & ((1 << 36) - 1)] = 0

    ctx_cache = np.full(128, -1, dtype=np.int64)
    tables = np.zeros((128, top + 1, N_CELLS), dtype=np.int64)
    have_table = np.zeros(128, dtype=np.bool_)

    def ctx(opt):
        c = ctx_cache[opt]
        if c < 0:
            sig = 0
            for r in range(7):
                sig |= (f_ids[r] if (opt >> r) & 1 else e_ids[r]) << (8 * r)
            c = table_get(ctx_tab, sig, vir)
            if c < 0:
                # Room for every opt mask is made before the search.
                c = ctx_count[0]
                table_put(ctx_tab, ctx_count, sig, vir, c)
            ctx_cache[opt] = c
        return c

    def hval(s2, enough):
        opt = (s2 >> 27) & 127
        c = ctx(opt)
        h = table_get(learned, s2, c)
        if h < 0:
            h = 0
        if h >= enough:
            return h
        pos = s2 & 63
        if ((s2 >> 34) & 3) >= need:
            x = to_earth[pos]
        else:
            x = gridb[pos]
        if x > h:
            if x >= enough:
                return x
            h = x
        moved = _moved(((s2 >> 6) & ((1 << 21) - 1)) ^ rot0i)
        if not have_table[moved]:
            tables[moved] = static_table(rot0, moved, flags, any_stop, any_boost, lq, lr, lc, ln)
            have_table[moved] = True
        k = ((s2 >> 38) & 63) + ((s2 >> 44) & 63) + ((s2 >> 50) & 63)
        if k >= top:
            x = tables[moved, top, pos]
        else:
            x = tables[moved, k, pos]
            for j in range(k + 1, top + 1):
                y = tables[moved, j, pos] + j - k
                if y < x:
                    x = y
        return x if x > h else h

    def learn(value):
        for st, g in dist.items():
            v = value - g
            if v > 1:
                c = ctx((st >> 27) & 127)
                if table_get(learned, st, c) < v:
                    if not table_put(learned, learned_count, st, c, v):
                        return  # full: the rest is not learned (speed only)

    h0 = hval(start, INF)
    if h0 >= cap:
        return cap, False
    heap = [(h0, 0, start)]
    best_goal = INF
    truncated = False
    pops = 0
    nxt_s = np.empty(64, dtype=np.int64)
    nxt_g = np.empty(64, dtype=np.int64)
    work = np.empty((64, 9), dtype=np.int64)
    ch = np.empty((16, 6), dtype=np.int64)
    while heap:
        fst, ng, st = heapq.heappop(heap)
        g = -ng
        if fst >= best_goal:
            learn(best_goal)
            return best_goal, False
        if fst >= cap:
            learn(cap)
            return cap, False
        pops += 1
        if deadline >= 0 and (pops & 255) == 0:
            with objmode(now="float64"):
                now = time.perf_counter()
            if now > deadline:
                # Out of time: every open path needs at least fst turns.
                learn(fst)
                return fst, True
        if dist[st] < g:
            continue
        pos = st & 63
        rot = (st >> 6) & ((1 << 21) - 1)
        opt0 = (st >> 27) & 127
        hv = (st >> 34) & 3
        sh = (st >> 36) & 3
        cr0 = (st >> 38) & 63
        crh0 = (st >> 44) & 63
        fo0 = (st >> 50) & 63
        row = CELL_ROW[pos]
        nn = 0
        if hv and sh < 2:
            nxt_s[nn] = _pack(pos, rot, opt0, hv - 1, sh + 1, cr0, crh0, fo0)
            nxt_g[nn] = g
            nn += 1
        g1 = g + 1
        for d in range(4):
            dr = DR[d]
            dc = DC[d]
            nw = 1
            work[0, 0] = CELL_ROW[pos]
            work[0, 1] = CELL_COL[pos]
            work[0, 2] = hv
            work[0, 3] = sh
            work[0, 4] = rot
            work[0, 5] = opt0
            work[0, 6] = cr0
            work[0, 7] = crh0
            work[0, 8] = fo0
            while nw:
                nw -= 1
                r = work[nw, 0]
                c = work[nw, 1]
                h1 = work[nw, 2]
                s1 = work[nw, 3]
                rt = work[nw, 4]
                opt = work[nw, 5]
                cr = work[nw, 6]
                crh = work[nw, 7]
                fo = work[nw, 8]
                nr = r + dr
                nc = c + dc
                if nr == 7 and nc == 6:
                    if h1 >= need and g1 < best_goal:
                        best_goal = g1
                    continue
                if not (1 <= nr <= 7 and 1 <= nc <= 5):
                    continue
                ri = nr - 1
                bit = 1 << ri
                use_flags = (opt & bit) != 0
                j = (nc - 1 + ((rt >> (3 * ri)) & 7)) % 5
                nch = 1
                ch[0, 0] = flags[ri, j] if use_flags else exact[ri, j]
                ch[0, 1] = j
                ch[0, 2] = rt
                ch[0, 3] = cr
                ch[0, 4] = crh
                ch[0, 5] = fo
                if cr or crh or fo:
                    shiftable = cr + (crh if nr != row else 0)
                    for sft in range(min(shiftable, 4) + 1):
                        use_h = min(sft, crh) if nr != row else 0
                        c_left = cr - (sft - use_h)
                        h_left = crh - use_h
                        js = (j + sft) % 5
                        rs = rt if sft == 0 else _turned(rt, ri, sft)
                        if sft:
                            ch[nch, 0] = flags[ri, js] if use_flags else exact[ri, js]
                            ch[nch, 1] = js
                            ch[nch, 2] = rs
                            ch[nch, 3] = c_left
                            ch[nch, 4] = h_left
                            ch[nch, 5] = fo
                            nch += 1
                        if fo:
                            ch[nch, 0] = flags[ri, js]
                            ch[nch, 1] = js
                            ch[nch, 2] = rs
                            ch[nch, 3] = c_left
                            ch[nch, 4] = h_left
                            ch[nch, 5] = fo - 1
                            nch += 1
                        elif h_left:
                            ch[nch, 0] = flags[ri, js]
                            ch[nch, 1] = js
                            ch[nch, 2] = rs
                            ch[nch, 3] = c_left
                            ch[nch, 4] = h_left - 1
                            ch[nch, 5] = fo
                            nch += 1
                        elif c_left:
                            ch[nch, 0] = flags[ri, js]
                            ch[nch, 1] = js
                            ch[nch, 2] = rs
                            ch[nch, 3] = c_left - 1
                            ch[nch, 4] = h_left
                            ch[nch, 5] = fo
                            nch += 1
                # Entering a card turns it over: the row is touched.
                opt |= bit
                for a in range(nch):
                    f = ch[a, 0]
                    if f & DEADLY:
                        continue
                    jj = ch[a, 1]
                    rs = ch[a, 2]
                    c2 = ch[a, 3]
                    ch2 = ch[a, 4]
                    fo2 = ch[a, 5]
                    s2 = s1
                    if f & NEEDS_SHIELDS:
                        if s1 < 2:
                            continue
                        s2 = 0
                    h2 = (h1 + ((vir >> (ri * 5 + jj)) & 1)) if h1 < 3 else 3
                    if f & CAN_STOP:
                        npos = 1 + ri * 5 + (nc - 1)
                        if nn >= nxt_s.shape[0]:
                            nxt_s = np.concatenate((nxt_s, np.empty(nn, dtype=np.int64)))
                            nxt_g = np.concatenate((nxt_g, np.empty(nn, dtype=np.int64)))
                        er = _end_rot(nr, rs)
                        eo = _end_opt(nr, opt)
                        if nr == row:
                            nxt_s[nn] = _pack(npos, er, eo, h2, s2, c2, ch2, fo2)
                        else:
                            nxt_s[nn] = _pack(npos, er, eo, h2, s2, min(c2 + ch2, MAX_CREDITS), 0, fo2)
                        nxt_g[nn] = g1
                        nn += 1
                    if f & CAN_BOOST:
                        if nw >= work.shape[0]:
                            work = np.concatenate((work, np.empty_like(work)))
                        work[nw, 0] = nr
                        work[nw, 1] = nc
                        work[nw, 2] = h2
                        work[nw, 3] = s2
                        work[nw, 4] = rs
                        work[nw, 5] = opt
                        work[nw, 6] = c2
                        work[nw, 7] = ch2
                        work[nw, 8] = fo2
                        nw += 1
        # Waits (see relaxed.py): shields, the row ahead shifted once more, a credit.
        if nn + 3 > nxt_s.shape[0]:
            nxt_s = np.concatenate((nxt_s, np.empty(nn + 3, dtype=np.int64)))
            nxt_g = np.concatenate((nxt_g, np.empty(nn + 3, dtype=np.int64)))
        rot1 = _end_rot(row, rot)
        opt1 = _end_opt(row, opt0)
        nxt_s[nn] = _pack(pos, rot1, opt1, hv, min(2, sh + 1), cr0, crh0, fo0)
        nxt_g[nn] = g1
        nn += 1
        if row + 1 <= 7:
            nxt_s[nn] = _pack(pos, _turned(rot1, row, 1), opt1, hv, sh, cr0, crh0, fo0)
            nxt_g[nn] = g1
            nn += 1
        nxt_s[nn] = _pack(pos, rot1, opt1, hv, sh, cr0, min(crh0 + 1, MAX_CREDITS), fo0)
        nxt_g[nn] = g1
        nn += 1
        limit = best_goal if best_goal < cap else cap
        for a in range(nn):
            s2 = nxt_s[a]
            g2 = nxt_g[a]
            if s2 in dist and dist[s2] <= g2:
                continue
            f2 = g2 + hval(s2, limit - g2)
            if f2 >= limit:
                truncated = truncated or f2 >= cap
                continue
            k = s2 & ((1 << 36) - 1)
            sa = (s2 >> 36) & 3
            sb = (s2 >> 38) & 63
            sc = (s2 >> 44) & 63
            sd = (s2 >> 50) & 63
            head = front[k] if k in front else -1
            dominated = False
            e = head
            while e >= 0:
                if (
                    ent[e, 4] <= g2
                    and ent[e, 0] >= sa
                    and ent[e, 1] >= sb
                    and ent[e, 1] + ent[e, 2] >= sb + sc
                    and ent[e, 1] + ent[e, 2] + ent[e, 3] >= sb + sc + sd
                ):
                    dominated = True
                    break
                e = ent[e, 5]
            if dominated:
                continue
            if n_ent >= ent.shape[0]:
                ent = np.concatenate((ent, np.empty_like(ent)))
            ent[n_ent, 0] = sa
            ent[n_ent, 1] = sb
            ent[n_ent, 2] = sc
            ent[n_ent, 3] = sd
            ent[n_ent, 4] = g2
            ent[n_ent, 5] = head
            front[k] = n_ent
            n_ent += 1
            dist[s2] = g2
            heapq.heappush(heap, (f2, -g2, s2))
    if best_goal < INF:
        v = best_goal if best_goal < cap else cap
        learn(v)
        return v, False
    v = cap if truncated else INF
    learn(v)
    return v, False
