"""The grid half of a turn (``Model.grid_moves``), compiled with Numba.

The card search (``split``) asks a grid state for the next grids of a pay
class (``GridHalf.nexts``): about 160 times a solve, and in Python that took
a fifth of a median solve (3.5-5.5 ms of 19-28 ms, deal mode, the middle 40
of setups 0-199). Here the same turn is worked out on fixed-width rows of
int64 and only the next grids come back, with no log of the pattern-set
operations (the plan is rebuilt through ``Model.successors``, ``split._concrete``).

It covers the cases the card search meets by default: lazy flips with
pending Deep Scan flips (deal or open mode, without low memory mode, the §12
second action or 'reveal once'), with pending Deep Scan shifts
(``Model.pending_shifts``) or, with the escape pod, a shift of each row a
Deep Scan may shift, and the pod's move after the action (§10). With the
pod the card search asks a grid for the next grids of each pay class and
pod move, several times as often as without it, and in Python that was most
of a slow solve (three quarters of the pod's 362 in deal mode under the
profiler). ``Model.grid_moves`` stays the reference and covers every other
case; ``tests/solver/test_grid_kernel.py`` checks the two give the same next
grids, in the same order, on the turns of many solves and rule options. The
order matters: the card search numbers grids as it meets them, and the plan
it returns among equal optima follows from that.

A branch is one row (the ``B_*`` columns): the ship, shields, held samples,
the rows' rotations and pattern sets, the samples on the board, whether it
won, its pending flips (mask of cards met since, and whether the Deep Scan
was this turn's), its pending shifts (rows they may no longer take), the
explicit flip of this turn, the pod's cell and a pending flip of this turn
the pod met. The steps follow ``Model`` one for one (``fly``, ``observe``,
``enter_row``, ``split_by``, ``apply_action``, ``shift``, ``move_pod``,
``_grid_end``), and in the same order, so the same branches come out in the
same order. A turn that needs more rows than the scratch arrays hold reports
it (``OVERFLOW``), and they grow; a grid with more pending entries than a
branch holds (``MAX_PEND``, a Deep Scan's new one included) is left to Python.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..rules.cards import SectorType
from ..rules.geometry import DIRECTIONS, EARTH
from .model import ALL_ROWS, FLY, FULL, PEEK, SCAN, SHIELDS, SHIFT_TAG
from .relaxed_kernel import A_LOW, _xor_set  # (a pattern set with one slot turned)

EARTH_R, EARTH_C = EARTH
# Faces, as codes.
F_EMPTY, F_BOOST, F_AST, F_OBST = 0, 1, 2, 3
FACE_CODE = {SectorType.EMPTY: F_EMPTY, SectorType.BOOST: F_BOOST, SectorType.ASTEROID: F_AST,
             SectorType.OBSTRUCTED: F_OBST}
# What a call is asked for (``pay class``): a Fly (with its step), a Peek
# (any direction: it changes nothing), every Deep Scan, Shields.
K_FLY, K_PEEK, K_SCAN, K_SHIELDS = 0, 1, 2, 3
# Pending entries a branch holds at most, of each kind.
MAX_PEND = 8
# A branch's columns.
B_R, B_C, B_SH, B_HELD = 0, 1, 2, 3
B_ROT = 4  # 7 rotations
B_MASK = 11  # 7 pattern sets
B_SAMPLES = 18
B_WON = 19
B_NFLIP = 20
B_FLIP = 21  # MAX_PEND: cards met since the pending flip's Deep Scan
B_NEW = B_FLIP + MAX_PEND  # MAX_PEND: 1 for a pending flip of this turn
B_NSHIFT = B_NEW + MAX_PEND
B_SHIFT = B_NSHIFT + 1  # MAX_PEND: rows a pending shift may no longer take
B_XROW = B_SHIFT + MAX_PEND  # the explicit flip's row (-1: none) and slot
B_XJ = B_XROW + 1
B_PR = B_XJ + 1  # the escape pod's row and column (-1: no pod)
B_PC = B_PR + 1
# A pending flip made this turn and applied where the pod met its card: a
# flip by choice this turn, which the re-scan may not flip again ([D23]).
# Its row (-1: none) and slot; one a turn at most (one Deep Scan).
B_CHR = B_PC + 1
B_CHJ = B_CHR + 1
B_STEPS = B_CHJ + 1  # the pod's steps still to go, on its move's work rows
B_WIDTH = B_STEPS + 1
# A next grid's columns: ship (row -1: the win), shields, held, rotations,
# pattern sets, samples (the branch's first N_GRID columns), the pod's row
# and column, then the pending entries as a model state's ``PEND`` has them
# (flips sorted, then shifts with ``SHIFT_TAG``, sorted).
N_GRID = 19
N_POD = N_GRID
N_PEND = N_POD + 2
N_WIDTH = N_PEND + 1 + 2 * MAX_PEND
WIN = -1
OVERFLOW = -1
# Rows of the scratch arrays at first (branches a flight holds at once, next
# grids), and at most (they grow fourfold when a turn needs more).
WORK_ROWS = 256
MAX_WORK_ROWS = 1 << 16
SPLIT_ROWS = 2 * (MAX_PEND + 1)


@njit(cache=True, inline="always")
def _prefix_equal(x, y, n):
    """Whether the first ``n`` entries of rows ``x`` and ``y`` are equal."""
    for q in range(n):
        if x[q] != y[q]:
            return False
    return True


@njit(cache=True)
def _rescan_set(s, r, ex, choices, n_choices):
    """``Model.rescan_set``: every pattern of row ``r``'s set ``s`` after a
    re-scan that may not flip the slots ``ex``."""
    out = 0
    for k in range(n_choices[r, ex]):
        p = choices[r, ex, k]
        t = s
        for j in range(5):
            if (p >> j) & 1:
                t = _xor_set(t, j)
        out |= t
    return out


@njit(cache=True)
def _observe(obs, r, j):
    """``Model.observe`` of the branch ``obs[0]``: the branches (``obs[0]``
    and copies after it) for each pending flip the planner may apply to card
    j of row r first; returns how many."""
    nf = obs[0, B_NFLIP]
    if nf == 0:
        return 1
    bit = 1 << (r * 5 + j)
    n = 1
    for k in range(nf):
        e = obs[0, B_FLIP + k]
        if e & bit:
            continue
        seen = False
        for k2 in range(k):
            if obs[0, B_FLIP + k2] == e:
                seen = True
        if seen:
            continue
        obs[n, :] = obs[0, :]
        obs[n, B_MASK + r] = _xor_set(obs[n, B_MASK + r], j)
        if obs[0, B_NEW + k]:
            # Made this turn (only the pod meets a card after a Deep Scan
            # within its turn): a flip by choice this turn.
            obs[n, B_CHR] = r
            obs[n, B_CHJ] = j
        for k2 in range(k, nf - 1):
            obs[n, B_FLIP + k2] = obs[n, B_FLIP + k2 + 1]
            obs[n, B_NEW + k2] = obs[n, B_NEW + k2 + 1]
        obs[n, B_NFLIP] = nf - 1
        n += 1
    for q in range(n):
        for k in range(obs[q, B_NFLIP]):
            obs[q, B_FLIP + k] |= bit
    return n


@njit(cache=True, inline="always")
def _pod_still(b):
    """Whether branch ``b`` has no pod to move: none (the variant is off) or
    arrived at Earth (§10: it moves no more)."""
    return b[B_PR] == -1 or (b[B_PR] == EARTH_R and b[B_PC] == EARTH_C)


@njit(cache=True, inline="always")
def _shift_row(b, r):
    """``GridRules.shift``: row r (0-based) one place left ([D16]), the pod
    on it riding along ([D17])."""
    b[B_ROT + r] = (b[B_ROT + r] + 1) % 5
    if b[B_PR] == r + 1 and 1 <= b[B_PC] <= 5:
        b[B_PC] = 5 if b[B_PC] == 1 else b[B_PC] - 1


@njit(cache=True)
def _enter_row(cur, r, work, nw, err):
    """``Model.enter_row``: the branches of ``cur`` (a ship about to enter row
    r) for each choice of its pending shifts applied there, pushed onto
    ``work`` in the model's order; returns the new top."""
    bit = 1 << r
    ns = cur[B_NSHIFT]
    can = np.empty(MAX_PEND, dtype=np.int64)
    n_can = 0
    for k in range(ns):
        if not cur[B_SHIFT + k] & bit:
            can[n_can] = k
            n_can += 1
    seen = np.empty((1 << MAX_PEND, MAX_PEND + 1), dtype=np.int64)  # the count last
    n_seen = 0
    rest = np.empty(MAX_PEND, dtype=np.int64)
    idx = np.empty(MAX_PEND, dtype=np.int64)
    for n in range(n_can + 1):
        for i in range(n):
            idx[i] = i
        while True:
            # The shifts left, sorted: a choice leaving the same ones as an
            # earlier one makes the same branch.
            n_rest = 0
            for k in range(ns):
                chosen = False
                for i in range(n):
                    if can[idx[i]] == k:
                        chosen = True
                if not chosen:
                    v = cur[B_SHIFT + k]
                    q = n_rest
                    while q > 0 and rest[q - 1] > v:
                        rest[q] = rest[q - 1]
                        q -= 1
                    rest[q] = v
                    n_rest += 1
            dup = False
            for s in range(n_seen):
                if seen[s, MAX_PEND] == n_rest and _prefix_equal(seen[s], rest, n_rest):
                    dup = True
                    break
            if not dup:
                for q in range(n_rest):
                    seen[n_seen, q] = rest[q]
                seen[n_seen, MAX_PEND] = n_rest
                n_seen += 1
                if nw >= work.shape[0]:
                    err[0] = 1
                    return nw
                work[nw, :] = cur
                kept = 0
                dead = False
                for k in range(ns):
                    chosen = False
                    for i in range(n):
                        if can[idx[i]] == k:
                            chosen = True
                    if chosen:
                        _shift_row(work[nw], r)
                    else:
                        m = cur[B_SHIFT + k] | bit
                        if m == ALL_ROWS:
                            dead = True  # no row left it may take
                        work[nw, B_SHIFT + kept] = m
                        kept += 1
                work[nw, B_NSHIFT] = kept
                if not dead:
                    nw += 1
            # The next combination of n of the ``can`` entries (itertools' order).
            i = n - 1
            while i >= 0 and idx[i] == i + n_can - n:
                i -= 1
            if i < 0:
                break
            idx[i] += 1
            for q in range(i + 1, n):
                idx[q] = idx[q - 1] + 1
    return nw


@njit(cache=True)
def _fly(b0, dr, dc, cells, need, virus, work, out, obs, spl, face_of, err):
    """``Model.fly``: the branches of ``b0`` after a Fly one step (dr, dc) at a
    time, boosts followed, written to ``out`` in the model's order; returns
    how many."""
    if b0[B_R] == EARTH_R and b0[B_C] == EARTH_C:
        out[0, :] = b0
        return 1
    nout = 0
    work[0, :] = b0
    nw = 1
    while nw > 0:
        nw -= 1
        obs[0, :] = work[nw, :]
        r = obs[0, B_R]
        c = obs[0, B_C]
        nr = r + dr
        nc = c + dc
        if nr == EARTH_R and nc == EARTH_C:
            if obs[0, B_HELD] >= need:
                obs[0, B_R] = EARTH_R
                obs[0, B_C] = EARTH_C
                if _pod_still(obs[0]):  # with the pod, a win once it has arrived too (§10)
                    obs[0, B_WON] = 1
                if nout >= out.shape[0]:
                    err[0] = 1
                    return 0
                out[nout, :] = obs[0, :]
                nout += 1
            continue
        if nr < 1 or nr > 7 or nc < 1 or nc > 5:
            continue  # off the grid: lost ([D20], [D25]: never back to the dock)
        ri = nr - 1
        if obs[0, B_NSHIFT] > 0 and nr != r:
            waiting = False
            for k in range(obs[0, B_NSHIFT]):
                if not (obs[0, B_SHIFT + k] >> ri) & 1:
                    waiting = True
            if waiting:
                # Pending shifts settled for the row, each branch takes the
                # step again.
                nw = _enter_row(obs[0], ri, work, nw, err)
                if err[0]:
                    return 0
                continue
        j = (nc - 1 + obs[0, B_ROT + ri]) % 5
        if cells[ri, j, 0]:
            continue  # a gap ([D20])
        obs[0, B_R] = nr
        obs[0, B_C] = nc
        ns = 0
        if cells[ri, j, 1]:
            n_obs = _observe(obs, ri, j)
            f0 = cells[ri, j, 2]
            f1 = cells[ri, j, 3]
            for q in range(n_obs):
                s = _xor_set(obs[q, B_MASK + ri], j)
                lo = s & A_LOW[j]
                hi = s & ~A_LOW[j] & FULL
                spl[ns, :] = obs[q, :]
                if hi == 0 or lo == 0 or f0 == f1:
                    spl[ns, B_MASK + ri] = s
                    face_of[ns] = f1 if hi != 0 and lo == 0 else f0
                    ns += 1
                else:
                    spl[ns, B_MASK + ri] = lo
                    face_of[ns] = f0
                    ns += 1
                    spl[ns, :] = obs[q, :]
                    spl[ns, B_MASK + ri] = hi
                    face_of[ns] = f1
                    ns += 1
        else:
            spl[0, :] = obs[0, :]
            face_of[0] = F_EMPTY
            ns = 1
        bit = 1 << (ri * 5 + j)
        for q in range(ns):
            f = face_of[q]
            if f == F_AST:
                if spl[q, B_SH] < 2:
                    continue
                spl[q, B_SH] = 0
            elif f == F_OBST:
                continue  # (low memory mode is not compiled)
            if spl[q, B_SAMPLES] & bit:
                spl[q, B_SAMPLES] &= ~bit
                if virus & bit:
                    spl[q, B_HELD] += 1
            if f == F_BOOST:
                if nw >= work.shape[0]:
                    err[0] = 1
                    return 0
                work[nw, :] = spl[q, :]
                nw += 1
            else:
                if nout >= out.shape[0]:
                    err[0] = 1
                    return 0
                out[nout, :] = spl[q, :]
                nout += 1
    return nout


@njit(cache=True)
def _move_pod(b0, dr, dc, steps, cells, work, obs, pout, n_pout, err):
    """``GridRules.move_pod``: the branches of ``b0`` after the pod's move of
    ``steps`` steps (dr, dc) (§10, [D19]; a gap or a face-up O destroys it,
    and the branch is dropped), appended to ``pout`` from ``n_pout`` in the
    model's order; returns the new count."""
    if _pod_still(b0):
        if n_pout >= pout.shape[0]:
            err[0] = 1
            return n_pout
        pout[n_pout, :] = b0
        return n_pout + 1
    work[0, :] = b0
    work[0, B_STEPS] = steps
    nw = 1
    while nw > 0:
        nw -= 1
        obs[0, :] = work[nw, :]
        n = obs[0, B_STEPS]
        nr = obs[0, B_PR] + dr
        nc = obs[0, B_PC] + dc
        if n > 0 and nr == EARTH_R and nc == EARTH_C:
            obs[0, B_PR] = EARTH_R
            obs[0, B_PC] = EARTH_C
            if obs[0, B_R] == EARTH_R and obs[0, B_C] == EARTH_C:
                obs[0, B_WON] = 1
            n = 0
        elif n > 0 and (nr < 1 or nr > 7 or nc < 1 or nc > 5):
            n = 0  # [D19] a step off the grid ends the move where it is
        if n == 0:
            if n_pout >= pout.shape[0]:
                err[0] = 1
                return n_pout
            pout[n_pout, :] = obs[0, :]
            n_pout += 1
            continue
        ri = nr - 1
        j = (nc - 1 + obs[0, B_ROT + ri]) % 5
        if cells[ri, j, 0]:
            continue  # a gap
        n_obs = _observe(obs, ri, j) if cells[ri, j, 1] else 1
        f0 = cells[ri, j, 2]
        f1 = cells[ri, j, 3]
        for q in range(n_obs):
            # The face-up side only (the pod flips nothing): split where
            # one side is an O, which destroys the pod.
            s = obs[q, B_MASK + ri]
            lo = s & A_LOW[j]
            hi = s & ~A_LOW[j] & FULL
            face = f0
            if hi != 0 and lo == 0:
                face = f1
            elif hi != 0 and (f0 == F_OBST) != (f1 == F_OBST):
                if f0 == F_OBST:
                    obs[q, B_MASK + ri] = hi
                    face = f1
                else:
                    obs[q, B_MASK + ri] = lo
            if face == F_OBST:
                continue
            if nw >= work.shape[0]:
                err[0] = 1
                return n_pout
            work[nw, :] = obs[q, :]
            work[nw, B_PR] = nr
            work[nw, B_PC] = nc
            work[nw, B_STEPS] = n - 1
            nw += 1
    return n_pout


@njit(cache=True)
def _grid_end(b, choices, n_choices, res, n_res, res_acts, act_bit):
    """``Model._grid_end`` of branch ``b`` (changed) as a next grid in
    ``res`` unless an earlier one is the same; returns the new count. The
    grid's entry in ``res_acts`` gains ``act_bit``, the action's bit."""
    row = np.zeros(N_WIDTH, dtype=np.int64)
    if b[B_WON]:
        row[0] = WIN
    else:
        r = b[B_R]
        at_earth = r == EARTH_R and b[B_C] == EARTH_C
        rrow = r + 1 if not at_earth and r + 2 <= 7 else -1
        if b[B_XROW] != -1 and b[B_XROW] != rrow:
            return n_res  # an explicit flip a pending one stands in for
        if rrow != -1:
            rowbits = 31 << (rrow * 5)
            for k in range(b[B_NFLIP]):
                if b[B_NEW + k]:
                    b[B_FLIP + k] |= rowbits
        if not at_earth:
            # The re-scan (§8): the row ahead ([D2]) shifts ([D16]), the row
            # two ahead has its cards flipped.
            if r + 1 <= 7:
                _shift_row(b, r)
            if r + 2 <= 7:
                ri = r + 1
                ex = 1 << b[B_XJ] if b[B_XROW] == ri else 0
                if b[B_CHR] == ri:
                    ex |= 1 << b[B_CHJ]
                b[B_MASK + ri] = _rescan_set(b[B_MASK + ri], ri, ex, choices, n_choices)
        for q in range(N_GRID):
            row[q] = b[q]
        row[N_POD] = b[B_PR]
        row[N_POD + 1] = b[B_PC]
        nf = b[B_NFLIP]
        ns = b[B_NSHIFT]
        row[N_PEND] = nf + ns
        for k in range(nf):
            v = b[B_FLIP + k]
            q = N_PEND + 1 + k
            while q > N_PEND + 1 and row[q - 1] > v:
                row[q] = row[q - 1]
                q -= 1
            row[q] = v
        for k in range(ns):
            v = b[B_SHIFT + k] | SHIFT_TAG
            q = N_PEND + 1 + nf + k
            while q > N_PEND + 1 + nf and row[q - 1] > v:
                row[q] = row[q - 1]
                q -= 1
            row[q] = v
    for i in range(n_res):
        if _prefix_equal(res[i], row, N_WIDTH):
            res_acts[i] |= act_bit
            return n_res
    res[n_res, :] = row
    res_acts[n_res] = act_bit
    return n_res + 1


@njit(cache=True)
def next_grids(ship_r, ship_c, pod_r, pod_c, shields, held, rot, masks, samples, pend, n_pend, kind, dr, dc,
               pod_dr, pod_dc, pod_steps, pending_shifts, acts,
               cells, choices, n_choices, need, virus, blocked_rows, work, out, pout, obs, spl, face_of, res,
               res_acts):
    """The next grids of every turn of pay class ``kind`` (a Fly by (dr, dc),
    any Peek, any Deep Scan, Shields) from the grid given, over every bolster
    (``Model.grid_moves``, then ``split.next_grids``), each once, in the order
    met: written to ``res``; returns how many, or ``OVERFLOW``. The pod (at
    (``pod_r``, ``pod_c``); -1: none) moves ``pod_steps`` steps (0: none)
    by (``pod_dr``, ``pod_dc``) after the action. ``pending_shifts``: a Deep
    Scan's shift is pending (``Model.pending_shifts``), else one of each row
    it may shift. ``blocked_rows``: by the ship's row (8: at Earth), the
    rows a Deep Scan may not shift, as bits (``Model.shiftable_rows``).
    ``acts``: of a Deep Scan's actions (in ``Model.actions``' order) only
    those whose bit is set (-1: all); ``res_acts``: per next grid, the bits
    of the actions that lead to it (of any other class: bit 0)."""
    err = np.zeros(1, dtype=np.int64)
    base = np.zeros(B_WIDTH, dtype=np.int64)
    base[B_R] = ship_r
    base[B_C] = ship_c
    base[B_PR] = pod_r
    base[B_PC] = pod_c
    base[B_CHR] = -1
    for r in range(7):
        base[B_ROT + r] = rot[r]
        base[B_MASK + r] = masks[r]
    base[B_SAMPLES] = samples
    nf = 0
    ns = 0
    for k in range(n_pend):
        if pend[k] < SHIFT_TAG:
            base[B_FLIP + nf] = pend[k]
            nf += 1
        else:
            base[B_SHIFT + ns] = pend[k] ^ SHIFT_TAG
            ns += 1
    base[B_NFLIP] = nf
    base[B_NSHIFT] = ns
    base[B_XROW] = -1
    at_earth = ship_r == EARTH_R and ship_c == EARTH_C
    n_res = 0
    for bolster in range(min(held, 2 - shields) + 1):
        # A bolster pays only for shields this turn's flight spends.
        useful_only = bolster > 0
        if useful_only and kind != K_FLY:
            break
        base[B_SH] = shields + bolster
        base[B_HELD] = held - bolster
        n_out = 0
        if kind == K_FLY:
            n_out = _fly(base, dr, dc, cells, need, virus, work, out, obs, spl, face_of, err)
            if err[0]:
                return OVERFLOW
        elif kind == K_PEEK:
            out[0, :] = base
            n_out = 1
        elif kind == K_SHIELDS:
            out[0, :] = base
            out[0, B_SH] = min(2, shields + 1)
            n_out = 1
        else:
            # Every Deep Scan (``Model.actions``' order): a pending flip; the
            # explicit flips of the re-scan row ([D23]); a pending shift, of
            # a row but the ship's ([D14]).
            if nf >= MAX_PEND or ns >= MAX_PEND:
                return OVERFLOW
            out[0, :] = base
            out[0, B_FLIP + nf] = 0
            out[0, B_NEW + nf] = 1
            out[0, B_NFLIP] = nf + 1
            n_out = 1
            if not at_earth and ship_r + 2 <= 7:
                r = ship_r + 1
                for j in range(5):
                    if cells[r, j, 1]:
                        out[n_out, :] = base
                        out[n_out, B_XROW] = r
                        out[n_out, B_XJ] = j
                        out[n_out, B_MASK + r] = _xor_set(base[B_MASK + r], j)
                        n_out += 1
            blocked = blocked_rows[8 if at_earth else ship_r]
            if pending_shifts:
                out[n_out, :] = base
                out[n_out, B_SHIFT + ns] = blocked
                out[n_out, B_NSHIFT] = ns + 1
                n_out += 1
            else:
                for r in range(7):
                    if not (blocked >> r) & 1:
                        out[n_out, :] = base
                        _shift_row(out[n_out], r)
                        n_out += 1
        for q in range(n_out):
            if kind == K_SCAN and not (acts >> q) & 1:
                continue
            act_bit = 1 << q if kind == K_SCAN else 1
            # The branches after the pod's move, if it moves (``pout``), else
            # the action's branch itself, read where it is.
            src, lo, hi = out, q, q + 1
            if pod_steps > 0 and not out[q, B_WON]:
                hi = _move_pod(out[q], pod_dr, pod_dc, pod_steps, cells, work, obs, pout, 0, err)
                if err[0]:
                    return OVERFLOW
                src, lo = pout, 0
            for p in range(lo, hi):
                if useful_only and src[p, B_SH] >= shields + bolster and not src[p, B_WON]:
                    continue
                if n_res >= res.shape[0]:
                    return OVERFLOW
                n_res = _grid_end(src[p], choices, n_choices, res, n_res, res_acts, act_bit)
    return n_res


class CompiledGridTurns:
    """``next_grids`` for one model: its static tables and scratch rows, and
    the conversion to and from model states' grid halves."""

    def __init__(self, model) -> None:
        self.m = model
        # Per card: gap, flippable, the faces of parity 0 and 1.
        self.cells = np.array([
            [[model.gap[r][j], model.flippable[r][j], FACE_CODE[model.sides[r][j][0]],
              FACE_CODE[model.sides[r][j][1]]] for j in range(5)]
            for r in range(7)], dtype=np.int64)
        # The re-scan's legal flips of each row with the slots ``ex`` flipped
        # by choice this turn excluded ([D23]), from the model's own rule:
        # none, or the one card of an explicit Deep Scan flip.
        self.choices = np.zeros((7, 32, 16), dtype=np.int64)
        self.n_choices = np.zeros((7, 32), dtype=np.int64)
        for r in range(7):
            for ex in [0] + [1 << j for j in model.flip_idx[r]]:
                got = model.rescan_choices(r, 0, ex)
                self.n_choices[r, ex] = len(got)
                self.choices[r, ex, : len(got)] = got
        self.need = model.need
        self.virus = model.virus_bits
        self.pending_shifts = bool(model.pending_shifts)
        # [D14] the rows a Deep Scan may not shift, by the ship's row (8: at
        # Earth, 'earth-in-row-7'), from the model's own rule.
        self.blocked_rows = np.zeros(9, dtype=np.int64)
        b = model.branch_of(model.root_state())
        for row, ship in [(r, (r, 1)) for r in range(1, 8)] + [(8, EARTH)]:
            b.ship = ship
            self.blocked_rows[row] = ALL_ROWS & ~sum(1 << r for r in model.shiftable_rows(b))
        self.obs = np.empty((MAX_PEND + 1, B_WIDTH), dtype=np.int64)
        self.spl = np.empty((SPLIT_ROWS, B_WIDTH), dtype=np.int64)
        self.face_of = np.empty(SPLIT_ROWS, dtype=np.int64)
        self._rows(WORK_ROWS)

    def _rows(self, n: int) -> None:
        """Scratch arrays of ``n`` rows for the branches and the next grids."""
        self.work = np.empty((n, B_WIDTH), dtype=np.int64)
        self.out = np.empty((n, B_WIDTH), dtype=np.int64)
        self.pout = np.empty((n, B_WIDTH), dtype=np.int64)
        self.res = np.empty((n, N_WIDTH), dtype=np.int64)
        self.res_acts = np.empty(n, dtype=np.int64)
        # ``next_grids``' arguments after the grid's and the turn's.
        self._tables = (self.cells, self.choices, self.n_choices, self.need, self.virus, self.blocked_rows,
                        self.work, self.out, self.pout, self.obs, self.spl, self.face_of, self.res,
                        self.res_acts)

    @staticmethod
    def applies(model) -> bool:
        """Whether the compiled turn is the model's: pending flips, and
        pending shifts or the escape pod (no low memory mode, second action
        or 'reveal once')."""
        return bool(model.pending_ok and not model.second_ok and not model.options.low_memory)

    def nexts(self, gk: tuple, pc: tuple, pod: tuple | None = None, acts: int = -1) -> list[tuple | None] | None:
        """The next grids (None: the win) of the turns of pay class ``pc``
        from grid ``gk`` (``split.grid_key``), the pod moving by ``pod``
        (``Model.pod_move``), each once, in the order ``Model.grid_moves``
        meets them; None when the rows cannot hold the turn (more pending
        entries than ``MAX_PEND`` less the one a Deep Scan adds: the caller
        works it out in Python). ``acts``: of a Deep Scan's actions only
        those of the bits set (``nexts_by_action``'s; -1: all)."""
        n = self._run(gk, pc, pod, acts)
        return None if n is None else self._grids(n)

    def nexts_by_action(self, gk: tuple, pc: tuple) -> list[tuple[tuple | None, int]] | None:
        """``nexts`` without a move of the pod, each next grid with the bits
        of the actions that lead to it (of a Deep Scan, bit q for its q-th
        action in ``Model.actions``' order; of any other class, bit 0)."""
        n = self._run(gk, pc, None, -1)
        return None if n is None else list(zip(self._grids(n), self.res_acts[:n].tolist(), strict=True))

    def _run(self, gk: tuple, pc: tuple, pod: tuple | None, acts: int) -> int | None:
        """``next_grids`` on grid ``gk``: how many next grids it wrote to
        ``res``, or None (``nexts``)."""
        ship, pod_at, shields, held, rot, masks, samples, pend = gk
        n_pend = len(pend)
        if n_pend >= MAX_PEND:
            return None
        asked = _ASKED.get(pc)
        if asked is None:
            return None
        k, dr, dc = asked
        pod_r, pod_c = (-1, -1) if pod_at is None else pod_at
        moving = pod_step(pod)
        padded = pend + _PAD[n_pend:]
        while True:
            n = next_grids(
                ship[0], ship[1], pod_r, pod_c, shields, held, rot, masks, samples, padded, n_pend, k, dr, dc,
                *moving, self.pending_shifts, acts, *self._tables,
            )
            if n != OVERFLOW:
                return n
            if self.work.shape[0] >= MAX_WORK_ROWS:
                return None
            self._rows(4 * self.work.shape[0])

    def _grids(self, n: int) -> list[tuple | None]:
        """The first ``n`` next grids in ``res`` as grid halves."""
        got: list[tuple | None] = []
        for x in self.res[:n].tolist():
            if x[0] == WIN:
                got.append(None)
                continue
            got.append((
                (x[0], x[1]), None if x[N_POD] == -1 else (x[N_POD], x[N_POD + 1]), x[2], x[3],
                tuple(x[4:11]), tuple(x[11:18]), x[18], tuple(x[N_PEND + 1 : N_PEND + 1 + x[N_PEND]]),
            ))
        return got


_PAD = (0,) * MAX_PEND
# A pod move (``Model.pod_move``) as ``next_grids`` takes it: step, steps.
_POD_STEPS: dict[tuple | None, tuple[int, int, int]] = {None: (0, 0, 0)}


def pod_step(pod: tuple | None) -> tuple[int, int, int]:
    """A pod move (``Model.pod_move``; None: none) as (row step, column
    step, steps)."""
    got = _POD_STEPS.get(pod)
    if got is None:
        assert pod is not None  # (None is in the table)
        # (An enum's ``value`` is slow to read: once per move.)
        got = _POD_STEPS[pod] = (*pod[0].value, pod[1])
    return got


# A pay class as ``next_grids`` takes it: (kind, step of a Fly).
_ASKED: dict[tuple, tuple[int, int, int]] = {
    **{(FLY, d): (K_FLY, *d.value) for d in DIRECTIONS},
    **{(PEEK, d): (K_PEEK, 0, 0) for d in (*DIRECTIONS, None)},
    SCAN: (K_SCAN, 0, 0),
    (SHIELDS, None): (K_SHIELDS, 0, 0),
}
