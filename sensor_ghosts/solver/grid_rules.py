"""The grid's side of a turn on model states (RULES.md §5, §10-§12, [D14],
[D16], [D17], [D19], [D23]): movement, the pod, flips, shifts, the re-scan
and the pending Deep Scans, on a ``Branch`` (``model``'s module docstring
says how flips and shifts are kept lazily)."""

from __future__ import annotations

from itertools import combinations

from ..rules.cards import SectorType
from ..rules.geometry import DIRECTIONS, EARTH, Direction, Pos
from ..rules.options import RuleOptions
from .fly_distances import fly_distances
from .model_state import (
    ALL_ROWS,
    FLIP,
    FLY,
    HELD,
    MASKS,
    PEEK,
    PEND,
    POD,
    ROT,
    SAMPLES,
    SHIELDS,
    SHIFT,
    SHIFT_TAG,
    SHIP,
    SHL,
)
from .pattern_sets import A_LOW, FULL, flip_masks, members, xor_mask_set, xor_set


class Branch:
    """Mutable grid-and-ship part of a state while a turn is being resolved."""

    __slots__ = ("ship", "pod", "shields", "held", "rot", "masks", "samples", "ops", "dead", "won",
                 "pend", "spend", "xrows", "chosen")
    ship: Pos
    pod: Pos | None
    shields: int
    held: int
    rot: list[int]  # each row's rotation ([D16])
    masks: list[int]  # each row's pattern set
    samples: int  # the tokens still on the grid, a bit per (row, card)
    ops: list[tuple]  # the pattern-set operations, for ``plan.concretize``
    dead: bool
    won: bool
    pend: list[list]  # pending flips: [cards they may no longer flip (bits), made this turn]
    spend: list[int]  # pending shifts: the rows each may no longer shift (bits)
    xrows: list[int]  # the rows of this turn's explicit flips
    chosen: list[tuple[int, int]]  # (row, card) of this turn's pending flips applied this turn

    def copy(self) -> Branch:
        b = Branch.__new__(Branch)
        b.ship, b.pod, b.shields, b.held = self.ship, self.pod, self.shields, self.held
        b.rot, b.masks, b.samples = list(self.rot), list(self.masks), self.samples
        b.ops, b.dead, b.won = list(self.ops), self.dead, self.won
        b.pend = [list(e) for e in self.pend]
        b.spend = list(self.spend)
        b.xrows = list(self.xrows)
        b.chosen = list(self.chosen)
        return b


class GridRules:
    """The grid's rules of ``Model`` (a base class of it): what an action,
    the pod's move and the re-scan do to a ``Branch``."""

    # Set by ``Model.__init__``.
    options: RuleOptions
    need: int
    k_flips: int
    lazy: bool
    pending_ok: bool
    pending_shifts: bool
    second_ok: bool
    gap: list[list[bool]]
    flippable: list[list[bool]]
    flip_idx: list[list[int]]
    start_front: list[list[bool]]
    sides: list[list[tuple[SectorType, SectorType]]]
    sample_virus: dict[int, bool]
    _rescan_cache: dict[tuple[int, int, int], int]
    _rescan_choice_cache: dict[tuple[int, int, int], tuple[int, ...]]

    # ----- faces -----------------------------------------------------------
    def face(self, r: int, j: int, parity: int) -> SectorType:
        return self.sides[r][j][parity]

    def split_by(self, b: Branch, r: int, j: int, pred) -> list[tuple[Branch, SectorType]]:
        """Split ``b`` by the face of card j of row r: one branch per distinct value
        of ``pred(face)`` (lazy flips, see the module docstring)."""
        s = b.masks[r]
        lo = s & A_LOW[j]
        hi = s & ~A_LOW[j] & FULL
        f0, f1 = self.sides[r][j]
        if not hi:
            return [(b, f0)]
        if not lo:
            return [(b, f1)]
        if pred(f0) == pred(f1):
            # The face differs but nothing that follows depends on the difference.
            return [(b, f0)]
        b2 = b.copy()
        b.ops.append((r, "keep", lo, s))
        b.masks[r] = lo
        b2.ops.append((r, "keep", hi, s))
        b2.masks[r] = hi
        return [(b, f0), (b2, f1)]

    # ----- pending Deep Scan flips ----------------------------------------------
    def observe(self, b: Branch, r: int, j: int) -> list[Branch]:
        """The ship or the pod is about to meet card j of row r: the planner may
        apply a pending flip to it first (module docstring), then no pending flip
        may be applied to it any more."""
        if not b.pend:
            return [b]
        bit = 1 << (r * 5 + j)
        out = [b]
        seen = set()
        for k, e in enumerate(b.pend):
            if e[0] & bit or e[0] in seen:
                continue
            seen.add(e[0])
            b2 = b.copy()
            before = b2.masks[r]
            b2.masks[r] = xor_set(before, j)
            b2.ops.append((r, "xor", j, before))
            b2.ops.append((r, "papply", k, j))
            if e[1]:
                # Made this turn and applied now (the pod, or a second
                # action, met the card): a flip by choice this turn, which
                # this turn's re-scan may not flip again ([D23], ``_grid_end``).
                b2.chosen.append((r, j))
            del b2.pend[k]
            out.append(b2)
        for bb in out:
            bb.ops.append((r, "pobs", bit, None))
            for e in bb.pend:
                e[0] |= bit
        return out

    # ----- pending Deep Scan shifts ---------------------------------------------
    def enter_row(self, b: Branch, r: int) -> list[Branch]:
        """The ship is about to enter row r (0-based) from another row: the
        planner may first apply pending Deep Scan shifts to it, those that may
        still shift it (module docstring), then none may any more. A branch
        left with a pending shift that no row may take is dropped: the same
        Deep Scan as a flip of a card never met does what it did."""
        bit = 1 << r
        can = [k for k, m in enumerate(b.spend) if not m & bit]
        out = []
        seen = set()
        for n in range(len(can) + 1):
            for chosen in combinations(can, n):
                rest = tuple(sorted(m for k, m in enumerate(b.spend) if k not in chosen))
                if rest in seen:
                    continue  # the same shifts left: the same branch
                seen.add(rest)
                b2 = b.copy()
                for k in sorted(chosen, reverse=True):
                    b2.ops.append((r, "sapply", k, None))
                    del b2.spend[k]
                    self.shift(b2, r)
                if b2.spend:
                    b2.ops.append((r, "sobs", bit, None))
                    b2.spend = [m | bit for m in b2.spend]
                    if ALL_ROWS in b2.spend:
                        continue
                out.append(b2)
        return out

    # ----- movement -----------------------------------------------------------
    def fly(self, b: Branch, d: Direction) -> list[Branch]:
        """§5 Fly with boosts; returns the surviving branches (won ones marked)."""
        if b.ship == EARTH:
            return [b]
        out: list[Branch] = []
        work = [b]
        dr, dc = d.value
        while work:
            b = work.pop()
            r, c = b.ship
            nr, nc = r + dr, c + dc
            if (nr, nc) == EARTH:
                if b.held >= self.need:
                    b.ship = EARTH
                    if b.pod is None or b.pod == EARTH:
                        b.won = True
                    out.append(b)
                continue
            if not (1 <= nr <= 7 and 1 <= nc <= 5):
                continue
            ri = nr - 1
            if b.spend and nr != r and any(not (m >> ri) & 1 for m in b.spend):
                # Pending shifts settled for the row (``enter_row``), each
                # branch takes the step again.
                work.extend(self.enter_row(b, ri))
                continue
            j = (nc - 1 + b.rot[ri]) % 5
            if self.gap[ri][j]:
                continue
            b.ship = (nr, nc)
            if self.flippable[ri][j]:
                branches = []
                for bo in self.observe(b, ri, j):
                    before = bo.masks[ri]
                    bo.masks[ri] = xor_set(before, j)
                    bo.ops.append((ri, "xor", j, before))
                    branches += self._split_face(bo, ri, j)
            else:
                branches = [(b, SectorType.EMPTY)]
            for bb, face in branches:
                if face is SectorType.ASTEROID:
                    if bb.shields < 2:
                        continue
                    bb.shields = 0
                elif face is SectorType.OBSTRUCTED:
                    if not (self.options.low_memory and bb.shields == 2):
                        continue
                    bb.shields = 0
                    if bb.held:
                        bb.held -= 1
                    else:
                        gone = self._nearest_sample(bb)
                        if gone is not None:
                            bb.samples &= ~(1 << gone)
                bit = 1 << (ri * 5 + j)
                if bb.samples & bit:
                    bb.samples &= ~bit
                    if self.sample_virus[ri * 5 + j]:
                        bb.held += 1
                if face is SectorType.BOOST:
                    work.append(bb)
                else:
                    out.append(bb)
        return out

    def _split_face(self, b: Branch, r: int, j: int) -> list[tuple[Branch, SectorType]]:
        """Split ``b`` by the face of card j of row r (every face matters)."""
        return self.split_by(b, r, j, _same)

    def _nearest_sample(self, b: Branch) -> int | None:
        """§11: the face-down token nearest Earth; ties to the higher row, then the
        right column."""
        best = None
        s = b.samples
        while s:
            low = s & -s
            bit = low.bit_length() - 1
            s ^= low
            r, j = divmod(bit, 5)
            c = (j - b.rot[r]) % 5 + 1
            key = ((6 - r) + (6 - c), -r, -c)
            if best is None or key < best[0]:
                best = (key, bit)
        return best[1] if best else None

    def move_pod(self, b: Branch, d: Direction, steps: int) -> list[Branch]:
        """§10, [D19]: the pod meets face-up sides only; a gap or an O destroys it."""
        if b.pod is None or b.pod == EARTH:
            return [b]
        out = []
        work = [(b, steps)]
        dr, dc = d.value
        while work:
            b, n = work.pop()
            if n == 0:
                out.append(b)
                continue
            assert b.pod is not None  # each branch has the pod this began with
            r, c = b.pod
            nr, nc = r + dr, c + dc
            if (nr, nc) == EARTH:
                b.pod = EARTH
                if b.ship == EARTH:
                    b.won = True
                out.append(b)
                continue
            if not (1 <= nr <= 7 and 1 <= nc <= 5):
                out.append(b)
                continue
            ri = nr - 1
            j = (nc - 1 + b.rot[ri]) % 5
            if self.gap[ri][j]:
                continue
            is_o = SectorType.OBSTRUCTED
            for b1 in self.observe(b, ri, j) if self.flippable[ri][j] else [b]:
                for bb, face in self.split_by(b1, ri, j, _is_obstructed):
                    if face is is_o:
                        continue
                    bb.pod = (nr, nc)
                    work.append((bb, n - 1))
        return out

    def shift(self, b: Branch, r: int) -> None:
        """[D16] shift row r (0-based) one place left; [D17] the pod rides along."""
        b.rot[r] = (b.rot[r] + 1) % 5
        if b.pod is not None and b.pod != EARTH and b.pod[0] == r + 1 and 1 <= b.pod[1] <= 5:
            b.pod = (r + 1, 5 if b.pod[1] == 1 else b.pod[1] - 1)

    # ----- re-scan ------------------------------------------------------------
    def rescan_candidates(self, r: int, m: int, excluded: int) -> list[int]:
        reveal = self.options.reveal_once
        out = []
        for j in self.flip_idx[r]:
            if (excluded >> j) & 1:
                continue
            if reveal and (self.start_front[r][j] ^ ((m >> j) & 1)) == 0:
                continue  # 'reveal once': front-up cards only (§12)
            out.append(j)
        return out

    def rescan_choices(self, r: int, m: int, excluded: int) -> tuple[int, ...]:
        """Legal re-scan flips (as masks) of row r in pattern m."""
        key = (r, m, excluded)
        got = self._rescan_choice_cache.get(key)
        if got is None:
            cand = tuple(self.rescan_candidates(r, m, excluded))
            got = self._rescan_choice_cache[key] = flip_masks(cand, min(self.k_flips, len(cand)))
        return got

    def rescan_set(self, r: int, s: int, excluded: int) -> int:
        key = (r, s, excluded)
        got = self._rescan_cache.get(key)
        if got is None:
            got = 0
            if self.options.reveal_once:
                for m in members(s):
                    for p in self.rescan_choices(r, m, excluded):
                        got |= 1 << (m ^ p)
            else:
                for p in self.rescan_choices(r, 0, excluded):
                    got |= xor_mask_set(s, p)
            self._rescan_cache[key] = got
        return got

    # ----- heuristic -------------------------------------------------------------
    def _init_heuristic(self) -> None:
        """Relaxed action distances (admissible, see ``search``): a row may boost
        wherever it has a card with a B side (rows rotate, so the column is free);
        gaps, asteroids and obstructions are ignored."""
        B = SectorType.BOOST
        boosty = tuple(any(B in self.sides[r][j] for j in range(5) if not self.gap[r][j]) for r in range(7))
        self.to_earth, self.via_row = fly_distances(boosty)
        self.actions_per_turn = 2 if self.second_ok else 1

    def through_virus(self, pos: tuple[int, int], vir: int, none: int) -> int:
        """Fewest Fly actions from ``pos`` to Earth through a cell of a row
        holding one of the virus tokens ``vir`` (bits as ``SAMPLES``), or
        ``none`` when there is no such way (the grid bound of a ship that
        still needs a virus: ``search.Heuristic``, ``relaxed``)."""
        best = none
        while vir:
            low = vir & -vir
            best = min(best, self.via_row[(low.bit_length() - 1) // 5].get(pos, none))
            vir ^= low
        return best

    def actions(self, b: Branch, flipped: frozenset) -> list[tuple]:
        """Every action with its arguments (§5): (kind, arg)."""
        out: list[tuple] = [(FLY, d) for d in DIRECTIONS] + [(PEEK, d) for d in DIRECTIONS]
        if self.pending_ok:
            out.append((FLIP, None))
            # Explicit flips only where a pending one could not stand in: the
            # re-scan row of this turn ([D23]); other rows are filtered at the end
            # of the turn when a second action may still move the ship.
            rows = range(7) if self.second_ok else (
                [b.ship[0] + 1] if b.ship != EARTH and b.ship[0] + 2 <= 7 else [])
        else:
            rows = range(7)
        for r in rows:
            for j in self.flip_idx[r]:
                if (r, j) not in flipped:
                    out.append((FLIP, (r, j)))
        if self.pending_shifts:
            out.append((SHIFT, None))  # the row is chosen when the ship enters it
        else:
            out += [(SHIFT, r) for r in self.shiftable_rows(b)]
        out.append((SHIELDS, None))
        return out

    def class_actions(self, b: Branch, pay: tuple | None, scans: bool = True) -> list[tuple]:
        """``actions`` of pay class ``pay`` (``pay_class``; None: all, without
        the Deep Scans unless ``scans``)."""
        if pay is None:
            every = self.actions(b, frozenset())
            return every if scans else [a for a in every if a[0] not in (FLIP, SHIFT)]
        if pay[0] in (FLY, PEEK, SHIELDS):
            return [pay]  # (a class of one action)
        return [a for a in self.actions(b, frozenset()) if a[0] in (FLIP, SHIFT)]


    def shiftable_rows(self, b: Branch) -> list[int]:
        """[D14] any row but the ship's (0-based indices); all when at Earth, but
        row 7 under option 'earth-in-row-7' (the waiting ship counts as in row 7;
        EARTH's row is 7, so the general rule does it)."""
        if b.ship == EARTH and not self.options.earth_in_row_7:
            return list(range(7))
        return [r for r in range(7) if r != b.ship[0] - 1]

    def apply_action(self, b: Branch, act: tuple, flipped: frozenset) -> tuple[list[Branch], frozenset]:
        kind, arg = act
        if kind == FLY:
            return self.fly(b, arg), flipped
        if kind == FLIP and arg is None:
            b.pend.append([0, True])
            b.ops.append((0, "pnew", None, None))
            return [b], flipped
        if kind == FLIP:
            r, j = arg
            b.xrows.append(r)
            before = b.masks[r]
            b.masks[r] = xor_set(before, j)
            b.ops.append((r, "xor", j, before))
            return [b], flipped | {arg}
        if kind == SHIFT and arg is None:
            # A pending shift: of a row but the ship's ([D14]), chosen later.
            blocked = ALL_ROWS & ~sum(1 << r for r in self.shiftable_rows(b))
            b.spend.append(blocked)
            b.ops.append((0, "snew", blocked, None))
            return [b], flipped
        if kind == SHIFT:
            self.shift(b, arg)
            return [b], flipped
        if kind == SHIELDS:
            b.shields = min(2, b.shields + 1)
        return [b], flipped

    def branch_of(self, st: tuple) -> Branch:
        b = Branch.__new__(Branch)
        b.ship, b.pod, b.shields, b.held = st[SHIP], st[POD], st[SHL], st[HELD]
        b.rot, b.masks, b.samples = list(st[ROT]), list(st[MASKS]), st[SAMPLES]
        b.ops, b.dead, b.won = [], False, False
        b.pend = [[m, False] for m in st[PEND] if m < SHIFT_TAG]
        b.spend = [m ^ SHIFT_TAG for m in st[PEND] if m >= SHIFT_TAG]
        b.xrows = []
        b.chosen = []
        return b


def _is_obstructed(face: SectorType) -> bool:
    return face is SectorType.OBSTRUCTED


def _same(face: SectorType) -> SectorType:
    return face
