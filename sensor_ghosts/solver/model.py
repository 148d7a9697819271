"""The solver's own compact model of a fully observed game (RULES.md §15).

This module re-implements the turn (§4-§12) on a hashable tuple state so that the
search can deduplicate and compare states cheaply. It deliberately shares no code
with ``rules.engine``: the independent cross-check (``solver.reference``) runs
the engine itself, and every plan is replayed through the engine before it is
returned, so a divergence between the two models shows up as a failed replay or
a disagreeing optimum.

Exact reductions made here (each keeps the set of reachable *outcomes* intact):

* **Lazy re-scan flips** (§15, deal/open modes only). Cards never leave their
  row: a row shift only rotates it ([D16]). So a row is (rotation, the set of
  up-side patterns its past flips can still produce). A pattern is a 5-bit mask
  (bit j: card j of the row, in its order at the start, is turned over relative
  to the start); a *set* of patterns is a 32-bit integer. A re-scan maps the set
  S to the union, over every pattern m in S, of m XOR every legal choice for m
  (two different flippable cards, [D23] cards flipped by choice this turn
  excluded, 'reveal once' front-up cards only). Movement flips and Deep Scan
  flips XOR one bit in every pattern. Nothing in the rules depends on a face
  until the ship or the pod meets the card; at that moment the state splits into
  one successor per distinct face among the patterns (the solver may decide the
  earlier flips either way, so each split is a real option). A plan is turned
  back into concrete flips by walking the pattern sets backwards
  (``plan.concretize``): every pattern in a set has, by construction, a
  predecessor pattern and a legal choice leading to it. In *expected* mode flips
  must be decided before later draws are seen, so they are explicit there.
* **Deferred Deep Scan shifts** (deal/open modes, without the escape pod, low
  memory mode or a second action). A row's rotation matters only to a ship
  entering it: a re-scan flips cards by identity, shifts add up (the
  re-scan's own shift of the row ahead commutes with them), and a token rides
  on its card. So a Deep Scan shift is *pending* (``(SHIFT, None)``) until
  the ship next enters a row from another one; then the planner may apply it
  there (``enter_row``), as if the row had been shifted on the Deep Scan's
  turn, or leave it, and it may no longer take that row. It may never take
  the ship's row of its turn ([D14]). A pending shift left with no row it
  may take is dropped: that Deep Scan did nothing the ship met, which the
  same Deep Scan as a pending flip of a card never met does too. A plan
  names the row (``plan.pending_shift_targets``: the row it was applied to,
  or one the ship never entered again) and gives the columns of the cards
  it re-scans or flips in that row meanwhile from the rotation with the
  shift made (``plan.shift_rotation``). Where the pod moves, low memory mode
  takes the token nearest Earth, or a second action follows a Fly, a
  rotation matters at other times, and every shift names its row at once.
  Named at once, a Deep Scan's shifts took over half the time of the card
  search's grid checks (``split``; the middle 40 setups in deal mode: 51
  checks a solve, 3.0 of 5.5 ms), and 8 of the 51 led on; deferred, they
  are one successor: on setups 0-199 a solve took 0.882 of the time per setup in
  deal mode and 0.877 in open mode, the same optimum, cards and cards left
  on all 200 (``tests/solver/test_pending_shifts.py`` compares them with the
  shifts named at once).
* **Useless bolster** is not generated: spending a sample beyond 2 shields only
  loses a held virus, which is dominated (see ``search``). Nor is a bolster
  whose shields this turn's flight does not spend (without the §12 second
  action): the same turn without it keeps the virus, which can be spent at the
  start of any later turn, before any later flight.
* **Dominated commands**: a Peek with the Wild or three cards is matched or
  beaten by a Shields action with the same cards; three cards holding a card
  other than a Fly card put that card on top (no heading allows all that a
  heading allows, [D11]), except with the escape pod, whose move depends on
  the top card's value (§10).
* **Interchangeable cards**: a top card's identity matters only through its kind
  (the heading, [D11]) and, with the escape pod, its pod value (§10); commands
  that differ only in which equivalent card lies on top give the same state and
  are generated once. In *open* mode cards are tracked only by that type (kind,
  and pod value with the pod): the solver chooses the order of the deck, so any
  card of a type is as good as another.

The rule options for gaps in RULES.md are followed as the engine follows them:
'pod-once-per-turn' (``pod_once``: the first of two actions leaves the pod),
'helpers-once-per-turn' (``second_ok``: no second action in a multi-player
game) and 'earth-in-row-7' (``shiftable_rows``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from itertools import combinations

import numpy as np

from ..rules.cards import CommandKind, SectorType, Side
from ..rules.geometry import DIRECTIONS, DOCK, EARTH, Direction
from ..rules.setup import Gap, Slot
from ..rules.state import GameState

FULL = (1 << 32) - 1
# A_LOW[j]: the set (as a 32-bit int) of patterns whose bit j is clear.
A_LOW = [sum(1 << m for m in range(32) if not (m >> j) & 1) for j in range(5)]

# Action kinds in the model (kept as short strings: states are tuples).
FLY, PEEK, FLIP, SHIFT, SHIELDS = "fly", "peek", "flip", "shift", "shields"
# A pending Deep Scan shift in a state's pending entries (``PEND``, after
# the pending flips): this bit, and the rows it may no longer shift
# (``Model.enter_row``).
SHIFT_TAG = 1 << 40
ALL_ROWS = (1 << 7) - 1
# Indices into a model state tuple.
SHIP, POD, SHL, HELD, ROT, MASKS, SAMPLES, HANDS, DECK, DISC, HEAD, PASS2, ACTIVE, PEND = range(14)

KIND_FLY, KIND_DS, KIND_SH, KIND_WILD = 0, 1, 2, 3
_KIND_CODE = {
    CommandKind.FLY: KIND_FLY,
    CommandKind.DEEP_SCAN: KIND_DS,
    CommandKind.SHIELDS: KIND_SH,
    CommandKind.WILD: KIND_WILD,
}


# The pay class of every Deep Scan, a flip or a shift (``pay_class``).
SCAN = ("scan", None)


def pay_class(act: tuple) -> tuple:
    """What the cards paying for an action see of it: Fly and Peek with their
    direction ([D11] the heading), any Deep Scan (a flip or a shift: the same
    cards pay for each), Shields."""
    kind = act[0]
    if kind in (FLY, PEEK):
        return act
    return SCAN if kind in (FLIP, SHIFT) else (SHIELDS, None)


def xor_set(s: int, j: int) -> int:
    """The pattern set with bit ``j`` toggled in every pattern."""
    k = 1 << j
    lo = A_LOW[j]
    return ((s & lo) << k) | ((s >> k) & lo)


def xor_mask_set(s: int, p: int) -> int:
    for j in range(5):
        if (p >> j) & 1:
            s = xor_set(s, j)
    return s


def members(s: int) -> list[int]:
    out = []
    while s:
        low = s & -s
        out.append(low.bit_length() - 1)
        s ^= low
    return out


class Branch:
    """Mutable grid-and-ship part of a state while a turn is being resolved."""

    __slots__ = ("ship", "pod", "shields", "held", "rot", "masks", "samples", "ops", "dead", "won",
                 "pend", "spend", "xrows")

    def copy(self) -> Branch:
        b = Branch.__new__(Branch)
        b.ship, b.pod, b.shields, b.held = self.ship, self.pod, self.shields, self.held
        b.rot, b.masks, b.samples = list(self.rot), list(self.masks), self.samples
        b.ops, b.dead, b.won = list(self.ops), self.dead, self.won
        b.pend = [list(e) for e in self.pend]
        b.spend = list(self.spend)
        b.xrows = list(self.xrows)
        return b


class Model:
    """Static facts of one instance and the turn transition on model states.

    ``mode`` is 'deal' (card tokens are the cards themselves, the deck a fixed
    sequence), 'open' (tokens are card *types*, the deck a multiset from which
    every draw is chosen) or 'expected' (tokens are types; draws are returned as
    chance outcomes; flips are explicit: pattern sets stay singletons).
    """

    def __init__(self, start: GameState, mode: str = "deal"):
        self.start = start
        self.mode = mode
        self._keep: Callable[[tuple], bool] | None = None  # see successors()
        self.lazy = mode in ("deal", "open")
        # Deferred Deep Scan flips: exact only while faces never decide which cards
        # a re-scan may flip ('reveal once' makes them decide).
        self.pending_ok = self.lazy and not start.options.reveal_once
        o = start.options
        self.options = o
        self.players = o.players
        self.limit = o.hand_limit
        self.need = o.samples_to_win
        self.k_flips = o.rescan_flips
        self.pod_variant = o.escape_pod
        # §12 second action. Option 'helpers-once-per-turn' (§9): each player
        # plays one card in the whole turn; every command holds one of the
        # active player's cards (§9), spent on the first action, so a
        # multi-player game has no second action under it (solo is unaffected).
        self.second_ok = o.second_action and not (o.helpers_once_per_turn and o.players > 1)
        # Option 'pod-once-per-turn' (§10, §12): the pod moves once a turn, after
        # the last action; the first of two actions leaves it where it is.
        self.pod_once = self.second_ok and o.escape_pod and o.pod_once_per_turn
        # Deferred Deep Scan shifts (``enter_row``): exact while a row's
        # rotation matters only to a ship entering it; the escape pod, low
        # memory mode's nearest token and a second action read it at other
        # times.
        self.pending_shifts = self.pending_ok and not self.second_ok and not o.escape_pod and not o.low_memory
        cc = start.setup.command_cards
        self.card_ids = [c.id for c in cc.game_cards(o.difficulty, o.players)]
        wild = cc.wild.id
        # Every card that can appear (a mid-game state may hold any of them).
        for cid in (
            [c for h in start.hands for c in h] + list(start.deck) + [e.card for e in start.discard]
        ):
            if cid not in self.card_ids:
                self.card_ids.append(cid)
        if wild not in self.card_ids:
            self.card_ids.append(wild)
        kinds = [_KIND_CODE[cc.by_id(c).kind] for c in self.card_ids]
        values = [cc.by_id(c).pod_value for c in self.card_ids]
        if mode == "deal":
            self.tok_of_card = {c: i for i, c in enumerate(self.card_ids)}
            self.tok_kind = kinds
            self.tok_value = values
            self.wild_tok = self.tok_of_card[wild]
            rank = {c: i for i, c in enumerate(start.ranking)}
            self.tok_rank = [rank.get(c, 99 + i) for i, c in enumerate(self.card_ids)]
        else:
            types: list[tuple[int, int]] = []
            self.tok_of_card = {}
            for c, k, v in zip(self.card_ids, kinds, values, strict=True):
                t = (k, v if self.pod_variant else 0)
                if t not in types:
                    types.append(t)
                self.tok_of_card[c] = types.index(t)
            self.types = types
            self.tok_kind = [t[0] for t in types]
            self.tok_value = [t[1] for t in types]
            self.wild_tok = self.tok_of_card[wild]
            self.cards_of_tok = [[c for c in self.card_ids if self.tok_of_card[c] == t] for t in range(len(types))]
        # What a command paid with a card can do depends on its class alone
        # (its kind, and its value with the pod: ``play_commands``).
        self.tok_classes = [(k, v if self.pod_variant else 0) for k, v in zip(self.tok_kind, self.tok_value, strict=True)]
        # ----- the grid -----------------------------------------------------
        self.gap = [[False] * 5 for _ in range(7)]
        self.flippable = [[False] * 5 for _ in range(7)]
        self.sides: list[list[tuple[SectorType, SectorType]]] = [[] for _ in range(7)]
        self.sample_virus: dict[int, bool] = {}
        self.sample_id: dict[int, int] = {}
        samples = 0
        for r in range(7):
            for j in range(5):
                cell = start.grid[r][j]
                if isinstance(cell, Gap):
                    self.gap[r][j] = True
                    self.sides[r].append((SectorType.EMPTY, SectorType.EMPTY))
                    continue
                assert isinstance(cell, Slot)
                self.flippable[r][j] = cell.flippable
                up, down = cell.face, cell.down
                self.sides[r].append((up, down))  # index: parity relative to the start
                if cell.sample is not None:
                    samples |= 1 << (r * 5 + j)
                    self.sample_virus[r * 5 + j] = cell.sample.virus
                    self.sample_id[r * 5 + j] = cell.sample.id
        self.start_front = [
            [isinstance(c, Slot) and c.up is Side.FRONT for c in row] for row in start.grid
        ]
        self.flip_idx = [[j for j in range(5) if self.flippable[r][j]] for r in range(7)]
        self.virus_bits = sum(1 << b for b, v in self.sample_virus.items() if v)
        self.initial_samples = samples
        self._rescan_cache: dict[tuple[int, int, int], int] = {}
        self._draw_cache: dict[tuple, list] = {}
        self._rescan_choice_cache: dict[tuple[int, int, int], list[int]] = {}
        self._init_heuristic()

    # ----- states ----------------------------------------------------------
    def root_state(self) -> tuple:
        """The start as a model state (cards as the start state has them)."""
        s = self.start
        tok = self.tok_of_card
        hands = tuple(tuple(sorted(tok[c] for c in h)) for h in s.hands)
        if self.mode == "deal":
            deck = tuple(tok[c] for c in s.deck)
        else:
            deck = tuple(sorted(tok[c] for c in s.deck))
        disc = tuple(sorted(tok[e.card] for e in s.discard))
        masks = tuple(1 for _ in range(7))  # the single pattern 0
        return (
            s.ship, s.pod, s.shields, s.held, (0,) * 7, masks, self.initial_samples,
            hands, deck, disc, s.heading, s.second_pass, s.active, (),
        )

    def open_roots(self) -> list[tuple[tuple, tuple]]:
        """Open mode from a fresh setup: every choice of opening hands (by type).
        Returns (state, dealt tokens per player)."""
        s = self.start
        pool = tuple(sorted(self.tok_of_card[c] for c in list(s.deck) + [c for h in s.hands for c in h]))
        out = []
        self._deal_hands(0, pool, [], self.root_state(), out)
        return out

    def _deal_hands(self, p: int, pool: tuple, hands: list, base: tuple, out: list) -> None:
        """``open_roots``' recursion: the hands of players ``p`` and after.
        (A method, not a closure: a closure that calls itself is a reference
        cycle, which keeps the model and its caches alive until the cyclic
        garbage collector runs.)"""
        if p == self.players:
            st = list(base)
            st[HANDS] = tuple(hands)
            st[DECK] = pool
            out.append((tuple(st), tuple(hands)))
            return
        for combo in sorted(set(combinations(pool, self.limit))):
            rest = list(pool)
            for t in combo:
                rest.remove(t)
            self._deal_hands(p + 1, tuple(rest), hands + [tuple(sorted(combo))], base, out)

    # ----- faces -----------------------------------------------------------
    def face(self, r: int, j: int, parity: int) -> SectorType:
        return self.sides[r][j][parity]

    def col_to_idx(self, rot: list | tuple, r: int, c: int) -> int:
        return (c - 1 + rot[r]) % 5

    def idx_to_col(self, rot: list | tuple, r: int, j: int) -> int:
        return (j - rot[r]) % 5 + 1

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

    def rescan_choices(self, r: int, m: int, excluded: int) -> list[int]:
        """Legal re-scan flips (as masks) of row r in pattern m."""
        key = (r, m, excluded)
        got = self._rescan_choice_cache.get(key)
        if got is None:
            cand = tuple(self.rescan_candidates(r, m, excluded))
            got = self._rescan_choice_cache[key] = _flip_masks(cand, min(self.k_flips, len(cand)))
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
        self.to_earth, self.via_row = _fly_distances(boosty)
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

    # ----- cards ------------------------------------------------------------------
    def _reshuffled(self, disc: tuple) -> tuple:
        """[D15], [D22]: the discard pile and the Wild, in ranking order (deal) or
        as a multiset (open/expected)."""
        pile = disc + (self.wild_tok,)
        if self.mode == "deal":
            return tuple(sorted(pile, key=self.tok_rank.__getitem__))
        return tuple(sorted(pile))

    def deck_tops(self, deck: tuple, disc: tuple, pass2: bool) -> list[tuple]:
        """[D18] The card on top of the deck for a two-player wild: (token, deck
        after taking it, discard, pass2, reshuffled?). Open mode chooses it."""
        reshuffled = False
        if not deck:
            if pass2:
                return []
            deck, disc, pass2, reshuffled = self._reshuffled(disc), (), True, True
        if self.mode == "deal":
            return [(deck[0], deck[1:], disc, pass2, reshuffled)]
        out = []
        for t in sorted(set(deck)):
            rest = list(deck)
            rest.remove(t)
            out.append((t, tuple(rest), disc, pass2, reshuffled))
        return out

    def draw_outcomes(self, hand: tuple, deck: tuple, disc: tuple, head, pass2: bool):
        """§7 draw up to the limit: list of (hand, deck, disc, head, pass2, drawn)
        where ``drawn`` lists the tokens drawn ('R' marks the reshuffle). Empty when
        the deck runs out on the second pass (a loss)."""
        key = (hand, deck, disc, head, pass2)
        got = self._draw_cache.get(key)
        if got is not None:
            return got
        out: list = []
        limit = self.limit
        if self.mode == "deal":
            # One outcome: the deck's top cards.
            drawn_: list = []
            while len(hand) < limit:
                if not deck:
                    if pass2:
                        break  # the deck ran out on the second pass: no outcome
                    deck, disc, head, pass2 = self._reshuffled(disc), (), None, True
                    drawn_.append("R")
                hand += (deck[0],)
                drawn_.append(deck[0])
                deck = deck[1:]
            else:
                out.append((tuple(sorted(hand)), deck, disc, head, pass2, tuple(drawn_)))
            if len(self._draw_cache) < 200_000:
                self._draw_cache[key] = out
            return out

        self._draw_rec(out, hand, deck, disc, head, pass2, [], -1)
        if len(self._draw_cache) < 200_000:
            self._draw_cache[key] = out
        return out

    def _draw_rec(self, out: list, hand, deck, disc, head, pass2, drawn, floor) -> None:
        """``draw_outcomes``' recursion in open mode (a method for the reason
        ``_deal_hands`` gives)."""
        if len(hand) >= self.limit:
            out.append((tuple(sorted(hand)), deck, disc, head, pass2, tuple(drawn)))
            return
        if not deck:
            if pass2:
                return
            deck, disc, head, pass2 = self._reshuffled(disc), (), None, True
            drawn = drawn + ["R"]
            floor = -1
        # The deck is sorted here (a multiset of card types): each type's
        # first copy is drawn, and the deck without it stays sorted.
        prev = -1
        for i, t in enumerate(deck):
            if t == prev or t < floor:
                continue  # a multiset: draw in non-decreasing order within a pass
            prev = t
            self._draw_rec(out, hand + (t,), deck[:i] + deck[i + 1 :], disc, head, pass2, drawn + [t], t)

    def plays(self, hands: tuple, deck: tuple, disc: tuple, pass2: bool, active: int):
        """Card sets the active player may play (§4 step 2, §9, [D18], [D24]):
        (cards ((token, player), ...), how, hands', deck', disc', pass2', reshuffled).
        (Open mode's card search plays from hands of pending cards with
        ``lazy_draws.plays`` and ``team_plays``, which follow these rules;
        the tests check them against this over every hand the pending cards
        may stand for.)"""
        kind = self.tok_kind
        hand = hands[active]
        wild = self.wild_tok
        out = []
        open_ = self.mode != "deal"

        def without(hs, p, t):
            h = list(hs[p])
            h.remove(t)
            return hs[:p] + (tuple(h),) + hs[p + 1 :]

        singles = sorted(set(hand)) if open_ else hand
        for t in singles:
            out.append((((t, active),), "single", without(hands, active, t), deck, disc, pass2, False))
        if self.players == 1:
            flies = [t for t in hand if kind[t] == KIND_FLY]
            # dict.fromkeys: equal token combinations (open mode) once, in order;
            # in deal mode tokens are distinct cards, so nothing is dropped.
            for pair in dict.fromkeys(combinations(flies, 2)):
                hs = without(without(hands, 0, pair[0]), 0, pair[1])
                out.append((((pair[0], 0), (pair[1], 0)), "pair", hs, deck, disc, pass2, False))
            if wild not in hand:
                for tri in dict.fromkeys(combinations(hand, 3)):
                    rest = list(hand)
                    for t in tri:
                        rest.remove(t)
                    out.append((tuple((t, 0) for t in tri), "triple", (tuple(rest),), deck, disc, pass2, False))
            return out
        others = [p for p in range(self.players) if p != active]
        mine_f = sorted(set(t for t in hand if kind[t] == KIND_FLY)) if open_ else [t for t in hand if kind[t] == KIND_FLY]
        for t in mine_f:
            h1 = without(hands, active, t)
            for p in others:
                theirs = sorted(set(hands[p])) if open_ else hands[p]
                for u in theirs:
                    if kind[u] == KIND_FLY:
                        out.append((((t, active), (u, p)), "pair", without(h1, p, u), deck, disc, pass2, False))
        if wild in hand:
            return out
        usable = [t for t in singles if t != wild]
        if self.players == 2:
            helper = others[0]
            tops = self.deck_tops(deck, disc, pass2)
            for top, deck2, disc2, pass2b, resh in tops:
                if top == wild:
                    continue
                for t in usable:
                    h1 = without(hands, active, t)
                    theirs = sorted(set(hands[helper])) if open_ else hands[helper]
                    for u in theirs:
                        if u != wild:
                            out.append((((t, active), (u, helper), (top, -1)), "triple",
                                        without(h1, helper, u), deck2, disc2, pass2b, resh))
            return out
        for t in usable:
            h1 = without(hands, active, t)
            for p, q in combinations(others, 2):
                hp = sorted(set(hands[p])) if open_ else hands[p]
                hq = sorted(set(hands[q])) if open_ else hands[q]
                for a in hp:
                    for bq in hq:
                        if wild not in (a, bq):
                            out.append((((t, active), (a, p), (bq, q)), "triple",
                                        without(without(h1, p, a), q, bq), deck, disc, pass2, False))
        return out

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

    def class_actions(self, b: Branch, pay: tuple | None) -> list[tuple]:
        """``actions`` of pay class ``pay`` (``pay_class``; None: all)."""
        if pay is None:
            return self.actions(b, frozenset())
        if pay[0] in (FLY, PEEK, SHIELDS):
            return [pay]  # (a class of one action)
        return [a for a in self.actions(b, frozenset()) if a[0] in (FLIP, SHIFT)]

    def wild_actions(self, every: list[tuple]) -> list[tuple]:
        """The actions worth taking with the Wild or three cards, of ``every``
        action: all but Peek, which a Shields action with the same cards (and
        the same top card and arrow) always matches or beats: shields only help."""
        return [a for a in every if a[0] != PEEK]

    def shiftable_rows(self, b: Branch) -> list[int]:
        """[D14] any row but the ship's (0-based indices); all when at Earth, but
        row 7 under option 'earth-in-row-7' (the waiting ship counts as in row 7;
        EARTH's row is 7, so the general rule does it)."""
        if b.ship == EARTH and not self.options.earth_in_row_7:
            return list(range(7))
        return [r for r in range(7) if r != b.ship[0] - 1]

    def commands(self, b: Branch, cards: tuple, flipped: frozenset, pod_moves: bool = True,
                 actions: list[tuple] | None = None, paid: tuple | None = None):
        """(played, action, arrow, pod_dir, value, cards', reshuffled) for
        every legal command. cards = (hands, deck, disc, head, pass2, active).
        ``pod_moves`` False: the pod does not move after this command
        ('pod-once-per-turn', first of two actions), so no pod direction is
        chosen. ``actions``: the actions to consider instead of
        ``self.actions(b, flipped)`` (``solver.split`` asks for one of each
        pay class). ``paid``: only the plays that leave the hands, deck and
        pass of the card state ``paid`` (the caller matches the rest)."""
        hands, deck, disc, head, pass2, active = cards
        every = self.actions(b, flipped) if actions is None else actions
        pod_free = pod_moves and b.pod is not None and b.pod != EARTH
        for played, how, hs, dk, dc, p2, resh in self.plays(hands, deck, disc, pass2, active):
            if paid is not None and (hs != paid[0] or dk != paid[1] or p2 != paid[4]):
                continue
            disc1 = tuple(sorted(dc + tuple(t for t, _ in played)))
            for order, act, arrow, pd, value in self.play_commands(played, how, head, every, pod_free):
                yield (order, act, arrow, pd, value, (hs, dk, disc1, arrow, p2, active), resh)

    def play_commands(self, played: tuple, how: str, head, every: list[tuple], pod_free: bool) -> list[tuple]:
        """(played in order, the top last; action; arrow; pod direction; the
        top's value) for every command paid with the cards ``played`` (a play
        of ``plays``, of kind ``how``), the heading ``head`` before it, of the
        actions ``every``; ``pod_free``: the pod moves after it, in a direction
        chosen unless the top card is a Fly card (§10). A function of its
        arguments alone (``solver.split`` keeps its answers)."""
        toks = [t for t, _ in played]
        if how == "single":
            k = self.tok_kind[toks[0]]
            if k == KIND_FLY:
                dirs = DIRECTIONS if head is None else (head,)
                acts = [(a, d) for a in (FLY, PEEK) for d in dirs]
            elif k == KIND_DS:
                acts = [a for a in every if a[0] in (FLIP, SHIFT)]
            elif k == KIND_SH:
                acts = [(SHIELDS, None)]
            else:
                acts = self.wild_actions(every)
        elif how == "pair":
            acts = [(a, d) for a in (FLY, PEEK) for d in DIRECTIONS]
        else:
            acts = self.wild_actions(every)
        # One top per class of equivalent cards (module docstring).
        tops = []
        if how == "triple" and not self.pod_variant:
            # Without the pod, a card other than a Fly card on top leaves no
            # heading, which allows all a heading allows [D11]: it is the
            # only top worth trying when the three cards hold one.
            tops = [i for i, t in enumerate(toks) if self.tok_kind[t] != KIND_FLY][:1]
        if not tops:
            seen = set()
            for i, t in enumerate(toks):
                c = self.tok_classes[t]
                if c not in seen:
                    seen.add(c)
                    tops.append(i)
        out = []
        for i in tops:
            order = tuple(played[:i] + played[i + 1 :] + played[i : i + 1])
            top = played[i][0]
            top_fly = self.tok_kind[top] == KIND_FLY
            value = self.tok_value[top]
            pods = list(DIRECTIONS) if pod_free and not top_fly else [None]
            for act in acts:
                if top_fly:
                    arrows = [act[1]] if act[0] in (FLY, PEEK) else list(DIRECTIONS)
                else:
                    arrows = [None]
                for arrow in arrows:
                    for pd in pods:
                        out.append((order, act, arrow, pd, value))
        return out

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
        return b

    def successors(
        self, st: tuple, keep: Callable[[tuple], bool] | None = None, pay: tuple | None = None,
        paid: tuple | None = None,
    ) -> list[tuple]:
        """Every successor of a model state after one whole turn (with ``keep``:
        the won ones and those whose grid, the state's first seven fields,
        ``keep`` accepts; with ``pay``: only turns of that pay class, one
        action a turn; with ``paid`` too: only commands that leave that card
        state, before the draw):
        (state', record, cards_played, won). ``record`` = (bolster, cmd1, cmd2,
        drawn, rescan, ops) where cmd = (cards, action, arrow, pod_dir, target_pos),
        ``rescan`` is the explicit choice (expected mode) or None, and ``ops`` logs
        the pattern-set operations (lazy modes)."""
        # ``keep`` reaches ``_emit`` (under every path that ends a turn) as
        # this attribute, set only for the duration of the call.
        assert pay is None or not self.second_ok
        self._keep = keep
        try:
            return self._successors(st, pay, paid)
        finally:
            self._keep = None

    def _successors(self, st: tuple, pay: tuple | None = None, paid: tuple | None = None) -> list[tuple]:
        out: list[tuple] = []
        cards0 = st[HANDS:PEND]
        if not st[HANDS][st[ACTIVE]]:
            self._emit(self.grid_skip(st), cards0, 0, None, None, 0, out)
            return out
        for bolster, base, useful_only in self._bolstered(st):
            # The grid's side of a turn depends on the action (and the pod's
            # move), not on which cards pay for it: worked out once per action.
            grid_ends: dict | None = None if self.second_ok or self.pod_once else {}
            every = None if pay is None else self.class_actions(base, pay)
            for c1 in self.commands(base, cards0, frozenset(), actions=every, paid=paid):
                order, act, arrow, pd, value, cards1, _ = c1
                if (pay is not None and pay_class(act) != pay) or (paid is not None and cards1 != paid):
                    continue
                if grid_ends is not None:
                    key = (act, self.pod_move(c1))
                    ends = grid_ends.get(key)
                    if ends is None:
                        ends = grid_ends[key] = self._action_ends(base, act, key[1], useful_only)
                    rec1 = self._cmd_record(base, c1)
                    for end in ends:
                        self._emit(end, cards1, bolster, rec1, None, len(order), out)
                    continue
                b1 = base.copy()
                rec1 = self._cmd_record(b1, c1)
                # Here a bolster need not pay off at once (``_bolstered``).
                for b2, fl in self._run(b1, c1, frozenset()):
                    b3 = None
                    if self.second_ok and not self.pod_once and not b2.won and b2.held >= 1:
                        b3 = b2.copy()  # before _finish, which may reuse b2
                    self._finish(b2, cards1, bolster, rec1, None, fl, len(order), out)
                    if b3 is not None:
                        self._second(b3, c1, rec1, bolster, fl, out)
            if self.pod_once:
                # 'pod-once-per-turn': the first of two actions leaves the pod
                # where it is (no pod direction); the second moves it.
                for c1 in self.commands(base, cards0, frozenset(), pod_moves=False):
                    b1 = base.copy()
                    rec1 = self._cmd_record(b1, c1)
                    for b2, fl in self._run(b1, c1, frozenset(), pod_moves=False):
                        if not b2.won and b2.held >= 1:
                            self._second(b2, c1, rec1, bolster, fl, out)
        return out

    def _bolstered(self, st: tuple):
        """§4 step 1, every bolster worth trying: (virus spent, the branch after
        it, whether it must pay off this turn)."""
        held, shields = st[HELD], st[SHL]
        for bolster in range(0, min(held, 2 - shields) + 1):
            base = self.branch_of(st)
            base.shields += bolster
            base.held -= bolster
            # A bolster pays only for shields this turn's flight spends: else
            # the same turn without it leaves the virus held, to be spent at
            # the start of any later turn, before any later flight.
            yield bolster, base, bool(bolster) and not self.second_ok

    def _action_ends(self, base: Branch, act: tuple, pod: tuple | None, useful_only: bool) -> list:
        """The grid ends (``_grid_end``) of action ``act`` from ``base``, then
        the pod's move ``pod``, without the bolsters that did not pay
        (``useful_only``: only a flight that spends the shields)."""
        if useful_only and act[0] != FLY:
            return []
        return [
            self._grid_end(b2, fl)
            for b2, fl in self._run_move(base.copy(), act, pod, frozenset())
            if not (useful_only and b2.shields >= base.shields and not b2.won)
        ]

    def grid_moves(self, st: tuple, pod: tuple | None = None, only: tuple | None = None) -> list[tuple[tuple, tuple]]:
        """The grid's side of every turn from ``st`` with a command whatever
        cards pay for it, the pod (if any) moving by ``pod`` (``pod_move``):
        (action, ``_grid_end``) pairs over every bolster and every action
        (of pay class ``only``, if given). Without the §12 second action a
        turn's grid side is its action's and the pod's move alone
        (``solver.split``)."""
        assert not self.second_ok
        out = []
        for _bolster, base, useful_only in self._bolstered(st):
            peek = None  # a Peek changes nothing on the grid, whatever its direction
            for act in self.class_actions(base, only):
                if act[0] == PEEK:
                    if peek is None:
                        peek = self._action_ends(base, act, pod, useful_only)
                    ends = peek
                else:
                    ends = self._action_ends(base, act, pod, useful_only)
                out.extend((act, end) for end in ends if end is not None)
        return out

    def grid_skip(self, st: tuple) -> tuple | None:
        """The grid's side of a turn whose active player holds no card (§9:
        no bolster, no command; the re-scan)."""
        return self._grid_end(self.branch_of(st), frozenset())

    def _second(self, b3: Branch, c1: tuple, rec1: tuple, bolster: int, fl: frozenset, out: list) -> None:
        """§12: a held virus sample buys a second action after command ``c1``."""
        b3.held -= 1
        for c2 in self.commands(b3, c1[5], fl):
            b4 = b3.copy()
            rec2 = self._cmd_record(b4, c2)
            for b5, fl2 in self._run(b4, c2, fl):
                self._finish(b5, c2[5], bolster, rec1, rec2, fl2, len(c1[0]) + len(c2[0]), out)

    def _cmd_record(self, b: Branch, c: tuple) -> tuple:
        order, act, arrow, pd, value, cards1, resh = c
        pos = None
        if act[0] == FLIP and act[1] is None:
            pos = tuple(b.rot)  # resolved when the plan is built
        elif act[0] == FLIP:
            r, j = act[1]
            pos = (r + 1, (j - b.rot[r]) % 5 + 1)
        elif act[0] == SHIFT and act[1] is not None:
            pos = act[1] + 1
        return (order, act, arrow, pd, pos, resh)

    def pod_move(self, c: tuple) -> tuple | None:
        """§10: (direction, steps) of the escape pod after command ``c``: the
        top card's arrow if it is a Fly card, else the direction chosen, by the
        top card's value; None without the pod or when it has arrived."""
        if not self.pod_variant:
            return None
        order, _act, arrow, pd, value = c[:5]
        direction = arrow if self.tok_kind[order[-1][0]] == KIND_FLY else pd
        return None if direction is None else (direction, value)

    def _run(self, b: Branch, c: tuple, flipped: frozenset, pod_moves: bool = True):
        return self._run_move(b, c[1], self.pod_move(c) if pod_moves else None, flipped)

    def _run_move(self, b: Branch, act: tuple, pod: tuple | None, flipped: frozenset):
        """Action ``act``, then the pod's move ``pod`` (``pod_move``)."""
        branches, fl = self.apply_action(b, act, flipped)
        for bb in branches:
            if bb.won or bb.pod is None or pod is None:
                yield bb, fl
                continue
            for bp in self.move_pod(bb, pod[0], pod[1]):
                yield bp, fl

    def _finish(self, b: Branch, cards: tuple, bolster, rec1, rec2, flipped, ncards, out) -> None:
        """The end of a turn (``_grid_end``, then the draw) as successors."""
        self._emit(self._grid_end(b, flipped), cards, bolster, rec1, rec2, ncards, out)

    def _grid_end(self, b: Branch, flipped: frozenset) -> tuple | None:
        """The grid's side of the end of a turn: (True, (grid, ops)) for a win,
        else (False, [(grid, pending flips, re-scan columns, ops)]) over the
        re-scan's outcomes (one in the lazy modes); None when the turn is
        dropped (an explicit flip a pending one stands in for). ``grid`` is
        the first seven fields of a model state. May change ``b``."""
        if b.won:
            grid = (b.ship, b.pod, b.shields, b.held, tuple(b.rot), tuple(b.masks), b.samples)
            return True, (grid, b.ops)
        bb = b
        if self.pending_ok:
            rrow = bb.ship[0] + 1 if bb.ship != EARTH and bb.ship[0] + 2 <= 7 else None
            if any(r != rrow for r in bb.xrows):
                return None  # an explicit flip a pending one stands in for
            if rrow is not None:
                rowbits = 0b11111 << (rrow * 5)
                for e in bb.pend:
                    if e[1]:
                        e[0] |= rowbits
                bb.ops.append((rrow, "prow", rowbits, None))
        if bb.ship == EARTH:
            rescans: list = [(bb, None)]
        else:
            sr = bb.ship[0]  # the dock is in row 1 [D2]
            if sr + 1 <= 7:
                self.shift(bb, sr)
            rescans = [(bb, None)]
            if sr + 2 <= 7:
                ri = sr + 1
                ex = 0
                for (fr, fj) in flipped:
                    if fr == ri:
                        ex |= 1 << fj
                before = bb.masks[ri]
                if self.lazy:
                    bb.masks[ri] = self.rescan_set(ri, before, ex)
                    bb.ops.append((ri, "rescan", ex, before))
                else:
                    (m,) = members(before)
                    rescans = []
                    for p in self.rescan_choices(ri, m, ex):
                        b2 = bb.copy()
                        b2.masks[ri] = 1 << (m ^ p)
                        cols = frozenset((j - bb.rot[ri]) % 5 + 1 for j in range(5) if (p >> j) & 1)
                        rescans.append((b2, cols))
        return False, [
            ((b2.ship, b2.pod, b2.shields, b2.held, tuple(b2.rot), tuple(b2.masks), b2.samples),
             tuple(sorted(e[0] for e in b2.pend)) + tuple(sorted(SHIFT_TAG | m for m in b2.spend)), cols, b2.ops)
            for b2, cols in rescans
        ]

    def _emit(self, end: tuple | None, cards: tuple, bolster, rec1, rec2, ncards, out) -> None:
        """Successors from a grid end (``_grid_end``) and the cards after the
        command: one per draw outcome (none when the deck runs out on the
        second pass, a loss)."""
        if end is None:
            return
        won, data = end
        if won:
            grid, ops = data
            st = (*grid, *cards, ())
            out.append((st, (bolster, rec1, rec2, (), None, ops), ncards, True))
            return
        if self._keep is not None:
            data = [e for e in data if self._keep(e[0])]
            if not data:
                return
        for after, drawn in self.after_draw(cards):
            for grid, pend, cols, ops in data:
                st = (*grid, *after, pend)
                out.append((st, (bolster, rec1, rec2, drawn, cols, ops), ncards, False))

    def after_draw(self, cards: tuple) -> list[tuple[tuple, tuple]]:
        """The card states (hands, deck, disc, head, pass2, active) after the
        draw that ends a turn (§7), the next player active, each with what was
        drawn (``draw_outcomes``); none when the deck runs out on the second
        pass ([D15], a loss)."""
        hands, deck, disc, head, pass2, active = cards
        nxt = (active + 1) % self.players
        return [
            ((hands[:active] + (hand,) + hands[active + 1 :], dk, dc, hd, p2, nxt), drawn)
            for hand, dk, dc, hd, p2, drawn in self.draw_outcomes(hands[active], deck, disc, head, pass2)
        ]

@lru_cache(maxsize=1024)
def _flip_masks(candidates: tuple[int, ...], k: int) -> tuple[int, ...]:
    """Every choice of ``k`` of the ``candidates`` slots, as slot masks (shared
    between rows and instances: only the slots matter)."""
    return tuple(sum(1 << j for j in combo) for combo in combinations(candidates, k))


@lru_cache(maxsize=256)
def _fly_distances(boosty: tuple[bool, ...]) -> tuple[dict, list[dict]]:
    """Fewest Fly actions when row r may boost anywhere iff ``boosty[r]``
    (``Model._init_heuristic``): {cell: d to Earth} and, per row r (0-based),
    {src: fewest Fly actions to Earth through a cell of row r} (the grid
    bounds of a ship that still needs a virus: ``search.Heuristic``,
    ``relaxed.RelaxedBound._grid_bound``). Pure in its argument and
    read-only for callers, so cached: only 128 argument values exist, and
    every solve used to pay ~20 ms for it (whole arrays since: ~0.4 ms)."""
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


def _is_obstructed(face: SectorType) -> bool:
    return face is SectorType.OBSTRUCTED


def _same(face: SectorType) -> SectorType:
    return face
