"""Open mode: each card drawn is decided only when it is played.

In open mode the solver chooses the deck's order (§15): the first deck's
order, which deals the opening hands, and the reshuffle ranking, which orders
the second deck. The card search (``split.fewest_cards``) used to branch on
every opening hand and on every draw (each multiset of card types the pile
holds), and most of those card states differ only in cards the plan has not
played yet. Here a card drawn is a *pending* card (``ANY``): some card of the
pile it came from, not yet said which. The card state keeps the pile's
**pool**, the multiset of its cards not decided yet: those still in the deck
and the pending ones in hands; the deck holds ``len(pool)`` less the pending
cards. Playing a pending card says which card of the pool it is. One player,
or three or four (two players' [D18] deck top is left to the branched draws).

Why this finds the same optimum (turns, cards, cards left):

* **Every lazy plan is a real one.** Walk the plan and give each pending card
  the type it is played as; those never played take what is left of the pool.
  Deal the first deck (and rank the second) in the order the cards were
  drawn: every draw then draws the cards the plan says (``concrete_cards``
  builds those card states, and the plan is replayed through the rules engine
  like every other). What a command can do depends on the classes of its
  cards alone, not on who played which (``Model.play_commands``), so which
  pending card of a command took which type does not matter.
* **Every real plan is a lazy one.** Its draws are cards of the pool, and a
  pending card may be played as any of them. (The lazy plan plays a card the
  hand knows before a pending card of the same type: the state it leaves
  keeps a pending card, which may still become that type, so it is at least
  as good, and the optimum is found among such plans.)
* **The reshuffle** comes when a draw finds the deck empty ([D15]); the
  pending cards in hands are then the pool itself, and become known cards:
  one lone player holds them all; with more players each way of dealing them
  to the players' pending cards is a card state of its own. A lone player's
  pending cards become known as soon as the deck holds none (``draw``).
* **[D24]** A player holding the Wild may not play three cards as a wild,
  and the three never include it. A lone player holds at most three cards
  (§2): holding the Wild, they hold at most two others, so no three-card play
  is left to forbid, and a three-card play empties the hand. With more
  players (two cards a hand) the active player keeps a card across a
  three-card play: if pending, it was not the Wild then, and never is
  (``ANY_NW``, a pending card that is not the Wild). The Wild joins the pile
  only at the reshuffle ([D6]); while it is in the pool it must lie somewhere
  it may be, the deck or a pending ``ANY`` (a play that leaves it no such
  place is not made); once it has left the pool, ``ANY_NW`` is ``ANY`` again.
  A card of another type is taken from an ``ANY_NW`` first (the state that
  keeps the ``ANY`` is at least as good).

Cards left and cards played count as before: a pending card is a card in hand.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations, combinations_with_replacement

from .model import HANDS, KIND_FLY, PEND, Model
from .model_state import Root

ANY = 1 << 20  # a pending card: any card of the pool (tokens are types, all smaller)
ANY_NW = ANY + 1  # a pending card that is not the Wild ([D24], module docstring)
SINGLE, PAIR, TRIPLE = "single", "pair", "triple"  # as ``Model.plays``' 'how'


def applies(model: Model) -> bool:
    """Open mode with one player (a hand of three at most: [D24] in the
    module docstring), or three or four players."""
    if model.mode != "open":
        return False
    return model.limit <= 3 if model.players == 1 else model.players >= 3


def pending(hand: tuple) -> int:
    """How many of ``hand``'s cards are pending (they sort last)."""
    n = 0
    for t in reversed(hand):
        if t < ANY:
            break
        n += 1
    return n


def pending_all(hands: tuple) -> int:
    """How many cards of all ``hands`` are pending."""
    return sum(pending(h) for h in hands)


def root_cards(model: Model, roots: list[Root]) -> tuple:
    """The lazy card state (hands, pool, discard pile, heading, second pass,
    active) of the search's roots: for a fresh setup (``Model.open_roots``,
    one root per choice of opening hands) the opening hands pending, their
    pool the first deck; else the one root's cards, its deck the pool."""
    hands, deck, disc, head, pass2, active = roots[0][0][HANDS:PEND]
    if len(roots) > 1 or (roots[0][1] is not None and roots[0][1][0] == "deal"):
        pool = tuple(sorted([t for h in hands for t in h] + list(deck)))
        lazy = tuple((ANY,) * len(h) for h in hands)
        if len(hands) == 1:
            return _settled(lazy, pool, disc, head, pass2, active)
        return lazy, pool, disc, head, pass2, active
    return hands, deck, disc, head, pass2, active


def _settled(hands: tuple, pool: tuple, disc: tuple, head, pass2: bool, active: int) -> tuple:
    """A lone player's card state with the pending cards made known when the
    deck holds none (they are the pool then)."""
    hand = hands[0]
    n = pending(hand)
    if n and len(pool) == n:
        return (tuple(sorted(hand[: len(hand) - n] + pool)),), (), disc, head, pass2, active
    return hands, pool, disc, head, pass2, active


def deck_size(cards: tuple) -> int:
    """The cards in the deck of a lazy card state."""
    return len(cards[1]) - pending_all(cards[0])


def plays(model: Model, hand: tuple, pool: tuple) -> list[tuple]:
    """Every card set a lone player may play from lazy ``hand`` (§4 step 2,
    [D24]): (cards played (sorted types), how, hands after, pool cards they
    take (sorted)). A card the hand knows is played before a pending one of
    its type (module docstring). It depends on the pool only through
    ``available``."""
    n = pending(hand)
    wild = model.wild_tok
    kinds = model.tok_kind
    known = [0] * len(kinds)
    for t in hand[: len(hand) - n]:
        known[t] += 1
    avail = available(pool, n, len(kinds))
    types = [t for t in range(len(kinds)) if known[t] or avail[t]]
    out = []

    def add(cards: tuple, how: str) -> None:
        left = known[:]
        room = list(avail)
        take = []
        for t in cards:
            if left[t]:
                left[t] -= 1
            elif room[t]:
                room[t] -= 1
                take.append(t)
            else:
                return
        if len(take) > n:
            return
        rest = tuple(t for t in types for _ in range(left[t]))
        out.append((cards, how, (rest + (ANY,) * (n - len(take)),), tuple(take)))

    for t in types:
        add((t,), SINGLE)
    flies = [t for t in types if kinds[t] == KIND_FLY]
    for pair in combinations_with_replacement(flies, 2):
        add(pair, PAIR)
    if not known[wild]:
        for tri in combinations_with_replacement([t for t in types if t != wild], 3):
            add(tri, TRIPLE)
    return out


def available(pool: tuple, n: int, n_types: int) -> tuple:
    """Per card type, how many of ``n`` pending cards may be played as it
    (a command plays at most three): all ``plays`` reads of the pool."""
    out = [0] * n_types
    if n:
        cap = min(n, 3)
        for t in pool:
            if out[t] < cap:
                out[t] += 1
    return tuple(out)


def after_play(cards: tuple, hands_after: tuple, played: tuple, take: tuple, arrow) -> tuple:
    """The lazy card state after a command: ``cards`` before it, the hands
    it leaves, the cards played (types, joining the discard pile), the pool
    cards they took, the heading after."""
    _hands, pool, disc, _head, pass2, active = cards
    if take:
        rest = list(pool)
        for t in take:
            rest.remove(t)
        pool = tuple(rest)
    return hands_after, pool, tuple(sorted(disc + played)), arrow, pass2, active


def team_plays(model: Model, hands: tuple, pool: tuple, active: int) -> list[tuple]:
    """Every card set the active player of three or four may play with the
    others' help from lazy ``hands`` (§9, [D24]; as ``Model.plays``): (cards
    played ((type, player), ...), how, hands after, pool cards they take
    (sorted)). A card a hand knows is played before a pending one of its
    type, an ``ANY_NW`` before an ``ANY``; after a three-card play the
    active player's pending cards are ``ANY_NW`` while the Wild is in the
    pool, and a play that leaves the Wild no place it may be (the deck, an
    ``ANY``) is not made (module docstring). It depends on the pool only
    through ``available`` and whether the deck is empty."""
    wild = model.wild_tok
    kinds = model.tok_kind
    nt = len(kinds)
    known, n_any, n_nw = _hand_counts(hands, nt)
    n = sum(n_any) + sum(n_nw)
    avail = available(pool, n, nt)
    deck_empty = len(pool) == n
    wild_in_pool = avail[wild] > 0  # (with no pending card it is in the deck)
    out: list[tuple] = []
    # Each player's cards for a command, and the hands plays leave (one of
    # counts per type, ``ANY`` and ``ANY_NW`` cards): many plays leave the
    # same.
    can = [[t for t in range(nt) if known[p][t] or (avail[t] and (n_any[p] or (n_nw[p] and t != wild)))]
           for p in range(len(hands))]
    made: dict[tuple, tuple] = {}

    def hand_of(counts: list[int], a: int, w: int) -> tuple:
        key = (*counts, a, w)
        got = made.get(key)
        if got is None:
            got = made[key] = tuple(t for t in range(nt) for _ in range(counts[t])) + (ANY,) * a + (ANY_NW,) * w
        return got

    def add(played: tuple, how: str) -> None:
        room = list(avail)
        take = []
        left = {p: known[p][:] for _, p in played}
        any_left, nw_left = n_any[:], n_nw[:]
        for t, p in played:  # (one card a player)
            if left[p][t]:
                left[p][t] -= 1
            elif room[t] and t != wild and nw_left[p]:
                room[t] -= 1
                nw_left[p] -= 1
                take.append(t)
            elif room[t] and any_left[p]:
                room[t] -= 1
                any_left[p] -= 1
                take.append(t)
            else:
                return
        if how == TRIPLE:
            nw_left[active] += any_left[active]
            any_left[active] = 0
        wild_left = wild_in_pool and wild not in take
        if wild_left and deck_empty and not sum(any_left):
            return  # the Wild would have no place
        after = []
        for p, h in enumerate(hands):
            if p not in left and wild_left:
                after.append(h)
                continue
            a, w = (any_left[p], nw_left[p]) if wild_left else (any_left[p] + nw_left[p], 0)
            after.append(hand_of(left.get(p, known[p]), a, w))
        out.append((played, how, tuple(after), tuple(sorted(take))))

    mine = can[active]
    for t in mine:
        add(((t, active),), SINGLE)
    others = [p for p in range(len(hands)) if p != active]
    for t in mine:
        if kinds[t] == KIND_FLY:
            for p in others:
                for u in can[p]:
                    if kinds[u] == KIND_FLY:
                        add(((t, active), (u, p)), PAIR)
    if known[active][wild]:
        return out
    for t in mine:
        if t == wild:
            continue
        for p, q in combinations(others, 2):
            for a in can[p]:
                for b in can[q]:
                    if wild not in (a, b):
                        add(((t, active), (a, p), (b, q)), TRIPLE)
    return out


def _hand_counts(hands: tuple, nt: int) -> tuple[list[list[int]], list[int], list[int]]:
    """Per lazy hand: how many of each of the ``nt`` card types it knows,
    its ``ANY`` and its ``ANY_NW`` cards."""
    known, n_any, n_nw = [], [], []
    for h in hands:
        k = [0] * nt
        for t in h:
            if t < ANY:
                k[t] += 1
        known.append(k)
        n_any.append(h.count(ANY))
        n_nw.append(h.count(ANY_NW))
    return known, n_any, n_nw


def draw(model: Model, cards: tuple) -> list[tuple]:
    """The lazy card state after the draw that ends a turn (§7): pending
    cards up to the hand limit; [D15] when the deck is empty the discard pile
    and the Wild become the pool. Empty when the deck runs out on the second
    pass (a loss), as ``Model.after_draw``."""
    if model.players > 1:
        return _team_draw(model, cards)
    hands, pool, disc, head, pass2, active = cards
    hand = hands[0]
    need = model.limit - len(hand)
    if need <= 0:
        return [cards]
    deck = len(pool) - pending(hand)
    while need:
        if not deck:
            if pass2:
                return []
            hand = _settled((hand,), pool, disc, head, pass2, active)[0][0]
            pool, disc, head, pass2 = model._reshuffled(disc), (), None, True
            deck = len(pool)
            continue
        k = min(need, deck)
        hand += (ANY,) * k
        deck -= k
        need -= k
    return [_settled((hand,), pool, disc, head, pass2, active)]


def _team_draw(model: Model, cards: tuple) -> list[tuple]:
    """``draw`` with three or four players: the active player draws, the
    next one is active; at the reshuffle every way of dealing the pool to the
    pending cards (``_deal_pool``) is an outcome of its own."""
    hands, pool, disc, head, pass2, active = cards
    nxt = (active + 1) % model.players
    need = model.limit - len(hands[active])
    deck = len(pool) - pending_all(hands)
    k = min(max(need, 0), deck)
    if k:
        hands = _with(hands, active, hands[active] + (ANY,) * k)
        need -= k
    if need <= 0:
        return [(hands, pool, disc, head, pass2, nxt)]
    if pass2:
        return []  # [D15] the deck runs out on the second pass: a loss
    pool2 = model._reshuffled(disc)
    if len(pool2) < need:
        return []
    out = []
    for dealt in _deal_pool(model, hands, pool):
        dealt = _with(dealt, active, dealt[active] + (ANY,) * need)
        out.append((dealt, pool2, (), None, True, nxt))
    return out


def _with(hands: tuple, p: int, hand: tuple) -> tuple:
    return hands[:p] + (tuple(sorted(hand)),) + hands[p + 1:]


def _deal_pool(model: Model, hands: tuple, pool: tuple) -> list[tuple]:
    """Every way of giving the pending cards of ``hands`` the cards of
    ``pool`` (as many as they), the Wild never to an ``ANY_NW``: the hands
    with those cards known, each way once. (Player by player, not by a
    closure calling itself: that would be a reference cycle.)"""
    wild = model.wild_tok
    ways: list[tuple[tuple, tuple]] = [((), tuple(sorted(pool)))]  # (hands dealt, cards left)
    for h in hands:
        n = pending(h)
        nxt: dict[tuple, None] = {}
        for done, rest in ways:
            for picks in dict.fromkeys(combinations(rest, n)):
                if wild in picks and ANY not in h:
                    continue
                left = list(rest)
                for t in picks:
                    left.remove(t)
                nxt[(done + (tuple(sorted(h[: len(h) - n] + picks)),), tuple(left))] = None
        ways = list(nxt)
    return [done for done, _rest in ways]


def concrete_cards(model: Model, states: list[tuple]) -> list[tuple]:
    """The real card states of a lazy plan's: ``states`` alternates the card
    state at a turn's start and after its command (before the draw), the
    last one after the last command. Each pending card is given the type it
    is played as, or when it becomes known (the reshuffle; a lone player's
    empty deck) the type it shows then, or at the plan's end one left in the
    pool (the Wild to one that may be it, if the deck has no room); the
    cards a pending card stood for in each state are then its type (module
    docstring)."""
    wild = model.wild_tok
    players = len(states[0][0])
    typ: dict[int, int] = {}
    nw: dict[int, bool] = {}
    held: list[list[int]] = [[] for _ in range(players)]  # pending cards, oldest first
    seen: list[list[list[int]]] = []  # per state, each hand's pending cards
    next_id = 0

    def fresh(p: int, k: int) -> None:
        nonlocal next_id
        for _ in range(k):
            held[p].append(next_id)
            nw[next_id] = False
            next_id += 1

    def give(p: int, t: int) -> None:
        # The Wild to a pending card that may be it; another type to an
        # ``ANY_NW`` first (as the plays do); the oldest of those.
        mine = [i for i in held[p] if not nw[i]] if t == wild else (
            [i for i in held[p] if nw[i]] + [i for i in held[p] if not nw[i]])
        held[p].remove(mine[0])
        typ[mine[0]] = t

    for k, st in enumerate(states):
        if k == 0:
            for p, h in enumerate(st[0]):
                fresh(p, pending(h))
                for i in held[p][: h.count(ANY_NW)]:
                    nw[i] = True
        elif k % 2:  # a command: the pending cards played took the pool cards taken
            prev = states[k - 1]
            taken = Counter(prev[1]) - Counter(st[1])
            who = [p for p in range(players) for _ in range(pending(prev[0][p]) - pending(st[0][p]))]
            if taken[wild]:  # only a single card is ever the Wild: the active player's
                give(prev[5], wild)
                who.remove(prev[5])
                taken[wild] = 0
            for p, t in zip(who, sorted(taken.elements()), strict=True):
                give(p, t)
        else:  # a draw: pending cards drawn, or made known
            prev = states[k - 1]
            if st[4] != prev[4] or (players == 1 and not st[1] and prev[1]):
                _show_types(st, prev, held, nw, typ, wild)
            for p in range(players):
                fresh(p, pending(st[0][p]) - len(held[p]))
        for p in range(players):
            hand = st[0][p]
            n_nw = hand.count(ANY_NW)
            if n_nw == len(held[p]) or not n_nw:
                for i in held[p]:
                    nw[i] = bool(n_nw)
            assert len(held[p]) == pending(hand), "lazy draws: pending cards lost count"
            assert sum(nw[i] for i in held[p]) == n_nw, "lazy draws: [D24] marks lost"
        seen.append([list(h) for h in held])
    # The plan's end: what is left of the pool, the Wild in the deck if it
    # has room, else to a pending card that may be it.
    last = states[-1]
    rest = list(last[1])
    if wild in rest:
        rest.remove(wild)
        if len(rest) + 1 == sum(len(h) for h in held):
            p = next(p for p in range(players) if any(not nw[i] for i in held[p]))
            give(p, wild)
    for p in range(players):
        for i in list(held[p]):
            t = min(rest)
            rest.remove(t)
            held[p].remove(i)
            typ[i] = t
    return [_typed(st, ids, typ) for st, ids in zip(states, seen, strict=True)]


def _known(hand: tuple) -> Counter:
    return Counter(t for t in hand if t < ANY)


def _show_types(st: tuple, prev: tuple, held: list[list[int]], nw: dict[int, bool], typ: dict[int, int],
                wild: int) -> None:
    """``concrete_cards`` at [D15] the reshuffle, or a lone player's deck
    drawn empty (card state ``prev`` before it, ``st`` after): the pending
    cards show their types (with those drawn and made known at once, if
    any: any of them will do)."""
    for p in range(len(held)):
        got = sorted((_known(st[0][p]) - _known(prev[0][p])).elements(), key=lambda t: t == wild)
        ids = sorted(held[p], key=lambda i: not nw[i])
        for i, t in zip(ids, got[len(got) - len(ids):] if wild in got else got, strict=False):
            typ[i] = t
        held[p] = []


def _typed(st: tuple, ids: list[list[int]], typ: dict[int, int]) -> tuple:
    """Card state ``st`` with each hand's pending cards ``ids`` (per
    player) given their types ``typ``, taken from the pool."""
    hands, pool, disc, head, pass2, active = st
    deck = list(pool)
    real = []
    for hand, mine in zip(hands, ids, strict=True):
        types = [typ[i] for i in mine]
        for t in types:
            deck.remove(t)
        real.append(tuple(sorted(hand[: len(hand) - len(mine)] + tuple(types))))
    return (tuple(real), tuple(sorted(deck)), disc, head, pass2, active)
