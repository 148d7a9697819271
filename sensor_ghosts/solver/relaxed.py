"""A relaxed game whose shortest solution bounds the real one from below.

The search (``search.Heuristic``) needs a lower bound on the turns still needed
that is close to the truth: every turn of slack multiplies the states A* must
look at. This bound solves a smaller game exactly: **the game without command
cards**. Hands, the deck and the heading are left out; every turn the ship may
take any one action: a Fly in any direction, or any other action (a "wait").
Spending a held virus on a shield (bolster) costs no turn. A relaxed state is
``(ship cell, rotation of every row, every row's set of flip patterns, held
virus samples, shields, Deep Scan credits)``.

Why every real plan maps onto a relaxed path of no more turns (so the relaxed
optimum is admissible), rule by rule:

* **Cards.** A real turn plays cards for one action; the relaxed turn takes
  the same action without them. (With the §12 second action see "A second
  action" below. The escape pod's part of the bound stays in
  ``search.Heuristic``.)
* **Rotations are tracked exactly.** A row turns only when a re-scan shifts it
  (it is the row ahead of the ship at the end of a turn, §8) or a Deep Scan
  shifts it (§5). The relaxed path applies every re-scan shift; a Deep Scan
  shift is a credit (below), also when it shifts the row ahead. (Rows far
  below the ship are let go: "Rows left behind".)
* **Faces are tracked exactly**, as the model does (``solver/model.py``): per
  row, the set of flip patterns of its five slots that are still possible (a
  lazy flip may still go either way). Entering a card turns it over and meets
  its other side (§5): the path chooses a parity the set allows, keeps the
  patterns of that parity and toggles the card. At the end of a turn the
  re-scan of the row two ahead (§8) replaces its set by every pattern its legal
  flips can reach; the relaxed re-scan ignores [D23]'s exclusion of cards
  flipped by choice this turn, which only adds patterns.
* **Deep Scan credits.** A Deep Scan (a shift of a row, or a flip) is a wait
  that earns a *credit*. Credits are spent when the ship meets
  a card. A credit may shift the row one place as the ship *enters it from
  another row*: a Deep Scan cannot shift the ship's row [D14], so a real shift
  of a row happened while the ship was elsewhere, and shifts add up (they
  commute with every other shift), so it may as well be applied at the next
  entry; spending one later, under a ship already in the row, would move the
  row beneath it. A credit may instead let the card met show either parity:
  a flip toggles one slot, and re-scans toggle any two flippable slots
  whatever the row shows, so the flips commute, and applying a Deep Scan flip
  late as "either parity" gives every pattern the real order gives. Pending
  Deep Scan flips of the model state are credits that only flip; its
  pending shifts (``model``'s deferred shifts, which shift a row as the ship
  enters it) are credits. (A wait may
  also shift the row ahead at once, but a credit is never worse: the ship
  enters that row from the one below before its rotation matters, and the
  credit shifts it then. So the search offers that wait only on its first
  turn, where it tells ``first_turn`` that the row turned. The values stay
  the same (``tests/solver/test_relaxed_kernel.py``), and the searches, most
  of whose steps are waits when they prove a grid cannot win in time, are
  shorter.)
* **'Reveal once' (§12).** There a re-scan may flip only front-up cards, so
  flips no longer commute with re-scans (a late Deep Scan flip would change
  which cards an earlier re-scan could take). The relaxed re-scan then lets
  its row show any pattern.
* **Meeting a card.** E: stop. B: go on in the same direction (boosts chain).
  A: needs two shields, which drop to 0. O: kills, except in low memory mode
  (§11), where it is an A that also costs a held virus, lost before the
  card's own token is taken, as the rules engine has it. Optimistic where
  the count cannot follow: with none held the token that leaves the board
  is not counted, and a count at its cap (3, "3 or more") stays.
  Gaps and off-grid cells kill ([D20], [D25]).
* **Samples.** Entering a card that still carries a virus token adds a held
  virus ([D13]); Earth wants ``need`` of them ([D12]). A relaxed path may count a
  token twice by coming back to it, which is optimistic; where Earth wants
  two or more, with the second action, and in any game once an instance
  has made ``TRACK_AFTER`` searches, the tokens taken are tracked instead
  (``search_args``), so each counts once. Only the tokens the ship can
  take are seen (``takeable_virus_bits``): one on a card obstructed on both
  sides (outside low memory mode) is never taken, as the ship entering it
  dies, so leaving it out changes no way's value. It would only weaken the
  guides: a way counted as needing a virus through its row, and, with the
  second action, a second action it might pay for (docs/SOLVER.md,
  "Fifteenth session").
* **Shields** grow by a Shields action (a wait with +1) or bolster (no turn,
  one held virus each), never above 2 ([D9]). Shields count only when the ship
  meets a card that needs them, so the search bolsters then, as far as the
  viruses held at the start of the turn allow (the bolster comes before the
  flight, §4), once a turn: a bolster at any other time gains nothing.
* **Rows left behind.** When the ship stops in row r, every row two or more
  below it may show any pattern from then on. A superset of patterns only adds
  choices (entering a card picks a parity the set allows; a re-scan of a
  superset is a superset), so this relaxes further and stays admissible. It
  costs nothing in practice: an optimal path seldom comes back down two rows,
  and it merges many states that differ only in rows the ship has left.
  With ``forget_far_rows`` (the full objective's card search, ``split``, asks
  for it), rows three or more below also forget their rotation
  (``kernel.WILD``): a ship entering one meets any of its cards, either face,
  and neither a re-scan nor a Deep Scan changes that; the real card is among
  them, so this is admissible too. The relaxed states of a search, and of
  the searches from grids that differ only down there (a start's rows that
  far below are forgotten too: ``_key``), merge, and share their learned
  bounds. The card search gains by it, its nodes almost the same. The
  fewest-turns A*, whose priorities are the relaxed values themselves, lost
  by it: 19 of 260 states near the dock of seed 44 need a turn less so, and
  on setups 0-199 in open mode it took 5,171 -> 8,166 nodes (seed 44: 14 ->
  973 nodes); so it keeps them. Forgetting rows two below weakened the bound even for the card
  search (nodes 29,708 -> 38,606 on setups 0-59, deal). An open-mode card
  search that goes on long turns to a relaxed game that keeps them
  (``search.Heuristic.keep_far_rows``): on a few setups only the stronger
  game proves a number of turns too few.
* **Dominance.** More shields, more credits and, per row, a superset of
  patterns never hurt, so a relaxed state is dropped when one reached no later
  has the same ship cell, rotations and held samples and is at least as good
  in all three.

The relaxed search is itself guided by admissible bounds: the model's grid
distance through a virus (``_grid_bound``), a distance over cells where the rows
two or more ahead keep their rotation and may show either face, until a flight
down (``relaxed_kernel.static_table``), and what earlier searches learned: a
search from S that ends with "S needs v turns" proves that each state s it
reached at cost g(s) needs at least v - g(s) more (a shorter way on from s
would be a shorter way from S). None of them changes a value: the tests
search with the grid distance alone and compare
(``tests/solver/test_relaxed_kernel.py``).

The card search's searches also keep the **ways they found** (the kernel's
ways table): a search from S that finds a way to Earth of v turns proves that
each state on it, reached at cost g, wins within v - g. Its checks
(``within``: is the value at most k?) need no value, only a yes or no: they
search as A* does but stop at the first win within k (a state of a kept way
reached at cost g' is one of g' + (v - g) turns), or prove there is none
(every state under the cap is expanded, so the learned bounds hold). (They
first took the states nearest Earth first, a greedy order; A*'s order, by g
plus the bound, deepest first among equals, pops fewer states in both the
checks that find a win and those that prove none: on setups 20-59 in deal
mode, 187,107 -> 99,589 and 683,425 -> 656,184 pops, the same answers.)
Many of those checks start from grids one turn apart whose searches meet
after a turn, and the second finds the first's way at once (the same
values and nodes). A way kept also keeps, per state, the state after
its next turn, and a check that finds a way says where its first turn
takes the ship (``way_first``): the card search, solo without the pod in
open mode, tries the commands of that kind first (``split``). A*
(``turns``) reads no ways, only the checks do: answering from a way
found from the start itself saved the search but also what it would
have learned, and a way met in the middle of an A* search ends
it on that way, whose first turn (``first_turn``) may order the fewest-turns
A* worse than the way the search would have found (seed 142 in open mode:
24 -> 2,386 nodes).

**A Deep Scan at once** (``scan_within``): a real Deep Scan (a flip or a
shift of any row) is a credit wait in the relaxed game, and every state it
leads to is no better than the one after that wait. So one search made to
start with a credit wait (``scan_first``) bounds every Deep Scan of a grid:
when it needs more than the turns left, the card search drops them all
without a search each (``split.GridHalf.scan_may_fit``).

The static-rows distance counts the waits for the row ahead too: it knows
that row's rotation (a wait or a stop turns it by one). Before, the row ahead
could show any card for free, and from the dock the relaxed game often needed
12 turns where that distance said 7, mostly such waits. The table has six
times the states; it takes the rows below the highest moved one as moved
too (fewer tables, weaker only below the ship). The values are the same.

**A second action** (§12: once a turn, before the draw, a held virus
sample is spent for a second action). A turn of the relaxed game may then
take an action without the turn's end (no re-scan shift or flips, no turn
counted), paying one held virus, and its next action ends the turn; the
virus may be one just taken. So a real turn of two actions is the free
action followed by the paid one, the re-scan after both, as in the real
turn. The bolster of the paid action may use samples taken by the free
one (more than the real turn allows: optimistic). What would make free
actions plentiful is gone: the virus tokens taken are tracked (a token
counts once, not again on a return), and only while the held samples and
those on the board are at most 3 (``applies``), so that the kernel's count
of held samples, which stops at 3, never loses one that could pay. The
guiding bounds change too while a second action may still come (a virus
held or on the board beyond the ``need`` the way must end with, F of
them): a bound in actions counts for the larger of half as many turns
(two actions a turn at most) and as many less F. The actions are counted
by the grid distance; by the static-rows table made with the moves
without the turn's end too (``static_table``'s ``noturn``: a Fly that
leaves the row ahead as it was, a credit wait that turns nothing), so
that every way of the relaxed game, free actions included, is one of its
ways, step for step; and by the one-action table's top credit layer at
any rotation ahead, which does not depend on rotations (a row is entered
at any shift). With no second action left (F = 0) every later turn is
one action and the bounds are the one-action game's. Cross-checked
against the A* without the relaxed game and against the search guided by
the grid distance alone (``tests/solver/test_second_action.py``); what
the ``noturn`` table gains is in docs/SOLVER.md, "Worst case".

The search runs compiled (``relaxed_kernel``, Numba). It can be stopped at a
``cap``: "at least cap turns" is still a valid bound.
"""

from __future__ import annotations

import time

import numpy as np

from ..rules.cards import SectorType
from ..rules.geometry import EARTH
from . import relaxed_kernel as kernel
from .model import HELD, MASKS, PEND, ROT, SAMPLES, SHIFT_TAG, SHIP, SHL

BOOST, AST, OBST, EMPTY = SectorType.BOOST, SectorType.ASTEROID, SectorType.OBSTRUCTED, SectorType.EMPTY
INF = 10**9

# Card flags.
CAN_BOOST, CAN_STOP, NEEDS_SHIELDS, DEADLY, COSTS_SAMPLE = (
    kernel.CAN_BOOST, kernel.CAN_STOP, kernel.NEEDS_SHIELDS, kernel.DEADLY, kernel.COSTS_SAMPLE)
LEARNED_LIMIT = 1_000_000
# The ways table (``kernel.search``'s ``upper``) starts over past this many
# entries: at most ~30 MB (it doubles when half full). A median solve keeps
# a few dozen to a few hundred; a way helps the checks near where it was found.
WAYS_LIMIT = 1 << 17
_NO_TABLE = kernel.new_table(0)  # (``_make_room``: no larger table this time)
_NO_UNITS = np.zeros((7, 5), dtype=np.int64)  # (``_cardu`` before the strong tables)
_CELLS = [(1, 0)] + [(r, c) for r in range(1, 8) for c in range(1, 6)]
"""Cells in the kernel's index order (the dock first; Earth is index 36)."""


def _cell(a: int) -> tuple[int, int]:
    """The ship's cell of the kernel's packed state ``a``."""
    pos = a & 63
    return int(kernel.CELL_ROW[pos]), int(kernel.CELL_COL[pos])


def _credits(pend: tuple) -> int:
    """The Deep Scan credits of a state's pending entries, as the kernel takes
    them: pending flips flip only; a pending shift is a credit that may shift
    (or flip: more, so still a relaxation), in the bits from 8 on."""
    shifts = sum(1 for m in pend if m >= SHIFT_TAG)
    return len(pend) - shifts + (shifts << 8)


def card_flags(faces: set, low_memory: bool) -> int:
    """Card flags for the set of faces the ship may meet on a card."""
    f = 0
    if BOOST in faces:
        f |= CAN_BOOST
    # A face the ship may stop on: empty, an asteroid (with shields), an O
    # only in low memory mode (elsewhere it kills).
    if faces - {BOOST, OBST} or (OBST in faces and low_memory):
        f |= CAN_STOP
    if faces <= {AST, OBST}:
        if faces == {OBST}:
            if not low_memory:
                return DEADLY
            f |= COSTS_SAMPLE
        f |= NEEDS_SHIELDS
    return f


def takeable_virus_bits(model) -> int:
    """The virus tokens (bits as ``SAMPLES``) the ship can ever take: [D13]
    takes a token only once the ship survives its card, and a DEADLY card
    (obstructed on both sides, but in low memory mode, §11) it never
    survives, whichever side it meets (§5). Fewer held and takeable than
    Earth asks for proves a game lost (``search.too_few_samples``)."""
    low = model.options.low_memory
    return sum(1 << b for b, v in model.sample_virus.items()
               if v and card_flags(set(model.sides[b // 5][b % 5]), low) != DEADLY)


def top_row_blocks(model) -> bool:
    """Whether no card of row 7 has a side the ship may stop on: the ship
    then never stands in row 7, and only from there does a Fly reach Earth,
    the cell right of row 7 ([D1]; a boost up from row 6 leaves the grid,
    a loss, [D25])."""
    return not any(
        not model.gap[6][j] and card_flags(set(model.sides[6][j]), model.options.low_memory) & CAN_STOP
        for j in range(5))


def applies(model) -> bool:
    """Whether the relaxed game bounds ``model``'s turns: always with one
    action a turn; with the §12 second action while the held virus samples
    and those on the board are at most 3 (module docstring, "A second
    action": the kernel counts held samples up to 3 and tracks the tokens)."""
    if model.actions_per_turn == 1:
        return True
    tokens = _tokens(model)
    return tokens <= kernel.MAX_TOKENS and tokens + model.root_state()[HELD] <= 3


def _tokens(model) -> int:
    """The virus tokens on the board at ``model``'s root that the ship can
    take (``takeable_virus_bits``): the only ones the relaxed game sees."""
    return bin(model.root_state()[SAMPLES] & takeable_virus_bits(model)).count("1")


# The relaxed search compiled for each game (``search_args``): its name for
# ``compiled.load_for``.
TRACKED = (True,)
SEARCHES = {(): "search", TRACKED: "search-track", (True, True): "search-second"}
# After this many relaxed searches of one instance the one-sample game
# tracks the tokens too (``RelaxedBound._search``): a little dearer a
# search, worth it only where many are made (docs/SOLVER.md, "Two samples").
# A count, not a clock, so the same instance is searched the same way.
TRACK_AFTER = 64
# The static-rows tables count units and know the ship's own row's rotation
# (``kernel.static_table``'s ``strong``) once an instance's relaxed searches
# have popped this many states: such a table takes about thirty times as
# long to make, which a median solve does not win back. A count, not a
# clock, as TRACK_AFTER.
STRONG_AFTER = 10_000
# ``turns`` asked for a cap this far (a value itself, not "is it more than
# a priority") deepens to it (``turns``).
DEEPEN_FROM = 100


def search_args(model) -> tuple[bool, ...]:
    """The kernel's last arguments for ``model``, ``track`` and ``second``,
    the False ones left out: Numba compiles a game apart for each, the ones
    left out constant False in it, so the plain game pays nothing for the
    steps of the others (docs/SOLVER.md, "Worst case"). Tokens are tracked
    with the second action (module docstring, "A second action") and where
    Earth wants two samples or more (a token counted twice would count for
    a sample Earth needs, "Samples"), while they fit the packed state."""
    if model.actions_per_turn == 2:
        return (True, True)
    if model.need >= 2 and _tokens(model) <= kernel.MAX_TOKENS:
        return TRACKED
    return ()


class RelaxedBound:
    """Static per-instance tables and the search of the relaxed game."""

    def __init__(self, model, forget_far_rows: bool = False) -> None:
        m = self.m = model
        assert applies(model), "the relaxed game does not bound this model's turns"
        self._search_args = search_args(model)
        # (The plain game turns to tracking after TRACK_AFTER searches.)
        self._may_track = not self._search_args and _tokens(model) <= kernel.MAX_TOKENS
        self._searches = 0
        self.second = len(self._search_args) == 2
        # Rows three or more below the ship forget their rotation (module
        # docstring, "Rows left behind").
        self.forget_far_rows = forget_far_rows
        self._behind_rot = kernel.BEHIND_ROT if forget_far_rows else kernel.KEEP_ROWS
        self.need = model.need
        self._low = model.options.low_memory
        self._takeable = takeable_virus_bits(model)
        # Optimistic flags (either side of the card may be met), for the
        # static-rows bound.
        self.flags = [
            [DEADLY if m.gap[r][j] else card_flags(set(m.sides[r][j]), self._low) for j in range(5)]
            for r in range(7)
        ]
        self._flags_np = np.array(self.flags, dtype=np.int64)
        self._any_boost = np.array([any(f & CAN_BOOST and not f & DEADLY for f in row) for row in self.flags])
        # (What the strong static-rows tables read of each card, ``_card_units``;
        # the others read nothing of it.)
        self._cardu = _NO_UNITS
        # Exact flags: the face met on card j of row r when its parity (relative
        # to the start) is q before the ship enters, i.e. side q ^ 1.
        self._face = np.zeros((7, 5, 2), dtype=np.int64)
        self._flippable = np.zeros((7, 5), dtype=np.bool_)
        # The re-scan's legal flips (as slot masks) of row r in pattern p.
        self._choices = np.zeros((7, 32, 16), dtype=np.int64)
        self._rescan_full = bool(model.options.reveal_once)
        self._n_choices = np.zeros((7, 32), dtype=np.int64)
        for r in range(7):
            for j in range(5):
                if m.gap[r][j]:
                    self._face[r, j, :] = DEADLY
                    continue
                self._flippable[r, j] = m.flippable[r][j]
                for q in range(2):
                    self._face[r, j, q] = card_flags({m.sides[r][j][q ^ 1]}, self._low)
            # The choices depend on the pattern only under 'reveal once'.
            if self._rescan_full:
                for p in range(32):
                    got = m.rescan_choices(r, p, 0)
                    self._n_choices[r, p] = len(got)
                    self._choices[r, p, : len(got)] = got
            else:
                got = m.rescan_choices(r, 0, 0)
                self._n_choices[r, :] = len(got)
                self._choices[r, :, : len(got)] = got
        self._to_earth = np.array([m.to_earth[p] for p in _CELLS] + [0], dtype=np.int64)
        self._grid_cache: dict = {}
        self._cache: dict = {}
        # (key, first turn a Deep Scan) -> (upper, lower) bounds found by
        # ``within`` and ``scan_within``.
        self._known: dict = {}
        # Per relaxed key: the packed state after the first turn of a way a
        # check found (``within``), for ``way_first``.
        self._check_first: dict[tuple, int] = {}
        # Lower bounds learned by the searches, shared by them (kernel table).
        self._learned = kernel.new_table()
        # The kernel's counts of the learned bounds, the ways, the kept
        # static-rows tables and the pops of every search so far, as views
        # of one array: ``_make_room`` reads them before every search, at
        # one conversion for the four.
        self._counts = np.zeros(4, dtype=np.int64)
        self._learned_count = self._counts[0:1]
        # Upper bounds: the turns of wins found from states the searches
        # passed (kernel table, shared by them too), kept for the card
        # search's checks (``within``), whose relaxed game forgets the far
        # rows; the fewest-turns A*'s searches never read them.
        self._ways = kernel.new_ways_table()
        self._ways_count = self._counts[1:2]
        self.keep_ways = forget_far_rows
        self._static = kernel.new_static_cache(self._counts[2:4])
        # The static-rows tables start without units and the own row's
        # rotation, and are made with them once the searches have popped
        # STRONG_AFTER states (``_make_room``).
        self._strong = False
        self._free = self._free_tables()
        # Also the moves the kernel leaves out because another always
        # matches them (its ``every_move``): for the tests, which check that
        # leaving them out changes no value.
        self.every_move = False
        # Guided by the grid distance alone (the kernel's ``plain``): for the
        # tests, which check that the other bounds change no value.
        self.plain = False
        # Wall-clock deadline (``time.perf_counter``) of the outer search's
        # budget: a search still running then stops with the smallest f still
        # open, a valid but weaker bound, not cached as exact.
        self.deadline: float | None = None
        self._timed_out = False
        self._last_first = -1

    @property
    def timed_out(self) -> bool:
        """Whether the last ``turns`` or ``within`` was cut by ``deadline``
        (its answer then a weaker bound, or a True that says nothing)."""
        return self._timed_out

    def load_searches(self, st: tuple) -> list[str]:
        """Call each compiled search this game may use once, at cap 1 (it
        stops at once), for ``compiled.load_for``; their names."""
        _, rot, masks, held, shields, vir, credits = self._key(st)
        first = self._search_args
        names = []
        for args in (first, TRACKED) if self._may_track else (first,):
            self._search_args = args
            self._search(st[SHIP], rot, masks, held, shields, vir, credits, 1)
            names.append(SEARCHES[args])
        self._search_args = first
        return names

    def load_tables(self) -> None:
        """Make one strong static-rows table, for ``compiled.load_for``, so
        that the strong tables' compiled code is loaded before any clock
        starts, not at the switch (``STRONG_AFTER``). (The weak ones' is
        loaded as the bound is made.)"""
        kernel.every_row_free(self._flags_np, self._card_units(), self.need, self._any_boost,
                              False, True)

    def turns(self, st: tuple, cap: int = INF) -> int:
        """Fewest turns for the ship of model state ``st`` to reach Earth in the
        relaxed game, or ``cap`` when that is at least ``cap`` (the search stops
        there)."""
        self._timed_out = False
        ship = st[SHIP]
        if ship == EARTH:
            return 0
        key = self._key(st)
        _, rot, masks, held, shields, vir, credits = key
        got = self._cache.get(key)
        # A cached value is exact, or a proven "at least" (cached with its flag).
        if got is not None and (got[1] or got[0] >= cap):
            # (INF, no way at all, stays INF whatever the cap.)
            return got[0] if got[0] >= INF else min(got[0], cap)
        # Deepening: the cap one past what is known, then one past each
        # answer. A search that stops at its cap learns "at least" bounds
        # for every state it reached, and they guide the next; one search
        # at a far cap learns none until it ends (docs/SOLVER.md, "Seeds
        # 654, 3366 and 7919"). Nothing known, a cap short of
        # DEEPEN_FROM is searched at once: the A*'s refinements ask one turn
        # past a priority, near the value already.
        if got is not None:
            step = got[0] + 1
        else:
            step = 1 if cap >= DEEPEN_FROM else cap
        while True:
            value = self._search(ship, rot, masks, held, shields, vir, credits, min(step, cap))
            if value < step or value >= cap or self._timed_out:
                break
            step = value + 1
        if got is not None and got[0] > value:
            # Only a search cut by the clock answers below a proven "at
            # least": keep that. (Overwriting it with the 0 of a search
            # called past the deadline made every open-mode root after the
            # first, all the same relaxed state, fall to the grid bound.)
            value = got[0]
        if len(self._cache) > 500_000:
            self._cache.clear()
        exact = not self._timed_out and (value < cap or value >= INF)
        first = self._last_first if exact and value < cap else (got[2] if got is not None else -1)
        self._cache[key] = (value, exact, first)
        return value if value >= INF else min(value, cap)

    def within(self, st: tuple, turns: int) -> bool:
        """Whether the relaxed game may win from model state ``st`` in at
        most ``turns`` turns (True when a search runs out of time). Only
        the answer is wanted, not the value: the search stops at the first
        win in time (``kernel.search``'s ``decide``)."""
        self._timed_out = False
        if st[SHIP] == EARTH:
            return True
        key = self._key(st)
        got = self._cache.get(key)  # a value ``turns`` worked out
        if got is not None and (got[1] or got[0] > turns):
            return got[0] <= turns
        return self._decided(key, turns, False)

    def scan_within(self, st: tuple, turns: int) -> bool:
        """Whether the relaxed game may win from model state ``st`` in at
        most ``turns`` turns starting with a Deep Scan: False says that no
        real turn of a Deep Scan from ``st`` can be followed by a win within
        ``turns - 1`` turns (a real Deep Scan maps to the relaxed game's
        credit wait, module docstring, and so every real state after one to
        a relaxed state no better than the one after that wait)."""
        self._timed_out = False
        if st[SHIP] == EARTH:
            return True
        return self._decided(self._key(st), turns, True)

    def _decided(self, key: tuple, turns: int, scan_first: bool) -> bool:
        """``within`` (``scan_first``: ``scan_within``) for relaxed key
        ``key``, from the bounds found before or a deciding search."""
        got = self._known.get((key, scan_first))  # (upper, lower) bounds
        if got is not None and (got[0] <= turns or got[1] > turns):
            return got[0] <= turns
        _, rot, masks, held, shields, vir, credits = key
        value = self._search(key[0], rot, masks, held, shields, vir, credits, turns + 1, decide=True,
                             scan_first=scan_first)
        if self._timed_out:
            return True
        if value <= turns and not scan_first and self._last_first >= 0:
            self._check_first[key] = self._last_first
        up, low = (value, 0) if value <= turns else (INF, value)
        if got is not None:
            up, low = min(up, got[0]), max(low, got[1])
        self._known[(key, scan_first)] = (up, low)
        return value <= turns

    def _key(self, st: tuple) -> tuple:
        """What the relaxed game sees of a model state: ship, rotations, pattern
        sets, held samples, shields, virus tokens on the board, pending Deep
        Scans as credits (``_credits``); with ``forget_far_rows``, rows three
        or more below the ship forgotten (module docstring, "Rows left
        behind")."""
        ship, rot, masks = st[SHIP], st[ROT], st[MASKS]
        behind = ship[0] - 3  # rows left behind (module docstring): any card
        if behind > 0 and self.forget_far_rows:
            rot = (kernel.WILD,) * behind + rot[behind:]
            masks = (kernel.FULL,) * behind + masks[behind:]
        return (ship, rot, masks, st[HELD], st[SHL], st[SAMPLES] & self._takeable, _credits(st[PEND]))

    def first_turn(self, st: tuple) -> tuple[tuple[int, int], tuple[int, ...]] | None:
        """Where an optimal relaxed way from ``st`` (worked out by an earlier
        ``turns``) has the ship and the rows' rotations after its first turn:
        (cell, rotations); EARTH's cell when that turn wins; None when unknown.
        Only a hint for ordering the search (the real turn may differ)."""
        got = self._cache.get(self._key(st))
        if got is None or got[2] < 0:
            return None
        a = got[2]
        if a == kernel.EARTH_IDX:
            return EARTH, st[ROT]
        packed = (a >> 6) & ((1 << 21) - 1)
        rot = [(packed >> (3 * r)) & 7 for r in range(7)]
        # A row left behind (any card) is taken to keep its rotation.
        return _cell(a), tuple(st[ROT][r] if x == kernel.WILD else x for r, x in enumerate(rot))

    def way_first(self, st: tuple) -> tuple[tuple[int, int], bool] | None:
        """Where a relaxed way from ``st`` that a check (``within``) or
        ``turns`` found has the ship after its first turn, and whether that
        turn raised the shields: (cell, shields raised); EARTH's cell when
        that turn wins; None when no way is known. Only a hint for ordering
        the card search (the real turn may differ)."""
        key = self._key(st)
        a = self._check_first.get(key)
        if a is None:
            got = self._cache.get(key)
            if got is None or got[2] < 0:
                return None
            a = got[2]
        if a == kernel.EARTH_IDX:
            return EARTH, False
        return _cell(a), (a >> 29) & 3 > st[SHL]

    def _search(self, ship, rot0, masks, held, shields, vir, credits: int = 0, cap: int = INF,
                decide: bool = False, scan_first: bool = False) -> int:
        """One search of the relaxed game (``relaxed_kernel.search``)."""
        if self.deadline is not None and time.perf_counter() > self.deadline:
            # The kernel reads the clock only every 8192 pops (tens of
            # milliseconds on a wide grid): called once per root or per node
            # after the deadline, it would run on for minutes (issue 33: 423
            # roots in open mode took 19 s past a 0.05 s limit). 0 is a
            # valid "at least" (not cached as exact: ``turns``).
            self._timed_out = True
            return 0
        self._make_room()
        self._searches += 1
        if self._searches == TRACK_AFTER and self._may_track:
            # The values found so far stay valid lower bounds: tracking
            # only takes ways away.
            self._search_args = TRACKED
        try:
            value, timed_out, self._learned, self._last_first, self._ways = kernel.search(
                kernel.cell_index(ship),
                rot0,  # (tuples: cheaper to pass than arrays made from them)
                masks,
                min(held, 3),
                shields,
                credits,
                min(cap, INF),
                self.need,
                self._flags_np,
                self._face,
                self._flippable,
                self._choices,
                self._n_choices,
                self._rescan_full,
                vir,
                self._to_earth,
                self._grid_bound(vir),
                self._any_boost,
                self._cardu,
                kernel.LINES_Q,
                kernel.LINES_R,
                kernel.LINES_C,
                kernel.LINES_N,
                self._learned,
                self._learned_count,
                self._grown,
                -1.0 if self.deadline is None else self.deadline,
                *self._static,
                *self._free,
                self._behind_rot,
                self._ways,
                self._ways_count,
                self.keep_ways,
                self._strong,
                self.every_move,
                self.plain,
                decide,
                scan_first,
                *self._search_args,
            )
        except SystemError as e:
            # A Ctrl-C that lands in the kernel's clock (an object-mode
            # block) comes out of numba as a SystemError caused, one or two
            # SystemErrors down, by the KeyboardInterrupt: given back as the
            # interrupt it is, so that the search stops with its bound so far.
            cause = e.__cause__
            while isinstance(cause, SystemError):
                cause = cause.__cause__
            if isinstance(cause, KeyboardInterrupt):
                raise cause from None
            raise
        self._timed_out = bool(timed_out)
        return int(value)

    def _make_room(self) -> None:
        """Past ``LEARNED_LIMIT`` entries the learned bounds start over, as a
        cache, and so do the kept static-rows tables when half their keys
        are taken. The table is then 110-220 MB (56 bytes a slot, at most
        half of them taken). At half the limit the slowest setup, seed 50 in
        open mode, lost its learned bounds three times a solve (peak memory
        318 against 420 MB); at a quarter, setups 0-59 were slower. (While it is smaller, the table
        doubles when half full: the larger one is made here, with numpy, for
        its huge pages, and the kernel moves the entries into it; a search
        that fills it grows it itself, ``kernel._learn``.)"""
        if len(self._known) > 500_000:
            self._known.clear()
            self._check_first.clear()
        learned, ways, static, pops = self._counts.tolist()
        if pops >= STRONG_AFTER and not self._strong:
            self._strong = True
            self._cardu = self._card_units()
            self._free = self._free_tables()
            self._static = kernel.new_static_cache(self._counts[2:4], strong=True)
        if ways > WAYS_LIMIT:
            self._ways = kernel.new_ways_table()
            self._ways_count[0] = 0
        if learned > LEARNED_LIMIT:
            self._learned = kernel.new_table()
            self._learned_count[0] = learned = 0
        if 2 * learned > self._learned.shape[0]:
            self._grown = kernel.new_table(2 * self._learned.shape[0])  # moved into by the kernel
        else:
            self._grown = _NO_TABLE
        if 2 * static >= self._static[0].shape[0]:
            self._static = kernel.new_static_cache(self._counts[2:4], self._strong)  # full: start over

    def _free_tables(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """What every static-rows table of the kind the searches now use is
        made from: the table with every row free (``kernel.every_row_free``)
        and the own row's Fly edges (``kernel.row_edges``); with the second
        action, also those with moves without the turn's end. In the order
        the kernel's search takes them."""
        tables = []
        rows = []
        for noturn in (False, True) if self.second else (False,):
            rows.append(kernel.row_edges(self._flags_np, self._cardu, kernel.LINES_Q, kernel.LINES_R,
                                         kernel.LINES_C, kernel.LINES_N, noturn, self._strong))
            tables.append(kernel.every_row_free(self._flags_np, self._cardu, self.need, self._any_boost, noturn,
                                                self._strong, rows[-1]))
        if not self.second:
            tables.append(kernel.NO_TABLE)
            rows.append(kernel.NO_ROWS)
        return tables[0], tables[1], rows[0], rows[1]

    def _card_units(self) -> np.ndarray:
        """Per card, for the strong static-rows tables' units: a face the
        ship may stop on without shields, as the search meets it (an E; on a
        card that never flips the search reads the optimistic ``flags``);
        a virus token at the root (tokens are only ever taken away, so a
        table made with them bounds every later state too)."""
        m = self.m
        root_vir = m.root_state()[SAMPLES] & self._takeable
        out = np.zeros((7, 5), dtype=np.int64)
        for r in range(7):
            for j in range(5):
                f = self.flags[r][j]
                if not f & DEADLY and (EMPTY in m.sides[r][j] or (
                        not m.flippable[r][j] and f & CAN_STOP and not f & NEEDS_SHIELDS)):
                    out[r, j] |= kernel.FREE_STOP
                if (root_vir >> (r * 5 + j)) & 1:
                    out[r, j] |= kernel.HAS_TOKEN
        return out

    def _grid_bound(self, vir: int) -> np.ndarray:
        """Per cell, the model's grid distance to Earth through a row holding a
        virus (for states holding too few): every relaxed Fly is one of the
        grid's moves, so it never exceeds the relaxed distance."""
        got = self._grid_cache.get(vir)
        if got is None:
            got = np.zeros(kernel.N_CELLS, dtype=np.int64)  # Earth (EARTH_IDX): 0
            for i, pos in enumerate(_CELLS):
                got[i] = self.m.through_virus(pos, vir, INF)
            self._grid_cache[vir] = got
        return got
