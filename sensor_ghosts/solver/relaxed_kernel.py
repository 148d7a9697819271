"""The relaxed game's search (``relaxed.RelaxedBound``), compiled with Numba.

Profiling put 97 % of a fewest-turns solve inside the relaxed game's searches:
hundreds of small A* searches per solve, each a few hundred pops of a dozen
successors. In Python that was ~80 µs a pop; compiled, about a microsecond.
``relaxed.py`` states the relaxed game and why it bounds the real one; this
module is its search:

* A relaxed state is one int64 (``_pk``: ship cell index, the rows' rotations
  at 3 bits a row, held viruses 0-3, shields 0-2, and three kinds of Deep Scan
  credits at 6 bits each) and the seven rows' flip-pattern sets, 32 bits each,
  two to an int64.
* The lower bounds learned by earlier searches live in an open-addressing
  table on a numpy array (``_key_put``), owned by the ``RelaxedBound``.
* The static-rows bound (``static_table``) is computed for each set of moved
  rows a search meets, and kept across the searches of an instance
  (``new_static_cache``, owned by the ``RelaxedBound`` too): a table reads the
  start's rotation only of the rows that did not move, so the key is those
  rotations and the moved rows. Built afresh per search, the tables took a
  third to a half of the searches' time in the split search.
* Credits are capped at ``MAX_CREDITS``: no path can spend more (at most four
  shifts and a flip in each of the seven rows), and the cap keeps an
  exhaustive search finite.

The clock is read every 8192 pops (a few milliseconds) when a deadline is set.
It is read in object mode (``clock``), compiled at its first run in each
process, which ``compiled.load_for`` makes before any clock starts.
The first call in a process loads the compiled code from Numba's cache
(about half a second); the first call after a change compiles it (~20 s).
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit, objmode

INF = 10**9
MAX_CREDITS = 40
CAN_BOOST, CAN_STOP, NEEDS_SHIELDS, DEADLY, COSTS_SAMPLE = 1, 2, 4, 8, 16
CREDIT_LAYERS = 4
LAYER_MASK = (1 << (CREDIT_LAYERS + 1)) - 1
EARTH_IDX = 36
# The rotation of a row three or more below the ship, when the search lets
# such rows go: any of its cards may be anywhere in it (relaxed.py, "Rows
# left behind"). Rotations are 0-4, in 3 bits.
WILD = 7
# Shields within a flight once a card has taken them: 0 for the state the
# flight ends in, and no bolster for a second such card (the turn's bolster
# came before the flight).
SPENT = 3
N_CELLS = 37  # the dock, the 35 grid cells, Earth
# With the §12 second action (``search``'s ``second``): a packed state's bits
# from TAKEN_SHIFT on say which virus tokens the way has taken (one bit per
# token, at most MAX_TOKENS), and SECOND_USED that this turn's second action
# is spent.
TAKEN_SHIFT = 49
MAX_TOKENS = 5
SECOND_USED = 1 << (TAKEN_SHIFT + MAX_TOKENS)
RESCAN_SLOTS = 1 << 8
# The static-rows tables' rotations of the row ahead: 0-4, and ANY_X (any).
NX = 6
ANY_X = 5

# Cell index <-> (row, col): 0 is the dock (1, 0); 1 + (r-1)*5 + (c-1) the grid.
CELL_ROW = np.array([1] + [r for r in range(1, 8) for _ in range(5)] + [7], dtype=np.int64)
CELL_COL = np.array([0] + [c for _ in range(1, 8) for c in range(1, 6)] + [6], dtype=np.int64)
DR = np.array([1, -1, 0, 0], dtype=np.int64)
DC = np.array([0, 0, -1, 1], dtype=np.int64)

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


@njit(cache=True)
def clock() -> float:
    """``time.perf_counter()`` for the searches' deadline. An object-mode
    block is compiled at its first run in each process, not cached
    (numba/numba#7572): in a function of its own, ``compiled.load_for``
    runs it once before any clock starts."""
    with objmode(now="float64"):
        now = time.perf_counter()
    return now


@njit(cache=True, inline="always")
def _turned(rot, r, k):
    sh = 3 * r
    v = (rot >> sh) & 7
    if v == WILD:
        return rot  # any card already
    return rot + ((((v + k) % 5) - v) << sh)


@njit(cache=True, inline="always")
def _end_rot(nr, rot):
    if nr + 1 <= 7:
        return _turned(rot, nr, 1)
    return rot


@njit(cache=True, inline="always")
def _more(cur, n):
    """The credit-layer bits of ``cur`` with ``n`` more credits used; the top
    bit stands for "CREDIT_LAYERS or more" and stays set."""
    out = (cur << n) & (LAYER_MASK >> 1)
    if cur >> (CREDIT_LAYERS - n) if n <= CREDIT_LAYERS else cur:
        out |= 1 << CREDIT_LAYERS
    return out


# The static-rows tables' unit layers (``static_table``): shields and held
# virus samples together, 0, 1 or 2, and UTOP for three or more, where the
# table counts no shield and no sample (a layer of its own, never left).
UNITS = 4
UTOP = 3
# ``cardu`` bits, per card: it has a face the ship may stop on without
# shields (an E); it carries a virus token at the instance's root.
FREE_STOP, HAS_TOKEN = 1, 2


@njit(cache=True, inline="always")
def _units_after(u, sn, tk):
    """The unit layer after a Fly from layer ``u`` whose stop needs the
    shields (``sn``: two units, which must be there before the Fly) and
    that enters ``tk`` cards that may carry a virus token; -1: not
    possible."""
    if u == UTOP:
        return UTOP
    if u < 2 * sn:
        return -1
    v = u - 2 * sn + tk
    return UTOP if v >= UTOP else v


@njit(cache=True, inline="always")
def _sidx(o, x, q, strong):
    """A static-rows table's column: rotation ``o`` of the ship's own row
    and ``x`` of the row ahead (0-4, or ANY_X: the least over the five),
    cell ``q``; without ``strong`` the own row's rotation is always ANY_X
    and has no place."""
    if strong:
        return (o * NX + x) * N_CELLS + q
    return x * N_CELLS + q


@njit(cache=True, inline="always")
def _flat(strong, layered, u, k, o, x, q):
    """The place in a kept table (``new_static_cache``, flat) of unit layer
    ``u`` (``layered``: the table has the four; else UTOP's alone), credit
    layer ``k``, column ``_sidx(o, x, q, strong)``."""
    ns = NX * NX * N_CELLS if strong else NX * N_CELLS
    ul = u if layered else 0
    return (ul * (CREDIT_LAYERS + 1) + k) * ns + _sidx(o, x, q, strong)


@njit(cache=True, inline="always")
def _static_table(rot0, free, flags, cardu, need, any_boost, lq, lr, lc, ln, tfree, rows, noturn, strong):
    """A second bound for the relaxed search (the static-rows distance):
    fewest turns to Earth per (units, credits held, rotation of the ship's
    own row, rotation of the row ahead, cell), as ``[units - u_low, credits,
    _sidx(o, x, cell, strong)]`` (``u_low``: 0, or UTOP for a table with
    that layer alone): credits 0 .. CREDIT_LAYERS - 1, the last layer any
    number; ``o`` the rotation of the cell's row, ``x`` that of the row
    ahead of it (0-4), either ``ANY_X``: the least over the five (a row that
    may show anything, or none). A turn is a Fly or a wait; a wait turns the
    row ahead (the re-scan, §8) and may earn a credit (a Deep Scan), a unit
    (Shields) or shift the row ahead once more (a Deep Scan on it); a Fly's
    stop turns the row ahead of where it stops. The ship's own row never
    turns while the ship is in it (a re-scan turns the row ahead, and no
    Deep Scan shifts the ship's row, [D14]), so a Fly along it meets the
    cards its rotation puts there. Along a Fly up, the row ahead shows the
    card its rotation puts there, and a row two or more ahead the one
    ``rot0`` puts there, unless it is ``free`` (its rotation moved since the
    search's start: any card); a credit spent as the ship enters a row
    shifts it one place; the row the Fly stops in keeps the rotation it was
    entered at. The rows below may show any card: a flight down may come
    back under rows turned since, so from where it stops the table is
    ``tfree``, the table with every row free (``every_row_free``; ``tfree``
    with no rows: that table itself). Any card shows either face. The Flies
    along the ship's own row read no rotation: they are ``rows``
    (``row_edges``), made once for every table of a kind.

    Units are shields and held samples together (a bolster turns a sample
    into a shield at no turn, [D9]): a stop on a card with no face the ship
    may stop on without shields (``cardu``'s FREE_STOP) takes two units,
    held before the Fly; a card entered that may carry a virus token
    (HAS_TOKEN at the root: tokens are only ever taken away) gives one, as
    often as it is entered. The token goes with its card: in a row that may
    show any card, a stop gives one only on a card with a token (with that
    card's need of shields), a Fly on past the row only when such a card is
    a boost; in a row at a known rotation, only the card each shift puts
    there. (Counting a token for every card of its row let a stop on an E
    take the token of an asteroid beside it; docs/SOLVER.md, "Twenty-first
    session".) A Shields wait gives one; Earth takes ``need``
    (the samples it wants, counted among the units). Where the relaxed game
    has three or more units, or three held samples (its count stops there,
    "3 or more"), the table reads layer UTOP, which counts neither shields
    nor samples; a layer that would reach three goes to it. Every relaxed
    way is a way of the table, step for step, with no fewer credits or
    units, so the table never exceeds the relaxed game's distance. Computed
    by a backward breadth-first search from Earth. ``noturn``: also every
    move without the turn's end (a Fly that does not turn the row ahead, a
    credit wait that turns nothing), as the first action of a turn with the
    §12 second action (relaxed.py, "A second action"), each a step;
    ``tfree`` is then such a table too. A move without the turn's end costs
    a sample, which this table does not count: only its layer UTOP is a
    bound, and the others are set to it. Without ``strong`` the table
    counts no units (every layer is UTOP's) and knows no rotation of the
    ship's own row: a Fly along it meets consecutive cards of any one
    rotation, and only the columns of ``o`` = ANY_X are filled (a fifth of
    the work: the relaxed search starts with these, ``relaxed.STRONG_AFTER``)."""
    top = CREDIT_LAYERS
    ns = NX * NX * N_CELLS if strong else NX * N_CELLS
    has_tfree = tfree.shape[0] > 0
    units = strong and not noturn
    # The unit layers the table has (from u_low to UTOP; its first index
    # counts from u_low), and the rotations of the ship's own row it tells
    # apart.
    u_low = 0 if units else UTOP
    n_u = UNITS - u_low
    o_lo, o_hi = (0, 5) if strong else (ANY_X, ANY_X + 1)
    # Per row that may show any card: whether a stop needs the shields on a
    # card with a virus token (``stop_sn[r, 1]``) and on one without
    # (``stop_sn[r, 0]``): 0 when some such card has a face to stop on
    # without them, 1 when only with them, -1 when none can be stopped on;
    # and whether a card with a token lets the Fly go on (a boost). The token
    # goes with the card met: a stop on a card without one takes none.
    stop_sn = np.full((7, 2), -1, dtype=np.int64)
    tok_boost = np.zeros(7, dtype=np.bool_)
    for r in range(7):
        for j in range(5):
            if not flags[r, j] & DEADLY:
                w = 1 if cardu[r, j] & HAS_TOKEN else 0
                if flags[r, j] & CAN_STOP:
                    sn = 0 if cardu[r, j] & FREE_STOP else 1
                    if stop_sn[r, w] < 0 or sn < stop_sn[r, w]:
                        stop_sn[r, w] = sn
                if w and flags[r, j] & CAN_BOOST:
                    tok_boost[r] = True
    earth = _sidx(ANY_X, ANY_X, EARTH_IDX, strong)
    # (units, credits, cell) -> 1 + the every-row-free table at a stop of a
    # flight down from the cell: a bound a way starting with that flight
    # meets, whatever the rotations.
    if has_tfree and (tfree.shape[0] != n_u or tfree.shape[2] != ns):
        raise ValueError("tfree is a table of another kind (strong, noturn)")
    if rows.shape[0] and rows[0, KIND] != _kind(noturn, strong):
        raise ValueError("rows are edges of another kind (strong, noturn)")
    seeds = np.full((n_u, top + 1, N_CELLS), INF, dtype=np.int64)
    # Fly edges: from state (its own row's rotation -1: every rotation, the
    # Fly does not depend on it), to state, credit-layer bits of the credits
    # used, whether the stop needs the shields, cards entered that may
    # carry a token.
    ne = rows.shape[0]
    cap = max(2048, 2 * ne)
    e_src = np.empty(cap, dtype=np.int64)
    e_dst = np.empty(cap, dtype=np.int64)
    e_m = np.empty(cap, dtype=np.int64)
    e_sn = np.empty(cap, dtype=np.int64)
    e_tk = np.empty(cap, dtype=np.int64)
    e_o = np.empty(cap, dtype=np.int64)
    for e in range(ne):
        e_src[e] = rows[e, 0]
        e_dst[e] = rows[e, 1]
        e_m[e] = rows[e, 2]
        e_sn[e] = rows[e, 3]
        e_tk[e] = rows[e, 4]
        e_o[e] = rows[e, 5]
    for pi in range(N_CELLS - 1):
        ahead = CELL_ROW[pi]  # 0-based index of the row ahead (7: none)
        for d in range(4):
            if DR[d] == 0:
                continue  # (along the ship's own row: ``rows``)
            if DR[d] < 0 and has_tfree:
                # Down: past rows that may show any card, no credit spent.
                t = 0
                for k in range(ln[pi, d]):
                    qi = lq[pi, d, k]
                    ri = lr[pi, d, k]
                    for w in range(2):
                        sn = stop_sn[ri, w]
                        if sn < 0:
                            continue
                        for u in range(u_low, UNITS):
                            u2 = _units_after(u, sn, t + w)
                            if u2 < 0:
                                continue
                            for c in range(top + 1):
                                v = 1 + tfree[u2 - u_low, c, _sidx(ANY_X, ANY_X, qi, strong)]
                                if v < seeds[u - u_low, c, pi]:
                                    seeds[u - u_low, c, pi] = v
                    if not any_boost[ri]:
                        break
                    if tok_boost[ri]:
                        t += 1
                continue
            for x in range(5):
                cur = 1
                t = 0
                for k in range(ln[pi, d]):
                    qi = lq[pi, d, k]
                    ri = lr[pi, d, k]
                    col = lc[pi, d, k]
                    if ne + 12 > e_src.shape[0]:
                        e_src, e_dst, e_m, e_sn, e_tk, e_o = _edges_grown(e_src, e_dst, e_m, e_sn, e_tk, e_o)
                    if qi == EARTH_IDX:
                        e_src[ne] = _sidx(0, x, pi, strong)
                        e_o[ne] = -1
                        e_dst[ne] = earth
                        e_m[ne] = cur
                        e_sn[ne] = 0
                        e_tk[ne] = t
                        ne += 1
                        break
                    # The row ahead of the stop: turned by the stop's
                    # re-scan, known when it kept the start's rotation.
                    if ri + 1 < 7 and not (free >> (ri + 1)) & 1:
                        xd = (rot0[ri + 1] + 1) % 5
                        xd_nt = rot0[ri + 1] % 5
                    else:
                        xd = ANY_X
                        xd_nt = -1
                    nxt = 0
                    n_opt = 0
                    if ri != ahead and (ri < ahead or (free >> ri) & 1):
                        # Any card: the row's rotation unknown after the stop.
                        # A stop on a card with a token, or on one without
                        # (left out where the first needs no more shields).
                        for w in range(1, -1, -1):
                            sn = stop_sn[ri, w]
                            if sn < 0 or (w == 0 and 0 <= stop_sn[ri, 1] <= sn):
                                continue
                            _opt(e_src, e_dst, e_m, e_sn, e_tk, e_o, ne + n_opt, x, pi, ANY_X, xd, qi, cur, sn,
                                 t + w, strong)
                            n_opt += 1
                        nxt = cur if any_boost[ri] else 0
                        if tok_boost[ri]:
                            t += 1
                    else:
                        # The card there (either face), or with n credits the
                        # row shifted n places (a credit shifts a row by one),
                        # which the row keeps while the ship stops in it.
                        base = x if ri == ahead else rot0[ri]
                        s0 = (col + base) % 5
                        stop = 0  # (without ``strong``: one edge for every shift)
                        t_on = t  # (a Fly on past a card with a token: one more)
                        for sft in range(5):
                            j = (s0 + sft) % 5
                            f = flags[ri, j]
                            if f & DEADLY:
                                continue
                            m = cur if sft == 0 else _more(cur, sft)
                            w = 1 if cardu[ri, j] & HAS_TOKEN else 0
                            if f & CAN_STOP:
                                if strong:
                                    sn = 0 if cardu[ri, j] & FREE_STOP else 1
                                    _opt(e_src, e_dst, e_m, e_sn, e_tk, e_o, ne + n_opt, x, pi, (base + sft) % 5,
                                         xd, qi, m, sn, t + w, strong)
                                    n_opt += 1
                                else:
                                    stop |= m
                            if f & CAN_BOOST:
                                nxt |= m
                                if w:
                                    t_on = t + 1
                        if stop:
                            _opt(e_src, e_dst, e_m, e_sn, e_tk, e_o, ne, x, pi, ANY_X, xd, qi, stop, 0, t, strong)
                            n_opt += 1
                        t = t_on
                    if noturn and xd_nt >= 0:
                        # No turn's end: the row ahead keeps its rotation.
                        for i in range(ne, ne + n_opt):
                            j = i + n_opt
                            e_src[j] = e_src[i]
                            e_o[j] = e_o[i]
                            e_dst[j] = e_dst[i] - (xd - xd_nt) * N_CELLS
                            e_m[j] = e_m[i]
                            e_sn[j] = e_sn[i]
                            e_tk[j] = e_tk[i]
                        n_opt *= 2
                    ne += n_opt
                    cur = nxt
                    if not cur:
                        break
    # The edges by the state they lead to.
    start = np.zeros(ns + 1, dtype=np.int64)
    for e in range(ne):
        start[e_dst[e] + 1] += 1
    for s in range(ns):
        start[s + 1] += start[s]
    fill = start.copy()
    by_src = np.empty(ne, dtype=np.int64)
    by_o = np.empty(ne, dtype=np.int64)
    by_b = np.empty(ne, dtype=np.int64)  # the fewest credits the Fly uses
    by_sn = np.empty(ne, dtype=np.int64)
    by_tk = np.empty(ne, dtype=np.int64)
    for e in range(ne):
        i = fill[e_dst[e]]
        by_src[i] = e_src[e]
        by_o[i] = e_o[e]
        by_b[i] = _fewest(e_m[e])
        by_sn[i] = e_sn[e]
        by_tk[i] = e_tk[e]
        fill[e_dst[e]] += 1
    seeds_max = 0
    for u in range(u_low, UNITS):
        for c in range(top + 1):
            for i in range(N_CELLS):
                if seeds[u - u_low, c, i] < INF and seeds[u - u_low, c, i] > seeds_max:
                    seeds_max = seeds[u - u_low, c, i]
    table = np.full((n_u, top + 1, ns), INF, dtype=np.int64)
    # (units, credits, the source of a Fly that does not depend on the own
    # row's rotation) -> the cost at which the search reached it
    upv = np.full((n_u, top + 1, NX * N_CELLS if strong else 0), INF, dtype=np.int64)
    n_all = n_u * (top + 1) * ns
    fr_s = np.empty(n_all, dtype=np.int64)
    fr_k = np.empty(n_all, dtype=np.int64)
    fr_u = np.empty(n_all, dtype=np.int64)
    nx_s = np.empty(n_all, dtype=np.int64)
    nx_k = np.empty(n_all, dtype=np.int64)
    nx_u = np.empty(n_all, dtype=np.int64)
    nf = 0
    for u in range(u_low, UNITS):
        if u < need and u != UTOP:
            continue  # Earth refuses the landing
        for k in range(top + 1):
            for o in range(o_lo, NX):
                for x in range(NX):
                    table[u - u_low, k, _sidx(o, x, EARTH_IDX, strong)] = 0
            fr_s[nf] = earth
            fr_k[nf] = k
            fr_u[nf] = u
            nf += 1

    def reach(u, k, s, g, nn):
        # The search reaches state ``s`` with ``k`` credits and ``u`` units at
        # cost ``g``: kept when new, with its cell's least over the rotations
        # of either row (``ANY_X``). A closure: as a helper taking the arrays
        # it was three times slower (Numba counted their references at each
        # call).
        ul = u - u_low
        if table[ul, k, s] <= g:
            return nn
        q = s % N_CELLS
        ox = s // N_CELLS
        for w in range(4 if strong else 3):
            if w == 0:
                t = s
            elif not strong:
                if w == 2:
                    break
                t = ANY_X * N_CELLS + q
                if t == s:
                    break
            else:
                o = ox // NX
                x = ox - o * NX
                if (w & 1 and o == ANY_X) or (w & 2 and x == ANY_X):
                    continue
                t = _sidx(ANY_X if w & 1 else o, ANY_X if w & 2 else x, q, True)
            if table[ul, k, t] > g:
                table[ul, k, t] = g
                nx_s[nn] = t
                nx_k[nn] = k
                nx_u[nn] = u
                nn += 1
        return nn

    g = 0
    while nf or g < seeds_max:
        g += 1
        nn = 0
        if g <= seeds_max:
            for u in range(u_low, UNITS):
                for c in range(top + 1):
                    for i in range(N_CELLS):
                        if seeds[u - u_low, c, i] == g:
                            for o in range(o_lo, o_hi):
                                for x in range(5):
                                    nn = reach(u, c, _sidx(o, x, i, strong), g, nn)
        for a in range(nf):
            s = fr_s[a]
            k = fr_k[a]
            u = fr_u[a]
            for e in range(start[s], start[s + 1]):
                if k == top:
                    kp = top
                else:
                    kp = k + by_b[e]
                    if kp >= top:
                        continue
                # The unit layers the Fly comes from (``_units_after``
                # turned around): one finite layer, or from UTOP those
                # whose units reach three, and UTOP itself.
                sn2 = 2 * by_sn[e]
                if not units:
                    # (UTOP alone, the same for every rotation of the own row
                    # without ``strong``)
                    if not strong:
                        nn = reach(UTOP, kp, by_src[e], g, nn)
                        continue
                    up_lo = UTOP
                    up_hi = UNITS
                elif u == UTOP:
                    up_lo = min(max(u_low, sn2, UTOP + sn2 - by_tk[e]), UTOP)
                    up_hi = UNITS
                else:
                    up_lo = u + sn2 - by_tk[e]
                    up_hi = up_lo + 1
                    if up_lo < max(u_low, sn2) or up_lo >= UTOP:
                        continue
                for up in range(up_lo, up_hi):
                    if by_o[e] >= 0:
                        nn = reach(up, kp, by_src[e], g, nn)
                    elif upv[up - u_low, kp, by_src[e]] > g:
                        # The same for every rotation of the own row: once.
                        upv[up - u_low, kp, by_src[e]] = g
                        for o in range(o_lo, o_hi):
                            nn = reach(up, kp, by_src[e] + (o - o_lo) * NX * N_CELLS, g, nn)
            q = s % N_CELLS
            ox = s // N_CELLS
            o = ox // NX if strong else ANY_X
            xl = ox % NX
            if xl < 5 and o_lo <= o < o_hi and q != EARTH_IDX:
                # Waits: the row ahead turns once, a credit earned (a plain
                # wait does no better: more credits never hurt) or a unit
                # (Shields), or twice (a Deep Scan shift of it, then the
                # re-scan).
                s1 = _sidx(o, (xl + 4) % 5, q, strong)
                if k >= 1:
                    nn = reach(u, k - 1, s1, g, nn)
                    if noturn:
                        nn = reach(u, k - 1, s, g, nn)  # a credit wait that turns nothing
                if k == top:
                    nn = reach(u, k, s1, g, nn)
                if units:
                    if u == UTOP:
                        nn = reach(UTOP - 1, k, s1, g, nn)
                    elif u >= 1:
                        nn = reach(u - 1, k, s1, g, nn)
                nn = reach(u, k, _sidx(o, (xl + 3) % 5, q, strong), g, nn)
        for a in range(nn):
            fr_s[a] = nx_s[a]
            fr_k[a] = nx_k[a]
            fr_u[a] = nx_u[a]
        nf = nn
    for u in range(n_u):
        for k in range(1, top + 1):
            for s in range(ns):
                if table[u, k - 1, s] < table[u, k, s]:
                    table[u, k, s] = table[u, k - 1, s]
    for u in range(1, n_u):
        for k in range(top + 1):
            for s in range(ns):
                if table[u - 1, k, s] < table[u, k, s]:
                    table[u, k, s] = table[u - 1, k, s]
    return table


# The columns of ``row_edges``: a Fly edge's from state, to state, credit
# layers, stop needing the shields, tokens, own row's rotation; the kind of
# table the edges are for (``_kind``).
KIND = 6


@njit(cache=True, inline="always")
def _kind(noturn, strong):
    return (2 if strong else 0) + (1 if noturn else 0)


@njit(cache=True)
def row_edges(flags, cardu, lq, lr, lc, ln, noturn, strong):
    """The Fly edges of ``static_table`` along the ship's own row, at its
    rotation (any one of the five without ``strong``): they read no other
    row's rotation, so one set serves every table of a kind (made once for
    each, they took two fifths of a weak table's time). The stop turns the
    row ahead (a flip is within "either face"). One edge a row, columns as
    ``KIND`` says."""
    o_lo, o_hi = (0, 5) if strong else (ANY_X, ANY_X + 1)
    earth = _sidx(ANY_X, ANY_X, EARTH_IDX, strong)
    # (at most 7 rows x 20 pairs of cells x 5 x 5 rotations x 2: 7,000)
    out = np.empty((16384, KIND + 1), dtype=np.int64)
    ne = 0
    tkmax = np.zeros(8, dtype=np.int64)
    for pi in range(N_CELLS - 1):
        ahead = CELL_ROW[pi]  # 0-based index of the row ahead (7: none)
        for d in range(4):
            if DR[d] != 0:
                continue
            for o in range(o_lo, o_hi):
                stop_free = 0
                stop_sh = 0
                for k in range(8):
                    tkmax[k] = 0
                for rho in range(o if o < 5 else 0, o + 1 if o < 5 else 5):
                    t = 0
                    for k in range(ln[pi, d]):
                        qi = lq[pi, d, k]
                        if qi == EARTH_IDX:
                            stop_free |= 1 << k
                            tkmax[k] = max(tkmax[k], t)
                            break
                        ri = lr[pi, d, k]
                        j = (lc[pi, d, k] + rho) % 5
                        f = flags[ri, j]
                        if f & DEADLY:
                            break
                        if cardu[ri, j] & HAS_TOKEN:
                            t += 1
                        if f & CAN_STOP:
                            if cardu[ri, j] & FREE_STOP:
                                stop_free |= 1 << k
                            else:
                                stop_sh |= 1 << k
                            tkmax[k] = max(tkmax[k], t)
                        if not f & CAN_BOOST:
                            break
                for k in range(ln[pi, d]):
                    qi = lq[pi, d, k]
                    sn = 0 if (stop_free >> k) & 1 else 1 if (stop_sh >> k) & 1 else -1
                    t = tkmax[k]
                    if sn >= 0:
                        for x in range(5):
                            out[ne, 0] = _sidx(o, x, pi, strong)
                            out[ne, 5] = o
                            if qi == EARTH_IDX:
                                out[ne, 1] = earth
                            elif ahead >= 7:
                                out[ne, 1] = _sidx(o, ANY_X, qi, strong)
                            else:
                                out[ne, 1] = _sidx(o, (x + 1) % 5, qi, strong)
                            out[ne, 2] = 1
                            out[ne, 3] = sn
                            out[ne, 4] = t
                            ne += 1
                            if noturn and qi != EARTH_IDX and ahead < 7:
                                out[ne, 0] = _sidx(o, x, pi, strong)
                                out[ne, 5] = o
                                out[ne, 1] = _sidx(o, x, qi, strong)
                                out[ne, 2] = 1
                                out[ne, 3] = sn
                                out[ne, 4] = t
                                ne += 1
    for e in range(ne):
        out[e, KIND] = _kind(noturn, strong)
    return out[:ne].copy()


@njit(cache=True)
def weak_table(rot0, free, flags, cardu, need, any_boost, lq, lr, lc, ln, tfree, rows, noturn):
    """``static_table`` without ``strong``, compiled apart: its code with
    ``strong`` a constant (a strong table took about 15 % less time so than
    with ``strong`` an argument, a weak one a few per cent)."""
    return _static_table(rot0, free, flags, cardu, need, any_boost, lq, lr, lc, ln, tfree, rows, noturn, False)


@njit(cache=True)
def strong_table(rot0, free, flags, cardu, need, any_boost, lq, lr, lc, ln, tfree, rows, noturn):
    """``static_table`` with ``strong``, compiled apart (``weak_table``)."""
    return _static_table(rot0, free, flags, cardu, need, any_boost, lq, lr, lc, ln, tfree, rows, noturn, True)


def static_table(rot0: tuple[int, ...], free: int, flags: np.ndarray, cardu: np.ndarray, need: int,
                 any_boost: np.ndarray, lq: np.ndarray, lr: np.ndarray, lc: np.ndarray,
                 ln: np.ndarray, tfree: np.ndarray, noturn: bool = False, strong: bool = True,
                 rows: np.ndarray | None = None) -> np.ndarray:
    """``_static_table``, the kind ``strong`` says (``rows``: made here if
    not given)."""
    if rows is None:
        rows = row_edges(flags, cardu, lq, lr, lc, ln, noturn, strong)
    made = strong_table if strong else weak_table
    return made(rot0, free, flags, cardu, need, any_boost, lq, lr, lc, ln, tfree, rows, noturn)


@njit(cache=True, inline="always")
def _opt(e_src, e_dst, e_m, e_sn, e_tk, e_o, i, x, pi, o2, xd, qi, m, sn, tk, strong):
    """Fly edge ``i`` of ``static_table``: from rotation ``x`` ahead at cell
    ``pi`` (any rotation of its own row) to a stop at ``qi``, its row then
    at rotation ``o2``, the row ahead at ``xd``."""
    e_src[i] = _sidx(0, x, pi, strong)
    e_o[i] = -1
    e_dst[i] = _sidx(o2, xd, qi, strong)
    e_m[i] = m
    e_sn[i] = sn
    e_tk[i] = tk


@njit(cache=True)
def _edges_grown(a, b, c, d, e, f):
    return (np.concatenate((a, np.empty_like(a))), np.concatenate((b, np.empty_like(b))),
            np.concatenate((c, np.empty_like(c))), np.concatenate((d, np.empty_like(d))),
            np.concatenate((e, np.empty_like(e))), np.concatenate((f, np.empty_like(f))))


@njit(cache=True, inline="always")
def _fewest(umask):
    """The fewest credits a Fly line's credit-layer bits allow."""
    low = umask & -umask
    b = 0
    while low > 1:
        low >>= 1
        b += 1
    return b


NO_TABLE = np.empty((0, CREDIT_LAYERS + 1, NX * NX * N_CELLS), dtype=np.int64)


NO_ROWS = np.empty((0, KIND + 1), dtype=np.int64)


def every_row_free(flags: np.ndarray, cardu: np.ndarray, need: int, any_boost: np.ndarray, noturn: bool = False,
                   strong: bool = True, rows: np.ndarray | None = None) -> np.ndarray:
    """``static_table`` with every row free: the ``tfree`` of the others
    (``noturn``, ``strong``: of those with them)."""
    return static_table((0,) * 7, 127, flags, cardu, need, any_boost,
                        LINES_Q, LINES_R, LINES_C, LINES_N, NO_TABLE, noturn, strong, rows)


@njit(cache=True, inline="always")
def _row_bits(moved):
    """The bits of a packed rotation (3 a row) of the rows in ``moved``."""
    out = 0
    for r in range(7):
        if (moved >> r) & 1:
            out |= 7 << (3 * r)
    return out


# Keys of the kept static-rows tables (``new_static_cache``), by kind: the
# weak tables take 8.9 kB each, the strong ones 24 times that.
STATIC_CACHE = 1 << 12
STRONG_CACHE = 1 << 10


def new_static_cache(count: np.ndarray | None = None,
                     strong: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Static-rows tables (``static_table``) kept across the searches of one
    instance, by the start's rotations of the rows not moved and the moved
    rows: keys (open addressing as ``_slot5`` on the first five columns: key,
    0, 0, 0, 0; then the table's index), tables (of the kind ``strong``
    says, each flat in a row as long as the largest of that kind: a row per
    table, in the order made, so a solve touches only the pages it fills),
    count (``count`` if given: the tables kept, set to 0, then the
    searches' pops, which ``search`` adds to). The caller starts it over
    when half the keys are taken; a search adds at most 256 (128 with one
    action a turn)."""
    if count is None:
        count = np.zeros(2, dtype=np.int64)
    count[0] = 0
    keys = STRONG_CACHE if strong else STATIC_CACHE
    size = UNITS * (CREDIT_LAYERS + 1) * NX * NX * N_CELLS if strong else (CREDIT_LAYERS + 1) * NX * N_CELLS
    return (
        np.full((keys, 6), -1, dtype=np.int64),
        np.empty((keys // 2 + 256, size), dtype=np.int64),
        count,
    )


# The highest of three rows (0-2) whose rotations, 3 bits each in a 9-bit
# word, are not all 0.
TOP_OF_THREE = np.array([0 if x < 8 else 1 if x < 64 else 2 for x in range(512)], dtype=np.int64)


@njit(cache=True, inline="always")
def _highest_moved(diff, at_least):
    """The highest row (0-6) whose 3 bits in ``diff`` (packed rotations, XOR
    the start's) are not all 0, or ``at_least`` if that is higher (at least
    1: row 0 need not be looked at). Three rows at a time: the static-rows
    bound asks for every successor, most of which it cuts."""
    top = at_least
    if diff >> 12:
        top = max(top, 4 + TOP_OF_THREE[diff >> 12])
    elif diff >> 3:
        top = max(top, 1 + TOP_OF_THREE[(diff >> 3) & 511])
    return top


# ----------------------------------------------------------------------------
# Pattern sets (as in solver/model.py: bit m set when flip pattern m of a row's
# five slots is still possible) and the learned-bounds table
# ----------------------------------------------------------------------------

EMPTY = -1
MAX_LOAD = 0.6
# The learned table grows up to this many rows (117 MB): ``relaxed.LEARNED_LIMIT``
# entries at most MAX_LOAD of them taken.
LEARNED_ROWS = 1 << 21
A_LOW = np.array([sum(1 << m for m in range(32) if not (m >> j) & 1) for j in range(5)], dtype=np.int64)
FULL = (1 << 32) - 1



def _behind() -> np.ndarray:
    """Per ship row (1-7), the pattern-set words with every row two or more
    below it set to all patterns (to be OR-ed in)."""
    words = [[0] * 4 for _ in range(8)]
    for nr in range(1, 8):
        for r in range(nr - 2):  # 0-based rows 0 .. nr-3: rows 1 .. nr-2
            words[nr][r >> 1] |= FULL << (32 * (r & 1))
    # as the kernel's signed 64-bit words
    return np.array([[w - (1 << 64) if w >> 63 else w for w in row] for row in words], dtype=np.int64)


BEHIND = _behind()
# Per ship row (1-7), the rotation bits of the rows three or more below it, as
# WILD (OR-ed into a packed rotation: a search's ``behind_rot``); KEEP_ROWS:
# none.
BEHIND_ROT = np.array([sum(WILD << (3 * r) for r in range(nr - 3)) for nr in range(8)], dtype=np.int64)
KEEP_ROWS = np.zeros(8, dtype=np.int64)


@njit(cache=True, inline="always")
def _xor_set(s, j):
    k = 1 << j
    lo = A_LOW[j]
    return ((s & lo) << k) | ((s >> k) & lo)


@njit(cache=True)
def _rescan(s, r, ch, nch, full):
    """Every pattern a re-scan of row ``r`` can leave from the set ``s``
    (``full``: any pattern, see relaxed.py on 'reveal once')."""
    if full:
        return FULL
    out = 0
    x = s
    while x:
        low = x & -x
        m = 0
        while (low >> m) > 1:
            m += 1
        x ^= low
        n = nch[r, m]
        if n == 0:
            out |= 1 << m
        for k in range(n):
            out |= 1 << (m ^ ch[r, m, k])
    return out


@njit(cache=True, inline="always")
def _mget(ms, r):
    return (ms[r >> 1] >> (32 * (r & 1))) & FULL


@njit(cache=True, inline="always")
def _set6(arr, i, a, b, c, d, e, f, off=0):
    """Six columns of row ``i`` from column ``off``."""
    arr[i, off] = a
    arr[i, off + 1] = b
    arr[i, off + 2] = c
    arr[i, off + 3] = d
    arr[i, off + 4] = e
    arr[i, off + 5] = f


@njit(cache=True, inline="always")
def _set_work(work, i, r, c, held, sh, rot, cr, crh, fo, m0, m1, m2, m3):
    """A boost chain's pending step: position, held, shields, rotations,
    credits and the rows' pattern sets."""
    _set6(work, i, r, c, held, sh, rot, cr)
    _set6(work, i, crh, fo, m0, m1, m2, m3, 6)


@njit(cache=True, inline="always")
def _slot6(tab, k0, k1, k2, k3, k4, k5):
    """The row of ``tab`` (open addressing on six key words; the value, in
    column 6, EMPTY when free) holding the key, or the free row where it
    goes."""
    mask = tab.shape[0] - 1
    h = k0
    h = (h ^ (k1 * 0x5851F42D4C957F2D)) * 0x2545F4914F6CDD1D
    h = (h ^ (k2 * 0x5851F42D4C957F2D)) * 0x2545F4914F6CDD1D
    h = (h ^ (k3 * 0x5851F42D4C957F2D)) * 0x2545F4914F6CDD1D
    h = (h ^ (k4 * 0x5851F42D4C957F2D)) * 0x2545F4914F6CDD1D
    h = (h ^ (k5 * 0x5851F42D4C957F2D)) * 0x2545F4914F6CDD1D
    h ^= h >> 31
    i = h & mask
    while True:
        if tab[i, 6] == EMPTY or (
            tab[i, 0] == k0
            and tab[i, 1] == k1
            and tab[i, 2] == k2
            and tab[i, 3] == k3
            and tab[i, 4] == k4
            and tab[i, 5] == k5
        ):
            return i
        i = (i + 1) & mask


@njit(cache=True, inline="always")
def _key_put(tab, count, k0, k1, k2, k3, k4, k5, v):
    """Open addressing on (six key words) -> value. ``v`` = EMPTY: a lookup
    (EMPTY when absent). Otherwise store the larger of ``v`` and what is
    there; -2 (nothing stored) when the table is too full for a new key."""
    i = _slot6(tab, k0, k1, k2, k3, k4, k5)
    if tab[i, 6] == EMPTY:
        if v == EMPTY:
            return EMPTY  # lookup miss
        if count[0] + 1 > MAX_LOAD * tab.shape[0]:
            return -2
        _set6(tab, i, k0, k1, k2, k3, k4, k5)
        tab[i, 6] = v
        count[0] += 1
        return v
    if v != EMPTY and v > tab[i, 6]:
        tab[i, 6] = v
    return tab[i, 6]


def new_table(capacity: int = 1 << 14) -> np.ndarray:
    """An empty table of learned bounds: rows (six key words, value)."""
    return np.full((capacity, 7), EMPTY, dtype=np.int64)


# The ways table's rows: six key words, the turns of the way found, the
# packed state after its first turn (``_upper_put``).
WAYS_COLUMNS = 8


def new_ways_table(capacity: int = 1 << 10) -> np.ndarray:
    """An empty ways table (``search``'s ``upper``)."""
    return np.full((capacity, WAYS_COLUMNS), EMPTY, dtype=np.int64)


@njit(cache=True)
def table_rehash(old, new, count):
    count[0] = 0
    for i in range(old.shape[0]):
        if old[i, 6] != EMPTY:
            _key_put(new, count, old[i, 0], old[i, 1], old[i, 2], old[i, 3], old[i, 4], old[i, 5], old[i, 6])


@njit(cache=True, inline="always")
def _slot5(tab, a, b, c, d, e):
    """The row of ``tab`` (open addressing, column 0 = -1 when free) holding
    the key (a, b, c, d, e), or the free row where it goes."""
    mask = tab.shape[0] - 1
    h = a * 0x5851F42D4C957F2D
    h = (h ^ b) * 0x2545F4914F6CDD1D
    h = (h ^ c) * 0x5851F42D4C957F2D
    h = (h ^ d) * 0x2545F4914F6CDD1D
    h = (h ^ e) * 0x5851F42D4C957F2D
    h ^= h >> 31
    i = h & mask
    while True:
        k = tab[i, 0]
        if k == -1 or (
            k == a and tab[i, 1] == b and tab[i, 2] == c and tab[i, 3] == d and tab[i, 4] == e
        ):
            return i
        i = (i + 1) & mask


@njit(cache=True)
def _grown5(tab):
    new = np.full((2 * tab.shape[0], tab.shape[1]), -1, dtype=np.int64)
    for i in range(tab.shape[0]):
        if tab[i, 0] != -1:
            j = _slot5(new, tab[i, 0], tab[i, 1], tab[i, 2], tab[i, 3], tab[i, 4])
            for t in range(tab.shape[1]):
                new[j, t] = tab[i, t]
    return new


@njit(cache=True)
def _learn(dist, value, learned, learned_count, vir):
    """A search from S ended with "S needs ``value`` turns": every state s it
    reached at cost g needs at least value - g more. The table (returned)
    doubles when too full, up to ``LEARNED_ROWS`` rows, then the rest is
    not learned (speed only). (Grown only between searches, one long
    search kept a fraction of what it proved, and the searches after it
    redid the work: docs/SOLVER.md, "Seeds 654, 3366 and 7919".)"""
    for i in range(dist.shape[0]):
        if dist[i, 0] == -1:
            continue
        v = value - dist[i, 5]
        if v > 1:
            got = _key_put(
                learned, learned_count, dist[i, 0], dist[i, 1], dist[i, 2], dist[i, 3], dist[i, 4], vir, v
            )
            if got == -2:
                if 2 * learned.shape[0] > LEARNED_ROWS:
                    return learned
                grown = np.full((2 * learned.shape[0], 7), EMPTY, dtype=np.int64)
                table_rehash(learned, grown, learned_count)
                learned = grown
                _key_put(learned, learned_count, dist[i, 0], dist[i, 1], dist[i, 2], dist[i, 3], dist[i, 4], vir, v)
    return learned


@njit(cache=True, inline="always")
def _upper_get(tab, k0, k1, k2, k3, k4, k5):
    """The fewest turns of a relaxed win found from the state (six key
    words), or EMPTY (``tab`` as ``new_table``)."""
    return tab[_slot6(tab, k0, k1, k2, k3, k4, k5), 6]


@njit(cache=True)
def _upper_put(tab, count, k0, k1, k2, k3, k4, k5, v, nxt):
    """Store the smaller of ``v`` and what is there, with ``nxt``: the packed
    state after the first turn of the way of ``v`` turns (EARTH_IDX when
    that turn wins); the table returned, doubled when half full."""
    if 2 * (count[0] + 1) > tab.shape[0]:
        new = np.full((2 * tab.shape[0], WAYS_COLUMNS), EMPTY, dtype=np.int64)
        count[0] = 0
        for i in range(tab.shape[0]):
            if tab[i, 6] != EMPTY:
                _upper_put(new, count, tab[i, 0], tab[i, 1], tab[i, 2], tab[i, 3], tab[i, 4], tab[i, 5], tab[i, 6],
                           tab[i, 7])
        tab = new
    i = _slot6(tab, k0, k1, k2, k3, k4, k5)
    if tab[i, 6] == EMPTY:
        _set6(tab, i, k0, k1, k2, k3, k4, k5)
        tab[i, 6] = v
        tab[i, 7] = nxt
        count[0] += 1
    elif v < tab[i, 6]:
        tab[i, 6] = v
        tab[i, 7] = nxt
    return tab


@njit(cache=True)
def _record_way(trail, t, goal, upper, upper_count, vir, last):
    """A way to Earth of ``goal`` turns was found through trail record
    ``t``: each state on the way there (the record, its parent, ...) wins
    within ``goal`` less its cost, its next state on the way kept with it
    (``last`` after record ``t``: EARTH_IDX, or the state whose kept way
    the way goes on by)."""
    nxt = last
    while t >= 0:
        upper = _upper_put(upper, upper_count, trail[t, 0], trail[t, 1], trail[t, 2], trail[t, 3], trail[t, 4],
                           vir, goal - trail[t, 5], nxt)
        nxt = trail[t, 0]
        t = trail[t, 6]
    return upper


@njit(cache=True, inline="always")
def _layer_and_rotations(a, strong):
    """What the static-rows tables read of packed state ``a`` besides its
    cell: its credit layer (all its credits, CREDIT_LAYERS or more as the
    last), the rotations of its own row (ANY_X without ``strong``) and of
    the row ahead (ANY_X where there is none or it was let go)."""
    k = ((a >> 31) & 63) + ((a >> 37) & 63) + ((a >> 43) & 63)
    if k > CREDIT_LAYERS:
        k = CREDIT_LAYERS
    ahead = CELL_ROW[a & 63]  # 0-based index of the row ahead
    xa = ANY_X
    if ahead < 7:
        xa = (a >> (6 + 3 * ahead)) & 7
        if xa == WILD:
            xa = ANY_X
    o = (a >> (6 + 3 * (ahead - 1))) & 7 if strong else ANY_X
    if o == WILD:
        o = ANY_X
    return k, o, xa


def table_column(rot: tuple[int, ...], pos: int, strong: bool = True) -> int:
    """A table's column (``_sidx``) for rotations ``rot`` (``WILD``: let
    go) at cell index ``pos``, for the tests."""
    ahead = int(CELL_ROW[pos])
    x = rot[ahead] if ahead < 7 and rot[ahead] != WILD else ANY_X
    o = rot[ahead - 1] if rot[ahead - 1] != WILD else ANY_X
    return int(_sidx(o, x, pos, strong))


@njit(cache=True, inline="always")
def _units(a):
    """The static-rows tables' unit layer of packed state ``a``: its
    shields and held samples, UTOP for three or more, or three held (the
    count stops at 3, "3 or more")."""
    held = (a >> 27) & 3
    u = held + ((a >> 29) & 3)
    return UTOP if held >= 3 or u >= UTOP else u


@njit(cache=True, inline="always")
def _pk(pos, rot, held, sh, cr, crh, fo):
    return pos | (rot << 6) | (held << 27) | (sh << 29) | (cr << 31) | (crh << 37) | (fo << 43)


@njit(cache=True, inline="always")
def _mset(ms, r, v):
    i = r >> 1
    sh = 32 * (r & 1)
    ms[i] = (ms[i] & ~(FULL << sh)) | (v << sh)


@njit(cache=True)
def _bq_grown(head, tail, gmax, fcount, f):
    """The bucket queue's tables, grown to hold priority ``f``."""
    n = head.shape[0]
    while n <= f:
        n *= 2
    h2 = np.full((n, n), -1, dtype=np.int64)
    h2[: head.shape[0], : head.shape[1]] = head
    t2 = np.full((n, n), -1, dtype=np.int64)
    t2[: tail.shape[0], : tail.shape[1]] = tail
    g2 = np.zeros(n, dtype=np.int64)
    g2[: gmax.shape[0]] = gmax
    c2 = np.zeros(n, dtype=np.int64)
    c2[: fcount.shape[0]] = fcount
    return h2, t2, g2, c2


@njit(cache=True)
def search(
    pos0, rot0, masks0, held, shields, credits, cap, need,
    flags, face, flippable, ch, nch, rescan_full, vir, to_earth, gridb, any_boost, cardu,
    lq, lr, lc, ln, learned, learned_count, grown, deadline, skeys, stabs, scount, tfree, tfree_noturn, rows,
    rows_noturn, behind_rot,
    upper, upper_count, keep_ways, strong, every_move=False, plain=False, decide=False, scan_first=False,
    track=False, second=False,
):
    """The card-free game with exact faces: the relaxed optimum from the given
    state, or ``cap`` when it is at least ``cap`` (or the guide's bound at
    the start when that reaches ``cap``: INF when no way exists). Returns (value, timed_out,
    learned table, first): ``first`` is the packed state after the first turn
    of an optimal way found (with ``decide``, of the way found within the
    cap; EARTH_IDX when that turn reaches Earth; -1 when no way under
    ``cap`` was found), and the table: ``grown`` when that is
    larger than ``learned``, which is then moved into it (the caller makes
    the larger table, with numpy, which asks the system for huge pages for
    big arrays: the table is probed at random, and with small pages most
    probes miss the TLB too; the four slowest deal setups took 6.3 s
    against 5.8 s, alternated three times; moved here rather than by a call
    from Python, as every compiled function called from Python costs a load
    from Numba's cache in each process).
    ``every_move``: also the moves another always matches (the waits a
    credit wait beats, a bolster before the flight; the tests check that
    leaving them out changes no value). ``plain``: guided by the grid
    distance alone, no static-rows table and no learned bound read (the tests
    check that the bounds change no value). ``behind_rot``: ``BEHIND_ROT``
    to let the rows three or more below the ship go at each stop, or
    ``KEEP_ROWS``. ``upper``: the ways table (state -> turns of a win found
    from it, ``_upper_get``, and the state after that way's first turn),
    returned (it grows); with ``keep_ways`` the
    way a search finds is recorded there (``_record_way``). ``decide``: only
    whether the value is under ``cap``: a stop at the first win under the
    cap (its turns returned, an upper bound), and the ways table read at
    each state reached. ``scan_first``: the first turn is a credit wait (a
    Deep Scan). ``track``: the virus tokens taken are tracked, so that a
    token is taken once (relaxed.py, "Samples"). ``second``: the §12 second
    action (relaxed.py, "A second action"): an action may be taken without
    the turn's end for a held virus, once a turn; the tokens are tracked
    then too. ``strong``: the static-rows tables that count units and know
    the ship's own row's rotation (``static_table``; ``tfree`` and
    ``tfree_noturn`` made so too; ``rows`` and ``rows_noturn``: their
    ``row_edges``). ``scount``: the number of kept tables,
    then the pops of every search so far (this one's added)."""
    tracked = track or second
    # The virus tokens' bits (``tracked``): token slot -> its bit in the
    # packed state's taken field.
    tok = np.full(35 if tracked else 0, -1, dtype=np.int64)
    n_tok = 0
    if tracked:
        for b in range(35):
            if (vir >> b) & 1:
                tok[b] = n_tok
                n_tok += 1
    if grown.shape[0] > learned.shape[0]:
        table_rehash(learned, grown, learned_count)
        learned = grown
    rot0i = 0
    for i in range(7):
        rot0i |= rot0[i] << (3 * i)
    # The rows up to the one ahead of the start count as moved for the
    # static-rows tables: from the start's row on they may show any card
    # anyway, so only cells below the start see a (weaker) difference, and
    # the tables of searches that differ only there are shared.
    passed_top = min(7, CELL_ROW[pos0] + 1) - 1  # (at least 1)
    top = CREDIT_LAYERS
    ms0 = np.zeros(4, dtype=np.int64)
    for r in range(7):
        _mset(ms0, r, masks0[r])
    # ``credits``: pending flips (flip-only credits), and pending shifts
    # (credits) from bit 8 on (``relaxed._credits``).
    cr_start = credits >> 8
    fo_start = credits & 255
    a0 = _pk(pos0, rot0i, held, shields, cr_start, 0, fo_start)
    # Best cost per state (key, g, the state after the first turn of the way
    # there), and the head of each dominance list (key, entry), in
    # open-addressing tables that double when half full. (This and the other
    # work arrays start small: most searches pop a few dozen states, and
    # filling larger ones took ~1.5 % of a solve, setups 0-199.)
    dist = np.full((1 << 6, 8), -1, dtype=np.int64)
    n_dist = 1
    i0 = _slot5(dist, a0, ms0[0], ms0[1], ms0[2], ms0[3])
    _set6(dist, i0, a0, ms0[0], ms0[1], ms0[2], ms0[3], 0)
    # The states in the order reached, each with its cost and the record it
    # was reached from (dist's column 7 points here): a way found to Earth
    # is walked back along them (``_record_way``).
    trail = np.empty((64, 7), dtype=np.int64)
    _set6(trail, 0, a0, ms0[0], ms0[1], ms0[2], ms0[3], 0)
    trail[0, 6] = -1
    n_trail = 1
    dist[i0, 7] = 0
    front = np.full((1 << 6, 6), -1, dtype=np.int64)
    n_front = 1
    # Dominance entries: shields, the three credit counts, g, next entry, and
    # the four words of pattern sets.
    ent = np.empty((64, 10), dtype=np.int64)
    _set6(ent, 0, shields, cr_start, 0, fo_start, 0, -1)
    for t in range(4):
        ent[0, 6 + t] = ms0[t]
    n_ent = 1
    pre_mask = (1 << 29) - 1  # pos, rotations, held: the dominance key
    i0 = _slot5(front, a0 & pre_mask, 0, 0, 0, 0)
    _set6(front, i0, a0 & pre_mask, 0, 0, 0, 0, 0)
    # Per set of moved rows, its static-rows table's index in the kept ones.
    tidx = np.full((2, 128), -1, dtype=np.int64)
    # Re-scans met before, in a direct-mapped cache (a typed Dict's lookups
    # cost more than most re-scans): key, value.
    rescans = np.full((RESCAN_SLOTS, 2), -1, dtype=np.int64)

    def rescan(sset, r):
        k = (sset << 3) | r
        i = ((k * 0x9E3779B97F4A7C15) >> 40) & (RESCAN_SLOTS - 1)
        if rescans[i, 0] == k:
            return rescans[i, 1]
        v = _rescan(sset, r, ch, nch, rescan_full)
        rescans[i, 0] = k
        rescans[i, 1] = v
        return v

    def static_index(moved, noturn):
        """The index in ``stabs`` of the static-rows table for rows
        ``moved`` (``noturn``: the one with the moves without the turn's
        end), made and kept when new."""
        t = tidx[noturn, moved]
        if t < 0:
            # Kept across searches (``new_static_cache``): a table reads the
            # start's rotation only of the rows that did not move. (The
            # caller starts the cache over when half full, and a search adds
            # at most 256.)
            skey = ((rot0i & ~_row_bits(moved)) << 7) | moved | (noturn << 40) | (strong << 41)
            si = _slot5(skeys, skey, 0, 0, 0, 0)
            if skeys[si, 0] == -1:
                # The tables in the order made, not by slot: a solve touches
                # only the pages it fills.
                t = scount[0]
                tf = tfree_noturn if noturn else tfree
                re = rows_noturn if noturn else rows
                if strong:
                    tab = strong_table(rot0, moved, flags, cardu, need, any_boost,
                                       lq, lr, lc, ln, tf, re, noturn == 1)
                else:
                    tab = weak_table(rot0, moved, flags, cardu, need, any_boost,
                                     lq, lr, lc, ln, tf, re, noturn == 1)
                stabs[t, : tab.size] = tab.ravel()  # (flat: a table's size depends on its kind)
                skeys[si, 0] = skey
                for u in range(1, 5):
                    skeys[si, u] = 0
                skeys[si, 5] = t
                scount[0] += 1
            t = skeys[si, 5]
            tidx[noturn, moved] = t
        return t

    def hstatic(a, enough):
        # The bounds read from arrays (the grid distances, the static-rows
        # table): asked before the hash probes into the big tables (the
        # state's best cost, the learned bounds), which miss the cache.
        pos = a & 63
        if ((a >> 27) & 3) >= need:
            h = to_earth[pos]
        else:
            h = gridb[pos]
        # With the second action, while second actions may still come (a
        # virus held or on the board beyond the ``need`` the way must end
        # with, ``free_left``), a turn may take two actions: a bound in
        # actions counts for at least half as many turns, or as many less
        # those actions (relaxed.py, "A second action").
        free_left = 0
        if second:
            left = 0
            for b in range(n_tok):
                if not (a >> (TAKEN_SHIFT + b)) & 1:
                    left += 1
            free_left = ((a >> 27) & 3) + left - need
            if free_left > 0:
                h = max((h + 1) // 2, h - free_left)
        if h >= enough or plain:
            return h
        # Rows below the highest moved one count as moved too: fewer tables
        # (~35 µs each), weaker only below the ship.
        moved = (1 << (_highest_moved(((a >> 6) & ((1 << 21) - 1)) ^ rot0i, passed_top) + 1)) - 1
        k, o, xa = _layer_and_rotations(a, strong)
        if free_left > 0:
            # The table that also has the moves without the turn's end
            # (``noturn``) counts actions, and so does the one-action
            # table's top credit layer (any shift of a row as the ship
            # enters it) at any rotation ahead, which does not depend on
            # rotations.
            # (Their layer UTOP: a second action costs a sample, which
            # the moves without the turn's end do not count.)
            x = stabs[static_index(moved, 1), _flat(strong, False, UTOP, k, o, xa, pos)]
            y = stabs[static_index(moved, 0), _flat(strong, strong, UTOP, top, ANY_X, ANY_X, pos)]
            if y > x:
                x = y
            x = max((x + 1) // 2, x - free_left)
        else:
            t = tidx[0, moved]
            if t < 0:
                t = static_index(moved, 0)
            x = stabs[t, _flat(strong, strong, _units(a) if strong else UTOP, k, o, xa, pos)]
        return x if x > h else h

    h0 = hstatic(a0, INF)
    if not plain:
        h0 = max(h0, _key_put(learned, learned_count, a0, ms0[0], ms0[1], ms0[2], ms0[3], vir, EMPTY))
    if h0 >= cap:
        # "At least h0" (``relaxed.RelaxedBound.turns`` deepens from it); an
        # infinite guide is a proof (it never exceeds the relaxed distance):
        # no relaxed way to Earth at all.
        return h0, False, learned, -1, upper
    if decide and not plain and not scan_first:
        # A win found before from the start itself, within the cap.
        i0 = _slot6(upper, a0, ms0[0], ms0[1], ms0[2], ms0[3], vir)
        u0 = upper[i0, 6]
        if u0 != EMPTY and u0 < cap:
            return u0, False, learned, upper[i0, 7], upper
    # The open list: a bucket queue, as the costs are small integers. A
    # bucket per (f, g), popped lowest f first, then highest g (the deepest,
    # as a heap on (f, -g) would), first in first out within a bucket (last in
    # first out found other optimal ways, whose first turns, ``first``, guided
    # the outer search worse: open mode's fewest-turns median went from 12 to
    # 18 ms); an entry is a state (a, m0..m3) and the next entry of its bucket
    # (or, once popped, the next free entry: entries are reused).
    pool = np.empty((64, 6), dtype=np.int64)
    free_e = -1
    bq_head = np.full((16, 16), -1, dtype=np.int64)
    bq_tail = np.full((16, 16), -1, dtype=np.int64)
    gmax = np.zeros(16, dtype=np.int64)
    fcount = np.zeros(16, dtype=np.int64)
    if h0 >= bq_head.shape[0]:
        bq_head, bq_tail, gmax, fcount = _bq_grown(bq_head, bq_tail, gmax, fcount, h0)
    _set6(pool, 0, a0, ms0[0], ms0[1], ms0[2], ms0[3], -1)
    bq_head[h0, 0] = 0
    bq_tail[h0, 0] = 0
    fcount[h0] = 1
    n_pool = 1
    fcur = h0
    best_goal = INF
    best_first = -1
    best_tr = -1
    best_next = EARTH_IDX  # the state after ``best_tr`` on the way found
    truncated = False
    pops = 0
    nxt = np.empty((64, 6), dtype=np.int64)  # a, m0..m3, g
    work = np.empty((64, 13), dtype=np.int64)  # column 12: the tokens taken
    chs = np.empty((16, 6), dtype=np.int64)  # j, rot, cr, crh, fo, union-flip
    ms = np.empty(4, dtype=np.int64)
    while True:
        nf_ = bq_head.shape[0]
        while fcur < nf_ and fcount[fcur] == 0:
            fcur += 1
        if fcur == nf_:
            break
        g = gmax[fcur]
        while bq_head[fcur, g] < 0:
            g -= 1
        gmax[fcur] = g
        e_ = bq_head[fcur, g]
        bq_head[fcur, g] = pool[e_, 5]
        if pool[e_, 5] < 0:
            bq_tail[fcur, g] = -1
        fcount[fcur] -= 1
        fst = fcur
        a = pool[e_, 0]
        m0 = pool[e_, 1]
        m1 = pool[e_, 2]
        m2 = pool[e_, 3]
        m3 = pool[e_, 4]
        pool[e_, 5] = free_e
        free_e = e_
        if decide:
            if best_goal < cap:
                upper = _record_way(trail, best_tr if keep_ways else -1, best_goal, upper, upper_count, vir, best_next)
                return best_goal, False, learned, best_first, upper
        elif fst >= best_goal:
            learned = _learn(dist, best_goal, learned, learned_count, vir)
            upper = _record_way(trail, best_tr if keep_ways else -1, best_goal, upper, upper_count, vir, best_next)
            return best_goal, False, learned, best_first, upper
        if fst >= cap and not decide:
            learned = _learn(dist, cap, learned, learned_count, vir)
            return cap, False, learned, -1, upper
        pops += 1
        scount[1] += 1
        if deadline >= 0 and (pops & 8191) == 0:
            now = clock()
            if now > deadline:
                if decide:
                    return h0, True, learned, -1, upper
                learned = _learn(dist, fst, learned, learned_count, vir)
                return fst, True, learned, -1, upper
        pi_ = _slot5(dist, a, m0, m1, m2, m3)
        if dist[pi_, 5] < g:
            continue
        first = dist[pi_, 6]  # -1 at the start (and after a free bolster)
        tr_cur = dist[pi_, 7]
        if scan_first and g == 0:
            # The start takes only a Deep Scan (a credit wait) here: as if
            # not reached yet, so that neither its cost nor its dominance
            # entry stands for its other turns, and nothing is learned
            # about it.
            dist[pi_, 5] = INF
            ent[0, 4] = INF
        pos = a & 63
        rot = (a >> 6) & ((1 << 21) - 1)
        hv = (a >> 27) & 3
        sh = (a >> 29) & 3
        cr0 = (a >> 31) & 63
        crh0 = (a >> 37) & 63
        fo0 = (a >> 43) & 63
        extra = a >> TAKEN_SHIFT  # (``tracked``) the tokens taken, the second action spent
        taken = extra & ((1 << MAX_TOKENS) - 1)
        used = extra >> MAX_TOKENS
        row = CELL_ROW[pos]
        nn = 0
        if hv and sh < 2 and every_move:
            # Without ``every_move`` a bolster is made only when the flight
            # meets a card that needs the shields (below): shields count
            # nowhere else, so bolstering for a turn that meets none gains
            # nothing.
            _set6(nxt, nn, _pk(pos, rot, hv - 1, sh + 1, cr0, crh0, fo0) | (extra << TAKEN_SHIFT), m0, m1, m2, m3, g)
            nn += 1
        g1 = g + 1
        for d in range(4 if scan_first and g == 0 else 0, 4):
            dr = DR[d]
            dc = DC[d]
            nw = 1
            _set_work(work, 0, CELL_ROW[pos], CELL_COL[pos], hv, sh, rot, cr0, crh0, fo0, m0, m1, m2, m3)
            if tracked:
                work[0, 12] = taken
            while nw:
                nw -= 1
                r = work[nw, 0]
                c = work[nw, 1]
                h1 = work[nw, 2]
                s1 = work[nw, 3]
                rt = work[nw, 4]
                cr = work[nw, 5]
                crh = work[nw, 6]
                fo = work[nw, 7]
                b0 = work[nw, 8]
                b1 = work[nw, 9]
                b2 = work[nw, 10]
                b3 = work[nw, 11]
                tk = work[nw, 12] if tracked else 0
                nr = r + dr
                nc = c + dc
                if nr == 7 and nc == 6:
                    if h1 >= need and g1 < best_goal:
                        best_goal = g1
                        best_first = first if first >= 0 else EARTH_IDX
                        best_tr = tr_cur
                        best_next = EARTH_IDX
                    continue
                if not (1 <= nr <= 7 and 1 <= nc <= 5):
                    continue
                ri = nr - 1
                rv = (rt >> (3 * ri)) & 7
                wild = rv == WILD
                if wild:
                    # A row left behind: any of its cards, either face, no
                    # credit needed; its pattern set stays full.
                    for jw in range(5):
                        _set6(chs, jw, jw, rt, cr, crh, fo, 0)
                    nch_ = 5
                else:
                    nch_ = 1
                    _set6(chs, 0, (nc - 1 + rv) % 5, rt, cr, crh, fo, 0)
                if (cr or crh or fo) and not wild:
                    j = chs[0, 0]
                    # Deep Scan credits (see relaxed.py): shift the row met as
                    # the ship enters it from another row (never the ship's own
                    # row, [D14]), or flip the card met (either parity: a
                    # superset, so still a relaxation whenever the real Deep
                    # Scan happened).
                    shiftable = (cr + crh) if nr != row else 0
                    for sft in range(min(shiftable, 4) + 1):
                        use_h = min(sft, crh) if nr != row else 0
                        c_left = cr - (sft - use_h)
                        h_left = crh - use_h
                        js = (j + sft) % 5
                        rs = rt if sft == 0 else _turned(rt, ri, sft)
                        if sft:
                            _set6(chs, nch_, js, rs, c_left, h_left, fo, 0)
                            nch_ += 1
                        if fo or h_left or c_left:
                            _set6(chs, nch_, js, rs, c_left, h_left, fo, 1)
                            if fo:
                                chs[nch_, 4] = fo - 1
                            elif h_left:
                                chs[nch_, 3] = h_left - 1
                            else:
                                chs[nch_, 2] = c_left - 1
                            nch_ += 1
                for a_ in range(nch_):
                    jj = chs[a_, 0]
                    rs = chs[a_, 1]
                    c2 = chs[a_, 2]
                    ch2 = chs[a_, 3]
                    fo2 = chs[a_, 4]
                    ms[0] = b0
                    ms[1] = b1
                    ms[2] = b2
                    ms[3] = b3
                    s = _mget(ms, ri)
                    if flippable[ri, jj] and chs[a_, 5]:
                        s = s | _xor_set(s, jj)
                    for q in range(2):
                        if flippable[ri, jj]:
                            part = (s & A_LOW[jj]) if q == 0 else (s & ~A_LOW[jj] & FULL)
                            if part == 0:
                                continue
                            f = face[ri, jj, q]
                            s_after = _xor_set(part, jj)
                        else:
                            if q == 1:
                                break
                            f = flags[ri, jj]
                            s_after = s
                        if f & DEADLY:
                            continue
                        s2 = s1
                        hb = h1
                        if f & NEEDS_SHIELDS:
                            if s1 == SPENT:
                                continue
                            if s1 < 2:
                                # The turn's bolster, made for this card: from
                                # the samples held when the turn began (the
                                # bolster comes first, §4), and only once.
                                if every_move or hv < 2 - s1:
                                    continue
                                hb = h1 - (2 - s1)
                            s2 = SPENT
                            if f & COSTS_SAMPLE and 0 < hb < 3:
                                # Low memory's O (relaxed.py, "Meeting a
                                # card"): a held virus lost, before this
                                # card's token is taken. (3 stands for 3 or
                                # more, so it stays.)
                                hb -= 1
                        vb = (vir >> (ri * 5 + jj)) & 1
                        tk2 = tk
                        if tracked and vb:
                            # A token is taken once.
                            if (tk >> tok[ri * 5 + jj]) & 1:
                                vb = 0
                            else:
                                tk2 = tk | (1 << tok[ri * 5 + jj])
                        h2 = (hb + vb) if hb < 3 else 3
                        _mset(ms, ri, FULL if wild else s_after)
                        if f & CAN_STOP:
                            if nn + 4 > nxt.shape[0]:
                                nxt = np.concatenate((nxt, np.empty_like(nxt)))
                            npos = 1 + ri * 5 + (nc - 1)
                            if nr == row:
                                cr_s, crh_s = c2, ch2
                            else:
                                cr_s, crh_s = min(c2 + ch2, MAX_CREDITS), 0
                            if second and not used and h2 >= 1:
                                # The turn's first action, with a held virus
                                # (maybe the one just taken) paid for a second
                                # one: no turn's end yet, and no turn counted.
                                a_free = _pk(npos, rs | behind_rot[nr], h2 - 1, s2 % SPENT, cr_s, crh_s, fo2)
                                _set6(nxt, nn, a_free | (tk2 << TAKEN_SHIFT) | SECOND_USED,
                                      ms[0] | BEHIND[nr, 0], ms[1] | BEHIND[nr, 1], ms[2] | BEHIND[nr, 2],
                                      ms[3] | BEHIND[nr, 3], g)
                                nn += 1
                            er = _end_rot(nr, rs) | behind_rot[nr]
                            rr = nr + 1  # the row two ahead (0-based), re-scanned
                            kept = 0
                            if nr + 2 <= 7:
                                kept = _mget(ms, rr)
                                _mset(ms, rr, rescan(kept, rr))
                            # Rows two or more below the ship: any pattern
                            # (see relaxed.py, "Rows left behind").
                            n0 = ms[0] | BEHIND[nr, 0]
                            n1 = ms[1] | BEHIND[nr, 1]
                            n2 = ms[2] | BEHIND[nr, 2]
                            n3 = ms[3] | BEHIND[nr, 3]
                            if nr + 2 <= 7:
                                _mset(ms, rr, kept)  # a boost goes on before the turn ends
                            nxt[nn, 0] = _pk(npos, er, h2, s2 % SPENT, cr_s, crh_s, fo2)
                            if tracked:
                                nxt[nn, 0] |= tk2 << TAKEN_SHIFT
                            nxt[nn, 1] = n0
                            nxt[nn, 2] = n1
                            nxt[nn, 3] = n2
                            nxt[nn, 4] = n3
                            nxt[nn, 5] = g1
                            nn += 1
                        if f & CAN_BOOST:
                            if nw >= work.shape[0]:
                                work = np.concatenate((work, np.empty_like(work)))
                            _set_work(work, nw, nr, nc, h2, s2, rs, c2, ch2, fo2, ms[0], ms[1], ms[2], ms[3])
                            if tracked:
                                work[nw, 12] = tk2
                            nw += 1
                        # the next parity starts from the row as it was
                        _mset(ms, ri, s)
        # Waits: a shield, or a credit. (A wait that shifts the row ahead once
        # more is never better than one that earns a credit: the ship enters
        # that row from another one before its rotation matters, and the
        # credit can shift it then; a shift counts only modulo five, so at
        # four shifts one fewer credit does. Kept where credits are capped,
        # and on the first turn: the outer search orders the real turns by
        # where an optimal way's first turn ends (``first_turn``), and a
        # Deep Scan on the row ahead ends with that row turned, which a
        # credit wait does not show. With two shields the shield wait is a
        # plain wait, which the credit wait beats too.)
        if nn + 5 > nxt.shape[0]:
            nxt = np.concatenate((nxt, np.empty_like(nxt)))
        if second and not used and hv >= 1:
            # A Deep Scan as the turn's first action (second action paid):
            # a credit, or a shift of the row ahead where the paid turn's
            # waits below offer one; no turn's end.
            for w in range(2):
                if w == 0:
                    if row + 1 > 7 or (cr0 + crh0 + 1 < MAX_CREDITS and not every_move and g > 0):
                        continue
                    a2 = _pk(pos, _turned(rot, row, 1), hv - 1, sh, cr0, crh0, fo0)
                else:
                    a2 = _pk(pos, rot, hv - 1, sh, cr0, min(crh0 + 1, MAX_CREDITS), fo0)
                _set6(nxt, nn, a2 | (taken << TAKEN_SHIFT) | SECOND_USED, m0, m1, m2, m3, g)
                nn += 1
        rot1 = _end_rot(row, rot)
        ms[0] = m0
        ms[1] = m1
        ms[2] = m2
        ms[3] = m3
        if row + 2 <= 7:
            _mset(ms, row + 1, rescan(_mget(ms, row + 1), row + 1))
        for w in range(1 if scan_first and g == 0 else 0, 3):
            if w == 0:
                if sh >= 2 and not every_move:
                    continue  # no shield to gain: a plain wait, which a credit beats
                nxt[nn, 0] = _pk(pos, rot1, hv, min(2, sh + 1), cr0, crh0, fo0)
            elif w == 1:
                if row + 1 > 7 or (cr0 + crh0 + 1 < MAX_CREDITS and not every_move and g > 0):
                    continue
                nxt[nn, 0] = _pk(pos, _turned(rot1, row, 1), hv, sh, cr0, crh0, fo0)
            else:
                nxt[nn, 0] = _pk(pos, rot1, hv, sh, cr0, min(crh0 + 1, MAX_CREDITS), fo0)
            if tracked:
                nxt[nn, 0] |= taken << TAKEN_SHIFT
            nxt[nn, 1] = ms[0]
            nxt[nn, 2] = ms[1]
            nxt[nn, 3] = ms[2]
            nxt[nn, 4] = ms[3]
            nxt[nn, 5] = g1
            nn += 1
        limit = best_goal if best_goal < cap else cap
        for i in range(nn):
            a2 = nxt[i, 0]
            g2 = nxt[i, 5]
            f2 = g2 + hstatic(a2, limit - g2)
            if f2 < limit:
                di = _slot5(dist, a2, nxt[i, 1], nxt[i, 2], nxt[i, 3], nxt[i, 4])
                if dist[di, 0] != -1 and dist[di, 5] <= g2:
                    continue
                if not plain:
                    x = g2 + _key_put(learned, learned_count, a2, nxt[i, 1], nxt[i, 2], nxt[i, 3], nxt[i, 4], vir, EMPTY)
                    if x > f2:
                        f2 = x
                    if decide:
                        # A win found before from here (a search that
                        # passed this state): one within g2 + u turns.
                        # (Not for A*, whose ``first`` guides the outer
                        # search: module docstring of relaxed.py.)
                        u = _upper_get(upper, a2, nxt[i, 1], nxt[i, 2], nxt[i, 3], nxt[i, 4], vir)
                        if u != EMPTY and g2 + u < best_goal:
                            best_goal = g2 + u
                            best_tr = tr_cur
                            best_next = a2
                            best_first = first if first >= 0 or g2 == 0 else a2
                            limit = best_goal if best_goal < cap else cap
            if f2 >= limit:
                truncated = truncated or f2 >= cap
                continue
            key2 = ((a2 & pre_mask) | ((a2 >> TAKEN_SHIFT) << 29)) if tracked else (a2 & pre_mask)
            fi = _slot5(front, key2, 0, 0, 0, 0)
            sa = (a2 >> 29) & 3
            sb = (a2 >> 31) & 63
            sc = (a2 >> 37) & 63
            sd = (a2 >> 43) & 63
            x0 = nxt[i, 1]
            x1 = nxt[i, 2]
            x2 = nxt[i, 3]
            x3 = nxt[i, 4]
            head = front[fi, 5]  # -1 when the key is new
            dominated = False
            e = head
            while e >= 0:
                # Reached no later, with every row's pattern set a superset
                # and at least the shields and credits: dominated.
                if (
                    ent[e, 4] <= g2
                    and ent[e, 0] >= sa
                    and ent[e, 1] >= sb
                    and ent[e, 1] + ent[e, 2] >= sb + sc
                    and ent[e, 1] + ent[e, 2] + ent[e, 3] >= sb + sc + sd
                    and (x0 & ~ent[e, 6]) == 0
                    and (x1 & ~ent[e, 7]) == 0
                    and (x2 & ~ent[e, 8]) == 0
                    and (x3 & ~ent[e, 9]) == 0
                ):
                    dominated = True
                    break
                e = ent[e, 5]
            if dominated:
                continue
            if n_ent >= ent.shape[0]:
                ent = np.concatenate((ent, np.empty_like(ent)))
            _set6(ent, n_ent, sa, sb, sc, sd, g2, head)
            ent[n_ent, 6] = x0
            ent[n_ent, 7] = x1
            ent[n_ent, 8] = x2
            ent[n_ent, 9] = x3
            if front[fi, 0] == -1:
                front[fi, 0] = key2
                for t in range(1, 5):
                    front[fi, t] = 0
                n_front += 1
            front[fi, 5] = n_ent
            n_ent += 1
            # The way's first turn: this successor itself when it is one turn
            # from the start (a free bolster keeps g and is not a turn).
            dist[di, 6] = first if first >= 0 or g2 == 0 else a2
            if dist[di, 0] == -1:
                dist[di, 0] = a2
                for t in range(1, 5):
                    dist[di, t] = nxt[i, t]
                n_dist += 1
            dist[di, 5] = g2
            if keep_ways:
                if n_trail >= trail.shape[0]:
                    trail = np.concatenate((trail, np.empty_like(trail)))
                _set6(trail, n_trail, a2, x0, x1, x2, x3, g2)
                trail[n_trail, 6] = tr_cur
                dist[di, 7] = n_trail
                n_trail += 1
            if 2 * n_dist > dist.shape[0]:
                dist = _grown5(dist)
            if 2 * n_front > front.shape[0]:
                front = _grown5(front)
            if f2 >= bq_head.shape[0]:  # (g2 <= f2: the bound is never negative)
                bq_head, bq_tail, gmax, fcount = _bq_grown(bq_head, bq_tail, gmax, fcount, f2)
            if free_e >= 0:
                e_ = free_e
                free_e = pool[e_, 5]
            else:
                if n_pool >= pool.shape[0]:
                    pool = np.concatenate((pool, np.empty_like(pool)))
                e_ = n_pool
                n_pool += 1
            _set6(pool, e_, a2, x0, x1, x2, x3, -1)
            if bq_tail[f2, g2] < 0:
                bq_head[f2, g2] = e_
            else:
                pool[bq_tail[f2, g2], 5] = e_
            bq_tail[f2, g2] = e_
            fcount[f2] += 1
            if g2 > gmax[f2]:
                gmax[f2] = g2
            if f2 < fcur:
                fcur = f2
    if best_goal < INF:
        upper = _record_way(trail, best_tr if keep_ways else -1, best_goal, upper, upper_count, vir, best_next)
    if best_goal < cap and decide:
        return best_goal, False, learned, best_first, upper
    if best_goal < INF:
        v = best_goal if best_goal < cap else cap
        learned = _learn(dist, v, learned, learned_count, vir)
        return v, False, learned, best_first if best_goal < cap else -1, upper
    v = cap if truncated else INF
    learned = _learn(dist, v, learned, learned_count, vir)
    return v, False, learned, -1, upper
