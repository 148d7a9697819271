"""Fewest cards among the fewest-turn plans, with the grid split from the cards.

Where it applies (``applies``: one action a turn, i.e. without the §12 second
action, in deal or open mode; any number of players, with or without the
escape pod) a turn has two independent halves:

* the **grid half**: the bolster, the action with its arguments and the pod's
  move (its direction and steps, ``Model.pod_move``, §10) decide all that
  happens on the grid (``Model.grid_moves``); a player without cards skips to
  the re-scan (§9, ``Model.grid_skip``). Which cards paid enters it only
  through the pod's move.
* the **card half**: the cards played (by whom, [D18] a deck top included),
  the heading they leave ([D11]) and the draw (§7) decide the hands, deck and
  discard pile. Of the action it sees only its *pay class*
  (``model.pay_class``: Fly or Peek with its direction, any Deep Scan,
  Shields; SKIP for a player without cards): every action of a class is paid
  for by the same cards.

A plan is a grid path and a card path that agree on the pay class turn by turn.
With T the fewest turns, an A* over (turn, grid, card state) finds the fewest
cards among T-turn plans, or proves there is no plan of T turns. (``solve``
first tries the relaxed game's bound at the roots as T, and only when no plan
has that many turns finds T with the A* under 'turns-only': ``plan_search.split_solve``.)

* **Grid half once per grid.** A grid state's turns on turn t are worked out
  once per pay class and pod move, whatever the cards, and only for the pay
  classes a node asks for (``GridHalf.nexts``); only the turns that can still
  be part of a win on turn T are followed (``GridHalf._fits``: a win only on
  the last turn; else a next grid whose admissible turn bounds,
  ``search.Heuristic`` and the relaxed game's ``within``, fit in the turns
  left, checked once per grid and turn). Every Deep Scan of a grid is
  dropped at once when the relaxed game started with a Deep Scan's credit
  wait needs more turns than are left (``GridHalf.scan_may_fit``; a Deep
  Scan is most of a grid's turns and most of them lead nowhere). The turns
  themselves are compiled (``grid_kernel``, for the rules it covers:
  ``CompiledGridTurns.applies``), with the same optimum and nodes as the
  Python path.
* **Card half once per hand.** What the cards can pay for, by pay class and
  pod move, is worked out once per (hands, heading, active player)
  (``payments``): the deck is untouched by a command (but for two players'
  [D18] deck top, where the deck is part of the key) and the cards played join
  the discard pile. What a set of cards pays for depends only on their classes
  (``Model.tok_classes``) and, for a lone Fly card, the heading, and is worked
  out once a solve (``_play_keys``); solo, a hand's payments, by places in the
  hand, are shared by every hand of the same classes (``solo_payments``), as
  are three or four players' dealt hands' by places in the hands
  (``team_payments``), and these and the lazy ones by every solve in the
  process (``_SHAPES``).
  Then the draw (``Model.draw_outcomes``); a draw that finds
  the second-pass deck empty is a loss ([D15]) and is dropped.
* **Bound.** Solo, every turn plays a card, so the cards still to play are at
  least the turns left (``T - t``); with more players one less for each player
  holding no card now (``search.Heuristic.cards_for_turns`` says why).
* **The deck's time.** On the second pass a card state whose deck cannot
  last the turns still to T is not entered: every turn but the last
  draws a card, and an empty deck at a draw loses ([D15];
  ``search.most_turns``).
* **Partial expansion.** A command of n cards leads to nodes whose priority
  is at least g + n + the bound on the turns after it. A node expands only
  its commands of a bound within its priority, and goes back on the heap at
  the least bound of the rest (exact: every child is still generated before
  any node of a higher priority is expanded, A* with partial expansion). A
  grid's turns of one pay class are checked against the turns left only when
  a command of that class comes up: most never do, since the optimum is
  found first (a Deep Scan or a change of direction paid with two or three
  cards at nodes near the optimum's priority), and those checks are
  relaxed-game searches.
* **Most cards left** (the last tie-break, §15): cards left plus cards played
  stays put as cards are played and drawn and rises only at the reshuffle
  ([D15]); a node's priority carries a bound on it for the wins of f cards
  below it, and wins go on the heap too, so the first win popped is optimal.
  Every node of the optimum's priority whose bound beats the optimum's
  cards left is expanded to rule it out, so the bound counts: solo it takes
  into the reshuffled pile at most the deck and the cards of the turn that
  empties it (``push``), not every card still to play (44 % of the nodes
  at that priority went, 2,256 -> 1,263 on 20 median setups).
* **Lazy draws** (open mode, one player or three or four; ``lazy_draws``
  says why it is exact): a card drawn is decided only when it is played, as
  any card of the pile it came from. One root instead of one per choice of
  opening hands, and one card state after a draw instead of one per multiset
  drawn: on the middle 40 solo setups (open mode) the card states a solve
  expands, by turn, went 163 -> 43 (nodes 344 -> 288, with the pops below);
  four players, setups 0-7: nodes 9,500-193,000 -> 280-9,600. The
  optimum's card states are made real (``_real_cards``) and replayed like
  any other. A
  node of pending cards pays for most keys with one card, so it works out
  one key's grid turns a pop and comes back for the next (``push``'s
  ``resume``): where a win lies below the first, the others are never
  worked out.
* **The relaxed way's first turn first** ('turns-only', solo without the
  escape pod, open mode): a
  node's commands of the kind that the relaxed way found from its grid
  starts with (``GridHalf.hinted_class``: a Fly that way, Shields, or a
  Deep Scan) come first among equals. The search goes deepest first, so
  when the hint is right it seldom comes back to the others. The order of
  work only: every command is still tried before the search gives up.
* **Grids no cards can win from.** Once a search runs long
  (``WIN_PATHS_AFTER`` nodes), a turn into a grid from which no turns of
  any pay class win at T (``GridHalf.may_win``, worked out once per grid
  and turn) is dropped, whatever the cards: a slow search meets the same
  dead grids once per card state. Without the escape pod.
* **Dominance.** A card state with no heading is at least as good as the same
  one with a heading, at no more cards ([D11]: no heading allows all that a
  heading allows, and every command sets the next heading whatever the one
  before).
* **Transpositions**: one entry per (turn, grid, card state), at its fewest
  cards, keyed by ids given once per grid and card state (big tuples, slow
  to hash).

The joint A* (``search``) proves the same optimum by searching grid and cards
together: there every state that differs only in its cards repeats the grid's
work, and most of its time went to that. The optimum found here is turned into
the joint model's own path: each turn is matched with one of
``Model.successors``, so the plan carries the same records as the A*'s and is
replayed through the rules engine like them. The tests check both searches
agree (``tests/solver/test_split.py``).
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable

from ..rules.geometry import EARTH
from . import lazy_draws
from .card_payments import (
    BY_PLACES,
    BY_TEAM,
    FINAL,
    LAZY,
    ONE_OF_EACH,
    after_payment,
    hand_payments,
    lazy_payments,
    paid_at,
    solo_payments,
    team_payments,
)
from .grid_half import ANY_PEEK, NO_CARDS, SKIP, GridHalf, as_state, grid_key, next_grids
from .model import HANDS, PEND, SCAN, Model, pay_class
from .model_state import Root
from .search import Heuristic, SearchOutcome, most_turns

# The card search's halves live in ``grid_half`` and ``card_payments``;
# callers and tests still import these from here.
__all__ = [
    "ANY_PEEK", "NO_CARDS", "ONE_OF_EACH", "SCAN", "SKIP", "GridHalf", "after_payment", "applies", "as_state",
    "fewest_cards", "grid_key", "hand_payments", "lazy_payments", "next_grids", "solo_payments",
]

# ``fewest_cards``' payments shared by card states alike (``keyed``), kept
# across solves: a lone player's by places in the hand are a function of the
# classes of the hand's cards, the heading and the rules that read them (the
# mode, the escape pod and whether it moves: ``solo_payments``,
# ``_play_keys``); lazy ones (``lazy_payments``) of the hands and what the
# pool offers as card types, the heading, the types themselves and the number
# of players. A process that solves many setups (a generator checking its
# puzzles, the benchmarks) meets the same few hundred again and again.
_SHAPES: dict[tuple, tuple[int, list]] = {}
_SHAPES_LIMIT = 20_000


# Nodes after which ``fewest_cards`` turns to ``when_slow``: most card
# searches end before (the escape pod's median solve in open mode, seeds
# 0-999: 376 nodes), and for them its searches would be time lost.
SLOW_AFTER = 2_000
# Nodes after which ``fewest_cards`` leaves out the grids from which no
# turns win at T whatever the cards (``GridHalf.may_win``). A count, not a
# clock: the same plan on every machine.
WIN_PATHS_AFTER = 2_000
# ``when_slow``'s verdicts on a number of turns T: go on searching; no plan
# of T turns (a relaxation proved it); a plan of T turns was found another
# way (the search stops, 'unknown' with this as ``stopped``).
GO_ON = ""
NO_PLAN = "no plan"
PLAN_ELSEWHERE = "a plan found elsewhere"


def _share(key: tuple, shape: tuple[int, list]) -> None:
    """Keep ``keyed``'s answer ``shape`` in ``_SHAPES`` (which starts over
    when full)."""
    if len(_SHAPES) >= _SHAPES_LIMIT:
        _SHAPES.clear()
    _SHAPES[key] = shape


def applies(model: Model, roots: list[Root]) -> bool:
    """Whether a turn's grid half is its action's and the pod's move alone
    (module docstring): one action a turn, lazily decided flips."""
    return model.actions_per_turn == 1 and model.lazy and len({grid_key(st) for st, _ in roots}) == 1


# Long by design: the card search's bookkeeping lives in this function's
# locals and closures, which its main loop reads many times a node; split
# into an object's methods it would pay an attribute lookup for each.
def fewest_cards(
    model: Model,
    roots: list[Root],
    turns: int,
    *,
    deadline: float | None = None,
    max_nodes: int | None = None,
    max_states: int = 3_000_000,
    heuristic: Heuristic | None = None,
    progress: Callable[[dict], None] | None = None,
    lazy: bool | None = None,
    any_cards: bool = False,
    when_slow: Callable[[int], str] | None = None,
    keep_rows_after: int | None = None,
) -> SearchOutcome:
    """The plan of exactly ``turns`` turns with the fewest cards, then the
    most cards left, from ``roots`` (``applies`` must hold); ``turns`` must
    not exceed the fewest turns (then it is the optimum), and status
    'unsolvable' says no plan has that many. Status 'unknown' (bound
    ``turns``) when ``deadline`` passes or more than ``max_nodes`` nodes or
    ``max_states`` states would be needed. ``heuristic``: the one the search
    for ``turns`` used, if any (its learned bounds carry over). ``lazy``:
    draws decided as the cards are played (``lazy_draws``; by default
    wherever it applies: open mode with one player, or three or four; False
    for the tests, which check it against the draws branched on).
    ``any_cards``: the first plan of ``turns`` turns found, its cards not
    minimised ('turns-only'): every command counts as no card, so the
    search goes deepest first. ``when_slow``: asked once, with ``turns``,
    when the search has not ended within ``SLOW_AFTER`` nodes, for searches
    of its own (``api.SideSearches``): ``GO_ON``, ``NO_PLAN`` or
    ``PLAN_ELSEWHERE``. ``keep_rows_after``: after that many nodes the
    grid half's checks keep the far rows (``GridHalf.keep_far_rows``)."""
    t_start = time.perf_counter()
    last_report = t_start
    grid = GridHalf(model, turns, heuristic)
    # The bound on the cards of the turns left after a command, from how many
    # players it leaves with no card (the draw after it only fills a hand:
    # no lower).
    cards_for = grid.h.cards_for_turns_of
    base = model.branch_of(roots[0][0])
    players = model.players
    lazy = lazy_draws.applies(model) if lazy is None else lazy and lazy_draws.applies(model)
    per_card = 0 if any_cards else 1  # what a card played costs
    # Card states are big tuples too: ids, as for grids. ``free_of[id]`` is
    # the id of the same card state with no heading (None if it has none),
    # for the dominance test.
    cards_of: list[tuple] = []
    free_of: list[int | None] = []
    # ``empty_of[id]``: the players holding no card, all the bound on the
    # cards still to play reads of the hands (``cards_for``).
    empty_of: list[int] = []
    # ``turns_of[id]``: the most turns the card state leaves time for
    # (``search.most_turns``: the second pass's deck).
    turns_of: list[int] = []
    card_ids: dict[tuple, int] = {}

    def new_id(cards: tuple, free: int | None) -> int:
        got = card_ids[cards] = len(cards_of)
        cards_of.append(cards)
        free_of.append(free)
        empty_of.append(_empty(cards[0]))
        turns_of.append(most_turns(cards[4], lazy_draws.deck_size(cards) if lazy else len(cards[1])))
        return got

    def card_id(cards: tuple) -> int:
        # (Not calling itself for the twin: a closure that does is a
        # reference cycle, see ``api.cyclic_gc_paused``.)
        got = card_ids.get(cards)
        if got is None:
            free = None
            if cards[3] is not None:
                twin = (*cards[:3], None, *cards[4:])
                free = card_ids.get(twin)
                if free is None:
                    free = new_id(twin, None)
            got = new_id(cards, free)
        return got

    paid_by: dict[tuple, list] = {}  # ``_play_keys``' memo
    pays: dict[int, tuple[int, dict]] = {}

    def payments(cid: int) -> tuple[int, dict]:
        """(pay class, pod move) -> what pays for it from card state ``cid``,
        as (id of the cards after the command, cards played) (before the
        draw): (SKIP, SKIP) for a player without cards (§9), and two
        players' commands. (Those of one, three or four players are
        ``keyed``'s, by places in the hands or lazy.)"""
        got = pays.get(cid)
        if got is not None:
            return got
        cards = cards_of[cid]
        hands, _deck, _disc, _head, _pass2, active = cards
        if not hands[active]:
            got = pays[cid] = (FINAL, {(SKIP, SKIP): [(cid, 0)]})
            return got
        assert players == 2
        # [D18] the third card of a wild is the deck's top: the deck counts.
        what: dict[tuple, dict] = {}
        for c in model.commands(base, cards, frozenset(), actions=ONE_OF_EACH):
            what.setdefault((pay_class(c[1]), model.pod_move(c)), {})[(c[5], len(c[0]))] = None
        got = pays[cid] = (FINAL, {k: [(card_id(c1), n) for c1, n in v] for k, v in what.items()})
        return got

    built: dict[tuple, list] = {}

    def options(cid: int, k: tuple, what: list, form: int) -> list:
        """(id of the cards after the command, cards played) for key ``k`` of
        ``keyed(cid)`` (of form ``form``), built only for the keys a live
        grid turn asks for."""
        if form == FINAL:
            return what
        got = built.get((cid, k))
        if got is None:
            cards = cards_of[cid]
            if form == LAZY:
                got = built[(cid, k)] = [
                    (card_id(lazy_draws.after_play(cards, after, played, take, arrow)), len(played))
                    for after, played, take, arrow in what]
                return got
            if form == BY_PLACES:
                hand = cards[0][0]
                what = [((tuple(hand[i] for i in kept),), tuple(hand[i] for i in pos), arrow)
                        for kept, pos, arrow in what]
            else:  # BY_TEAM
                what = [(*paid_at(cards[0], places, kept), arrow) for places, kept, arrow in what]
            got = built[(cid, k)] = [(card_id(after_payment(cards, paid)), len(paid[1])) for paid in what]
        return got

    after_draw: dict[int, list] = {}

    def drawn(c1: int) -> list[int]:
        """The ids of the card states after the draw (§7) that follows a
        command (card state ``c1``), the next player active; none when the
        second-pass deck runs out."""
        got = after_draw.get(c1)
        if got is None:
            if lazy:
                got = after_draw[c1] = [card_id(cards2) for cards2 in lazy_draws.draw(model, cards_of[c1])]
            else:
                got = after_draw[c1] = [card_id(cards2) for cards2, _drawn in model.after_draw(cards_of[c1])]
        return got

    # A* over (turn, grid, cards) for the fewest cards, then the most cards
    # left (module docstring). L = cards left + cards played stays put as
    # cards are played and drawn and rises only at the reshuffle ([D15]).
    best: dict[tuple, int] = {}
    parent: dict[tuple, tuple] = {}
    heap: list = []
    root_of = {}
    seq = 0
    # Per card state id: cards held, in the deck and in the discard pile,
    # and the second pass (what ``push`` reads of it, for every push).
    sizes: dict[int, tuple[int, int, int, bool]] = {}

    def push(key: tuple, g: int, h: int | None = None, stage: int = -1, resume: int = 0,
             later: int | None = None) -> None:
        """Onto the heap at priority g + h (h: the bound on the cards still to
        play, unless given), its options with a bound above ``stage`` still to
        expand, from its key ``resume`` on (``keyed``' order; the node comes
        back at the same priority to go on there), ``later`` the least bound
        of the commands it left for a later stage so far."""
        nonlocal seq
        t, _gid, cid = key
        got = sizes.get(cid)
        if got is None:
            hands, deck, disc, _head, pass2, _active = cards_of[cid]
            n_deck = lazy_draws.deck_size(cards_of[cid]) if lazy else len(deck)
            got = sizes[cid] = (sum(len(x) for x in hands), n_deck, len(disc), pass2)
        held, n_deck, n_disc, pass2 = got
        if h is None:
            h = cards_for(turns - t, empty_of[cid])
        big_l = held + n_deck + g
        # The cards a win of g + h cards takes from the deck: solo, what the
        # turns but the last play (hands are full at the start of a turn);
        # else at most its cards (a helper's [D18] deck top included) and what
        # refills the hands. If that may empty the deck, the discard pile (and
        # what joins it) and the Wild come back.
        if players == 1:
            taken = h - 1
            # Solo, a turn's draw is the cards it played, so the reshuffle
            # comes at the draw of the first turn whose cards, with those
            # before it, outnumber the deck: by then at most the deck and
            # that turn's cards have joined the pile. A turn plays at most
            # the hand, and each of the other turns left at least one card
            # ([D10]); the last turn draws none (§4).
            joined = min(taken, n_deck + min(model.limit, h - (turns - t - 1)))
        else:
            taken = h + model.limit * players - held
            joined = h
        if not pass2 and taken > n_deck:
            big_l += n_disc + joined + 1
        heapq.heappush(heap, (g + h, -big_l, -t, seq, key, g, stage, resume, later))
        seq += 1

    shape: dict[int, tuple[int, list]] = {}
    # ``keyed``'s answers shared by card states alike (``_SHAPES``, across
    # solves too): solo, (classes of the hand's cards, heading), by places in
    # the hand (``solo_payments``); three or four players' dealt hands,
    # (classes of each hand's cards, heading, active player), by places in
    # the hands (``team_payments``); lazy, (hands, what the pool offers,
    # heading) (``lazy_payments``). Their keys start with what else the
    # payments read.
    classes = model.tok_classes
    pod_free = base.pod is not None and base.pod != EARTH
    solo_rules = ("solo", model.mode, model.pod_variant, pod_free)
    lazy_rules = ("lazy", model.pod_variant, pod_free, players, tuple(model.types)) if lazy else None
    team_rules = ("team", model.mode, model.pod_variant, pod_free, players)

    def keyed(cid: int) -> tuple[int, list]:
        """``payments(cid)``: its form, and its items, each with the fewest
        cards of its commands and, with more players, each distinct (cards
        played, players left with no card): what the bound on the nodes
        after them reads (``cards_for``).
        Solo, that bound is the cards played plus the turns after, and the
        items are by places in the hand (form BY_PLACES), the same for every
        hand of the same classes of cards."""
        got = shape.get(cid)
        if got is not None:
            return got
        hands, _deck, _disc, head, _pass2, active = cards_of[cid]
        if lazy and hands[active]:
            pk = (hands, lazy_draws.offer(hands, _deck, len(classes)), active)
            tk: tuple = (lazy_rules, pk, head)
            got = _SHAPES.get(tk)
            if got is None:
                paying = lazy_payments(model, base, cards_of[cid], pk, paid_by)
                if players == 1:  # as solo below: sorted by the fewest cards
                    got = (LAZY, sorted(
                        ((k, what, min(len(played) for _, played, _, _ in what), None) for k, what in paying.items()),
                        key=_least))
                else:
                    items: list[tuple] = []
                    for k, what in paying.items():
                        distinct = {(len(played), after.count(())) for after, played, _, _ in what}  # (``_empty``)
                        items.append((k, what, min(n for n, _ in distinct), sorted(distinct)))
                    got = (LAZY, items)
                _share(tk, got)
            shape[cid] = got
            return got
        if players == 1 and hands[0]:
            tk = (solo_rules, tuple(classes[t] for t in hands[0]), head)
            got = _SHAPES.get(tk)
            if got is None:
                paying = solo_payments(model, base, hands[0], head, paid_by)
                # Solo the bound grows with ``least`` alone: in its order,
                # the loop stops at the first key above the node's priority.
                got = (BY_PLACES, sorted(
                    ((k, what, min(len(pos) for _, pos, _ in what), None) for k, what in paying.items()),
                    key=_least))
                _share(tk, got)
            shape[cid] = got
            return got
        if players > 2 and hands[active]:
            # Dealt hands of three or four players, by places in the hands
            # (``team_payments``): the same for every card state whose hands
            # hold the same classes of cards.
            tk = (team_rules, tuple(tuple(classes[t] for t in h) for h in hands), head, active)
            got = _SHAPES.get(tk)
            if got is None:
                items = []
                for k, what in team_payments(model, base, hands, head, active, paid_by).items():
                    distinct = set()
                    for places, _kept, _arrow in what:
                        out = [0] * players
                        for p, _i in places:
                            out[p] += 1
                        # (cards played, players left with no card: ``_empty``)
                        distinct.add((len(places), sum(len(h) == out[p] for p, h in enumerate(hands))))
                    items.append((k, what, min(n for n, _ in distinct), sorted(distinct)))
                got = (BY_TEAM, items)
                _share(tk, got)
            shape[cid] = got
            return got
        form, paying = payments(cid)
        items = []
        got = shape[cid] = (form, items)
        for k, what in paying.items():
            played = [(n, empty_of[c1]) for c1, n in what]
            least = min(n for n, _ in played)
            if players == 1:
                items.append((k, what, least, None))  # (a skip: one item)
                continue
            items.append((k, what, least, sorted(set(played))))
        return got

    # 'turns-only', solo in open mode without the pod: per grid id, the pay
    # class a relaxed way found from it starts with
    # (``GridHalf.hinted_class``), and per (``keyed``'s items, by id, that
    # class) the items with that class first (and the items themselves,
    # kept so that their id is not reused). Elsewhere the cards follow a
    # relaxed way less often, and the search, deepest first, went down it
    # too far (more players, deal mode above all); the relaxed way is the
    # ship's alone, so with the pod it misleads too (measured in
    # docs/SOLVER.md, "Twentieth session").
    by_hint = any_cards and model.mode == "open" and players == 1 and not model.options.escape_pod
    hinted: dict[int, tuple | None] = {}
    hinted_items: dict[tuple[int, tuple], tuple[list, list]] = {}

    def in_hinted_order(gid: int, items: list) -> list:
        """``items`` with the commands of the hinted pay class first, else
        in their order: a plan of T turns often starts as the relaxed way
        the check found, and the search, deepest first, then seldom comes
        back to the other commands. The order of work only."""
        if gid in hinted:
            pc = hinted[gid]
        else:
            pc = hinted[gid] = grid.hinted_class(gid)
        if pc is None:
            return items
        got = hinted_items.get((id(items), pc))
        if got is None:
            first = [it for it in items if it[0][0] == pc]
            got = hinted_items[(id(items), pc)] = (items, first + [it for it in items if it[0][0] != pc])
        return got[1]

    # Per (``keyed``'s items, by id: they live as long as the search, turns
    # after the node's): ``extra`` in the loop below.
    extras: dict[tuple[int, int], list[int]] = {}
    live = grid._live  # (read directly in the loop: one lookup a node)
    # Once a search runs long (``WIN_PATHS_AFTER``), grids from which no
    # turns win at T, whatever pays for them, are left out
    # (``GridHalf.may_win``; without the escape pod, whose moves it does not
    # enumerate). Before, they cost more than they save: a median search
    # ends first.
    may_win = None
    # A node: (turn, grid id, card state id).
    gid0 = grid.grid_id(grid_key(roots[0][0]))
    for st, rec in roots if not lazy else [(None, None)]:
        # Lazy: one root, its opening hand pending (``lazy_draws``).
        key = (0, gid0, card_id(lazy_draws.root_cards(model, roots) if st is None else st[HANDS:PEND]))
        root_of[key] = (st, rec)
        best[key] = 0
        push(key, 0)
    nodes = 0
    while heap:
        f, _, _, _, key, g, stage, resume, later = heapq.heappop(heap)
        if key[0] == "won":
            _, last, pc, c1, n = key
            break
        if best[key] != g:
            continue  # stale
        t, gid, cid = key
        fid = free_of[cid]
        if fid is not None:
            free = best.get((t, gid, fid))
            if free is not None and free <= g:
                continue  # dominated since it was pushed
        nodes += 1
        if nodes == WIN_PATHS_AFTER and base.pod is None:
            may_win = grid.may_win
        if nodes == keep_rows_after:
            grid.keep_far_rows()
        if nodes == SLOW_AFTER and when_slow is not None:
            verdict = when_slow(turns)
            if verdict == NO_PLAN:
                return SearchOutcome("unsolvable", None, None, None, nodes)
            if verdict == PLAN_ELSEWHERE:
                return SearchOutcome("unknown", None, None, turns, nodes, PLAN_ELSEWHERE)
        if (max_nodes is not None and nodes > max_nodes) or len(best) > max_states:
            stopped = "node limit" if max_nodes is not None and nodes > max_nodes else "memory limit"
            return SearchOutcome("unknown", None, None, turns, nodes, stopped)
        # The clock on every node: one node may check many grids.
        now = time.perf_counter()
        if deadline is not None and now > deadline:
            return SearchOutcome("unknown", None, None, turns, nodes, "time limit")
        if progress is not None and now - last_report > 0.5:
            last_report = now
            progress({"nodes": nodes, "states": len(best), "open": len(heap),
                      "bound": turns, "seconds": now - t_start})
        # Partial expansion: a command of n cards leads to nodes of priority
        # at least ``g + n + (bound on the cards of the turns after it)``; the
        # commands of a bound above f wait, with the node back on the heap at
        # the least of those bounds. Most never come up (the optimum is
        # found first), and their grids' turns are never worked out.
        table = live.get((gid, t))
        if table is None:
            table = grid.live(gid, t)
        form, items = keyed(cid)
        if by_hint:
            items = in_hinted_order(gid, items)
        rest = turns - t - 1  # turns after this one
        # With more players, per item the least its commands add to g (every
        # item has its ``pairs`` then): the same for every grid this card
        # state meets on this turn. (Solo it is the item's fewest cards and
        # the turns after.)
        extra = None
        if players > 1:
            # (By the items' own list, which card states of the same hands,
            # heading and active player share: ``keyed``.)
            extra = extras.get((id(items), rest))
            if extra is None:
                extra = extras[(id(items), rest)] = [min(per_card * n + cards_for(rest, e) for n, e in pairs)
                                                     for _k, _what, _least_n, pairs in items]
        worked = paused = False
        for i in range(resume, len(items)):
            k, what, least_n, pairs = items[i]
            pc, pod = k
            # The least bound of the key's commands, read before any card
            # state after them is built: most keys are never asked for.
            least = g + (per_card * least_n + rest if extra is None else extra[i])
            if least > f:
                if later is None or least < later:
                    later = least
                if pairs is None:
                    break  # solo: the keys after it are no cheaper (``keyed``)
                continue
            nexts = table.get(k)
            if nexts is None:
                if worked and lazy:
                    # With pending cards (``lazy_draws``) a node may pay for
                    # every key with one card, and would work out the grid's
                    # turns of them all. One key's a pop: the node comes back
                    # at the same priority, after its children (deeper
                    # first), to go on from this key; where a win of this
                    # priority lies below one key, the others are never
                    # worked out. (With dealt cards, which pay for fewer keys
                    # at a time, the extra pops cost more than they save.)
                    push(key, g, f - g, stage, i, later)
                    paused = True
                    break
                worked = True
                nexts = grid.nexts(table, gid, t, pod, pc)
            if may_win is not None:
                nexts = [nxt for nxt in nexts if nxt is None or may_win(nxt, t + 1)]
            if not nexts:
                continue
            for c1, n in options(cid, k, what, form):
                lb = g + per_card * n + (rest if players == 1 else cards_for(rest, empty_of[c1]))
                if lb > f:
                    if later is None or lb < later:
                        later = lb
                    continue
                if lb <= stage:
                    continue  # expanded at an earlier stage
                g2 = g + per_card * n
                after = None  # drawn(c1), once asked for
                for nxt in nexts:
                    if nxt is None:
                        # A win on the last turn: no draw (§4).
                        hands, deck = cards_of[c1][:2]
                        n_deck = lazy_draws.deck_size(cards_of[c1]) if lazy else len(deck)
                        big_l = sum(len(x) for x in hands) + n_deck + g2
                        heapq.heappush(heap, (g2, -big_l, -turns - 1, seq, ("won", key, pc, c1, n), g2, -1, 0, None))
                        seq += 1
                        continue
                    if after is None:
                        after = drawn(c1)
                    for c2 in after:
                        if turns_of[c2] < turns - t - 1:
                            continue  # the deck runs out first
                        fid = free_of[c2]
                        if fid is not None:
                            # No heading allows all that a heading allows, and
                            # every command sets the next one ([D11]).
                            free = best.get((t + 1, nxt, fid))
                            if free is not None and free <= g2:
                                continue
                        key2 = (t + 1, nxt, c2)
                        old = best.get(key2)
                        if old is None or g2 < old:
                            best[key2] = g2
                            parent[key2] = (key, pc, n, c1)
                            push(key2, g2)
        if later is not None and not paused:
            push(key, g, later - g, f)
    else:
        return SearchOutcome("unsolvable", None, None, None, nodes)
    steps = [(last, pc, n, c1)]
    while steps[-1][0] not in root_of:
        steps.append(parent[steps[-1][0]])
    steps.reverse()
    root = root_of[steps[0][0]]
    steps = [((t, grid.grids[gid], cards_of[cid]), pc, n, cards_of[paid])
             for (t, gid, cid), pc, n, paid in steps]
    last_cards = cards_of[c1]
    if lazy:
        root, steps, last_cards = _real_cards(model, roots, steps, last_cards)
    path = _concrete(model, root, steps, last_cards)
    return SearchOutcome("solved", path, (turns, sum(n for _, _, n, _ in steps)), None, nodes)


def _real_cards(model: Model, roots: list[Root], steps: list, last_cards: tuple) -> tuple[tuple, list, tuple]:
    """A lazy optimum's root, steps and last card state with real cards
    (``lazy_draws.concrete_cards``), for ``_concrete``: the root is the one
    of ``roots`` whose opening hand the plan draws."""
    states = [x for (node, _pc, _n, paid) in steps for x in (node[2], paid)][:-1] + [last_cards]
    real = lazy_draws.concrete_cards(model, states)
    first = real[0]
    root = next(((st, rec) for st, rec in roots if st[HANDS:PEND] == first), None)
    assert root is not None, "lazy draws: the plan's opening hand is no root's"
    steps = [((t, gk, real[2 * i]), pc, n, real[2 * i + 1]) for i, ((t, gk, _c), pc, n, _p) in enumerate(steps)]
    return root, steps, real[-1]


def _empty(hands: tuple) -> int:
    """How many of ``hands`` hold no card (a hand is a tuple)."""
    return hands.count(())


def _least(item: tuple) -> int:
    return item[2]


def _never(_grid: tuple) -> bool:
    return False


def _concrete(model: Model, root: tuple, steps: list, last_cards: tuple) -> list:
    """The optimum as a path of model states and ``Model.successors`` records
    (as ``search.astar`` returns it). ``steps``: per turn (node before it, pay
    class, cards played, card state after the command); the node after each
    is the next step's."""
    path = [root]
    st = root[0]
    for t, (_node, pc, n, paid) in enumerate(steps):
        final = t == len(steps) - 1
        if final:
            want_cards = last_cards
            keep = _never  # a win passes whatever ``keep`` says
        else:
            _, gk2, want_cards = steps[t + 1][0]
            keep = gk2[:HANDS].__eq__  # only successors into the next step's grid are drawn for
        for st2, rec, ncards, won in model.successors(st, keep, None if pc == SKIP else pc, paid):
            if ncards != n or st2[HANDS:PEND] != want_cards:
                continue
            if (final and won and pay_class(rec[1][1]) == pc) or (not final and st2 == as_state(gk2, want_cards)):
                path.append((st2, rec))
                st = st2
                break
        else:  # pragma: no cover - the two halves disagree: a solver bug
            raise AssertionError(f"split search: turn {t + 1} of the optimum has no matching successor")
    return path
