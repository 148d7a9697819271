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
  Named at once, a Deep Scan's shifts were most of the card search's grid
  checks (``split``), and few of them led on; deferred, they are one
  successor (docs/SOLVER-HISTORY.md has the figures;
  ``tests/solver/test_pending_shifts.py`` compares them with the shifts
  named at once).
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
from itertools import combinations

from ..rules.cards import SectorType, Side
from ..rules.geometry import DIRECTIONS, EARTH
from ..rules.setup import Gap, Slot
from ..rules.state import GameState
from .card_rules import CardRules
from .grid_rules import Branch, GridRules
from .model_state import (
    ACTIVE,
    ALL_ROWS,
    DECK,
    DISC,
    FLIP,
    FLY,
    HANDS,
    HEAD,
    HELD,
    KIND_DS,
    KIND_FLY,
    KIND_OF_COMMAND,
    KIND_SH,
    KIND_WILD,
    MASKS,
    PASS2,
    PEEK,
    PEND,
    POD,
    ROT,
    SAMPLES,
    SCAN,
    SHIELDS,
    SHIFT,
    SHIFT_TAG,
    SHIP,
    SHL,
    Root,
    pay_class,
)
from .pattern_sets import A_LOW, FULL, members, pattern_columns, xor_mask_set, xor_set

# The grids (with a bolster) whose turns' grid ends ``Model`` keeps across
# calls with the §12 second action (``_turn_grid_ends``).
TURN_GRIDS_KEPT = 2_000
# And the second action's commands by the cards and what of the branch they
# read (``Model._second``), at most this many (memory).
SECOND_COMMANDS_KEPT = 200_000

# What other modules import from here: the model's parts live in
# ``model_state``, ``pattern_sets``, ``grid_rules`` and ``card_rules``.
__all__ = [
    "ACTIVE", "ALL_ROWS", "A_LOW", "DECK", "DISC", "FLIP", "FLY", "FULL", "HANDS", "HEAD", "HELD",
    "KIND_DS", "KIND_FLY", "KIND_SH", "KIND_WILD", "MASKS", "PASS2", "PEEK", "PEND", "POD", "ROT",
    "SAMPLES", "SCAN", "SHIELDS", "SHIFT", "SHIFT_TAG", "SHIP", "SHL", "Branch", "Model", "members",
    "pay_class", "xor_mask_set", "xor_set",
]


def _on_grid(act: tuple) -> tuple:
    """An action as the grid sees it: a Peek changes nothing there,
    whatever its direction (its heading is the cards' part)."""
    return (PEEK, None) if act[0] == PEEK else act


class Model(GridRules, CardRules):
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
        self._second_actions: dict[tuple, list[tuple]] = {}  # see second_actions()
        self._second_commands: dict[tuple, list[tuple]] = {}  # see _second()
        self._turn_grids: dict[tuple, tuple[dict, dict]] = {}  # see _turn_grid_ends()
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
        self._init_cards(start)
        self._init_grid(start)
        self._rescan_cache = {}
        self._draw_cache = {}
        self._rescan_choice_cache = {}
        self._init_heuristic()

    def _init_cards(self, start: GameState) -> None:
        """The card tokens (``Model``'s docstring): cards in deal mode, card
        types in open and expected modes."""
        o, mode = start.options, self.mode
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
        kinds = [KIND_OF_COMMAND[cc.by_id(c).kind] for c in self.card_ids]
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
        # What a command paid with a card can do depends on its class alone
        # (its kind, and its value with the pod: ``play_commands``).
        self.tok_classes = [(k, v if self.pod_variant else 0) for k, v in zip(self.tok_kind, self.tok_value, strict=True)]

    def _init_grid(self, start: GameState) -> None:
        """The grid's static facts: gaps, flippable cards, both sides of each
        card, the sample tokens."""
        self.gap = [[False] * 5 for _ in range(7)]
        self.flippable = [[False] * 5 for _ in range(7)]
        self.sides = [[] for _ in range(7)]
        self.sample_virus = {}
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

    # ----- states ----------------------------------------------------------
    def virus_tokens(self, st: tuple) -> int:
        """The virus sample tokens still on the board in model state ``st``."""
        return bin(st[SAMPLES] & self.virus_bits).count("1")

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

    def search_roots(self, fresh: bool) -> list[Root]:
        """A search's roots: in open mode from a fresh setup every choice of
        opening hands, each with its record ('deal', dealt tokens per player:
        ``plan.dealt_of``); else the position itself."""
        if self.mode == "open" and fresh:
            return [(st, ("deal", dealt)) for st, dealt in self.open_roots()]
        return [(self.root_state(), None)]

    def open_roots(self) -> list[tuple[tuple, tuple]]:
        """Open mode from a fresh setup: every choice of opening hands (by type).
        Returns (state, dealt tokens per player)."""
        s = self.start
        pool = tuple(sorted(self.tok_of_card[c] for c in list(s.deck) + [c for h in s.hands for c in h]))
        out: list[tuple[tuple, tuple]] = []
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
            # With the §12 second action likewise: the first action's runs
            # once per action and pod move, the second's grid ends once per
            # first run, action and pod move (``_second``); the commands,
            # which read the cards, still once each.
            firsts: dict | None = {} if self.second_ok and not self.pod_once else None
            seconds: dict = {}
            if firsts is not None and self._keep is None:
                # And both once per grid and bolster, whatever the cards:
                # the A*'s states with the second action share few grids
                # (setup 780: 1,230 expansions, 68 grids).
                firsts, seconds = self._turn_grid_ends((st[:HANDS], st[PEND], bolster))
            every = None if pay is None else self.class_actions(base, pay)
            for c1 in self.commands(base, cards0, frozenset(), actions=every, paid=paid):
                order, act, arrow, pd, value, cards1, _ = c1
                if (pay is not None and pay_class(act) != pay) or (paid is not None and cards1 != paid):
                    continue
                if grid_ends is not None:
                    key = (act, self.pod_move(c1))
                    ends = grid_ends.get(key)
                    if ends is None:
                        ends = grid_ends[key] = self._all_kept(self._action_ends(base, act, key[1], useful_only))
                    if not ends:
                        continue
                    rec1 = self._cmd_record(base, c1)
                    for end in ends:
                        self._emit(end, cards1, bolster, rec1, None, len(order), out, kept=True)
                    continue
                if firsts is not None:
                    key = (_on_grid(act), self.pod_move(c1))
                    runs = firsts.get(key)
                    if runs is None:
                        runs = firsts[key] = self._first_runs(base, key[0], key[1])
                    rec1 = self._cmd_record(base, c1)
                    for k, (end, b3, fl) in enumerate(runs):
                        self._emit(end, cards1, bolster, rec1, None, len(order), out, kept=True)
                        if b3 is not None:
                            self._second(b3, c1, rec1, bolster, fl, out, seconds, (key, k))
                    continue
                b1 = base.copy()
                rec1 = self._cmd_record(b1, c1)
                # Here a bolster need not pay off at once (``_bolstered``).
                for b2, fl in self._run(b1, c1, frozenset()):
                    self._finish(b2, cards1, bolster, rec1, None, fl, len(order), out)
            if self.pod_once:
                # 'pod-once-per-turn': the first of two actions leaves the pod
                # where it is (no pod direction); the second moves it.
                for c1 in self.commands(base, cards0, frozenset(), pod_moves=False):
                    b1 = base.copy()
                    rec1 = self._cmd_record(b1, c1)
                    for b2, fl in self._run(b1, c1, frozenset(), pod_moves=False):
                        if not b2.won and b2.held >= 1:
                            b2.held -= 1  # (the sample that buys the second action)
                            self._second(b2, c1, rec1, bolster, fl, out)
        return out

    def _turn_grid_ends(self, key: tuple) -> tuple[dict, dict]:
        """``_successors``' first runs and second grid ends (unfiltered: no
        ``keep``) for grid and bolster ``key``, kept across calls; they read
        no card, and nothing changes them once made. Starts over past
        ``TURN_GRIDS_KEPT`` grids (memory)."""
        got = self._turn_grids.get(key)
        if got is None:
            if len(self._turn_grids) >= TURN_GRIDS_KEPT:
                self._turn_grids.clear()
            got = self._turn_grids[key] = ({}, {})
        return got

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

    def grid_moves(self, st: tuple, pod: tuple | None = None, only: tuple | None = None,
                   scans: bool = True, without: frozenset[tuple] = frozenset()) -> list[tuple[tuple, tuple]]:
        """The grid's side of every turn from ``st`` with a command whatever
        cards pay for it, the pod (if any) moving by ``pod`` (``pod_move``):
        (action, ``_grid_end``) pairs over every bolster and every action
        (of pay class ``only``, if given; without the Deep Scans if not
        ``scans``, and without the actions in ``without``). Without the §12
        second action a turn's grid side is its action's and the pod's move
        alone (``solver.split``)."""
        assert not self.second_ok
        out: list[tuple[tuple, tuple]] = []
        for _bolster, base, useful_only in self._bolstered(st):
            peek = None  # a Peek changes nothing on the grid, whatever its direction
            for act in self.class_actions(base, only, scans):
                if act in without:
                    continue
                if act[0] == PEEK:
                    if peek is None:
                        peek = self._action_ends(base, act, pod, useful_only)
                    ends = peek
                else:
                    ends = self._action_ends(base, act, pod, useful_only)
                out.extend((act, end) for end in ends if end is not None)
        return out

    def wait_end(self, st: tuple, pod: tuple | None = None) -> tuple | None:
        """The grid end (``_grid_end``) of a turn from ``st`` whose action
        changes nothing on the grid (a Peek, no bolster), the pod moving by
        ``pod``: the re-scan alone. None unless it is one end."""
        assert not self.second_ok
        ends = self._action_ends(self.branch_of(st), (PEEK, DIRECTIONS[0]), pod, False)
        return ends[0] if len(ends) == 1 else None

    def grid_skip(self, st: tuple) -> tuple | None:
        """The grid's side of a turn whose active player holds no card (§9:
        no bolster, no command; the re-scan)."""
        return self._grid_end(self.branch_of(st), frozenset())

    def _first_runs(self, base: Branch, act: tuple, pod: tuple | None) -> list[tuple]:
        """With the §12 second action, each run of a first action ``act``
        from ``base``, the pod moving by ``pod``: (its turn's end when no
        second action follows, ``_grid_end``; the branch a second action
        starts from, its sample spent, or None when none may follow; the
        cards flipped by choice so far). The ends are ``_kept``'s."""
        out = []
        for b2, fl in self._run_move(base.copy(), act, pod, frozenset()):
            b3 = None
            if not b2.won and b2.held >= 1:
                b3 = b2.copy()  # (before ``_grid_end``, which may change b2)
                b3.held -= 1  # the sample that buys the second action
            out.append((self._kept(self._grid_end(b2, fl)), b3, fl))
        return out

    def second_actions(self, b3: Branch, fl: frozenset) -> list[tuple]:
        """The actions worth taking second from branch ``b3``, the cards
        ``fl`` flipped by choice this turn: every action but, with pending
        flips, an explicit flip outside this turn's re-scan row. The ship
        does not move after a second action, so that row is the one ahead of
        it now, and ``_grid_end`` would drop such a turn (a pending flip
        stands in for it): leaving them out changes no successor. They read
        the ship's cell and ``fl`` alone (``actions``), and are kept by them."""
        key = (b3.ship, fl)
        got = self._second_actions.get(key)
        if got is None:
            got = self.actions(b3, fl)
            if self.pending_ok:
                rrow = b3.ship[0] + 1 if b3.ship != EARTH and b3.ship[0] + 2 <= 7 else None
                got = [a for a in got if a[0] != FLIP or a[1] is None or a[1][0] == rrow]
            self._second_actions[key] = got
        return got

    def _second(self, b3: Branch, c1: tuple, rec1: tuple, bolster: int, fl: frozenset, out: list,
                ends_of: dict | None = None, at: tuple = ()) -> None:
        """§12: a second action after command ``c1`` from branch ``b3`` (its
        sample already spent; left as it is). ``ends_of``: the grid ends
        of second actions worked out so far, by (``at``, the first run's
        key, action, pod move): they read no card, and are ``_kept``'s."""
        # The commands read the cards, the actions (by the ship's cell and
        # ``fl``: ``second_actions``) and whether the pod may move, nothing
        # else of the branch: kept by those, where the grid ends are kept.
        key = None if ends_of is None else (c1[5], b3.ship, fl, b3.pod is not None and b3.pod != EARTH)
        seconds = None if key is None else self._second_commands.get(key)
        if seconds is None:
            seconds = list(self.commands(b3, c1[5], fl, actions=self.second_actions(b3, fl)))
            if key is not None:
                if len(self._second_commands) >= SECOND_COMMANDS_KEPT:
                    self._second_commands.clear()
                self._second_commands[key] = seconds
        for c2 in seconds:
            ncards = len(c1[0]) + len(c2[0])
            if ends_of is None:
                rec2 = self._cmd_record(b3, c2)
                for b5, fl2 in self._run(b3.copy(), c2, fl):
                    self._finish(b5, c2[5], bolster, rec1, rec2, fl2, ncards, out)
                continue
            ends = self._second_ends(b3, fl, ends_of, at, c2[1], self.pod_move(c2))
            if not ends:
                continue
            rec2 = self._cmd_record(b3, c2)
            for end in ends:
                self._emit(end, c2[5], bolster, rec1, rec2, ncards, out, kept=True)

    def _second_ends(self, b3: Branch, fl: frozenset, ends_of: dict, at: tuple, act: tuple,
                     pod: tuple | None) -> list:
        """The grid ends ``keep`` accepts (``_kept``) of second action
        ``act`` from branch ``b3``, the pod moving by ``pod``, kept in
        ``ends_of`` (``_second``)."""
        key = (at, _on_grid(act), pod)
        ends = ends_of.get(key)
        if ends is None:
            ends = ends_of[key] = self._all_kept(
                self._grid_end(b5, fl2) for b5, fl2 in self._run_move(b3.copy(), key[1], pod, fl))
        return ends

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
                for (fr, fj) in (*flipped, *bb.chosen):
                    if fr == ri:
                        ex |= 1 << fj
                before = bb.masks[ri]
                if self.lazy:
                    bb.masks[ri] = self.rescan_set(ri, before, ex)
                    bb.ops.append((ri, "rescan", ex, before))
                else:
                    # The outcomes differ in this row's pattern alone: their
                    # grids are built from one set of fields (no branch copied).
                    (m,) = members(before)
                    head = (bb.ship, bb.pod, bb.shields, bb.held, tuple(bb.rot))
                    pend = self._pending(bb)
                    masks = list(bb.masks)
                    outs = []
                    for p in self.rescan_choices(ri, m, ex):
                        masks[ri] = 1 << (m ^ p)
                        cols = pattern_columns(bb.rot[ri], p)
                        outs.append(((*head, tuple(masks), bb.samples), pend, cols, list(bb.ops)))
                    return False, outs
        return False, [
            ((b2.ship, b2.pod, b2.shields, b2.held, tuple(b2.rot), tuple(b2.masks), b2.samples),
             self._pending(b2), cols, b2.ops)
            for b2, cols in rescans
        ]

    @staticmethod
    def _pending(b: Branch) -> tuple:
        """A branch's pending flips, then its pending shifts, as a model
        state's ``PEND`` has them."""
        if not b.pend and not b.spend:
            return ()  # (most turns: none, and every turn in expected mode)
        return tuple(sorted(e[0] for e in b.pend)) + tuple(sorted(SHIFT_TAG | m for m in b.spend))

    def _kept(self, end: tuple | None) -> tuple | None:
        """Grid end ``end`` (``_grid_end``) with only the grids ``keep``
        accepts (``successors``; a win always); None when none is left."""
        if end is None or self._keep is None or end[0]:
            return end
        data = [e for e in end[1] if self._keep(e[0])]
        return (False, data) if data else None

    def _all_kept(self, ends) -> list:
        """The grid ends of ``ends`` that ``_kept`` leaves, as it leaves them."""
        return [e for e in map(self._kept, ends) if e is not None]

    def _emit(self, end: tuple | None, cards: tuple, bolster, rec1, rec2, ncards, out, kept: bool = False) -> None:
        """Successors from a grid end (``_grid_end``; ``kept``: already
        ``_kept``'s) and the cards after the command: one per draw outcome
        (none when the deck runs out on the second pass, a loss)."""
        if not kept:
            end = self._kept(end)
        if end is None:
            return
        won, data = end
        if won:
            grid, ops = data
            st = (*grid, *cards, ())
            out.append((st, (bolster, rec1, rec2, (), None, ops), ncards, True))
            return
        for after, drawn in self.after_draw(cards):
            for grid, pend, cols, ops in data:
                st = (*grid, *after, pend)
                out.append((st, (bolster, rec1, rec2, drawn, cols, ops), ncards, False))

