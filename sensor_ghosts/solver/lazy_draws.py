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
  pending cards in hands are then the first pass's pool itself. A lone
  player holds them all, and they become known cards (as soon as the deck
  holds none, ``draw``). With more players they stay pending, as cards of
  that pool (``ANY_OLD``): the card state keeps what is left of it beside
  the new pool (each card as its type + ``OLD``), and playing one says
  which of its cards it is, as above. Each way of dealing those cards to the
  players is a real deal, and a lazy card state stands for them all, where
  before each way was a card state of its own (docs/SOLVER.md,
  "Twenty-sixth session"). A card of a type both pools offer may be played
  from either: each is a card state of its own (neither keeps more
  choices).
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
# After the reshuffle, a pending card of the first pass's pool (three or four
# players); never the Wild, which joins only at the reshuffle ([D6]).
ANY_OLD = ANY + 2
OLD = 1 << 10  # in a pool, a card of the first pass's pool: its type + OLD (types are smaller)
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
    (a command plays at most three): all ``plays`` reads of the pool. The
    first pass's cards (``OLD``, sorted last) are not counted."""
    out = [0] * n_types
    if n:
        cap = min(n, 3)
        for t in pool:
            if t >= OLD:
                break
            if out[t] < cap:
                out[t] += 1
    return tuple(out)


def available_old(pool: tuple, n: int, n_types: int) -> tuple:
    """``available`` for the ``n`` ``ANY_OLD`` cards: of the first pass's
    cards in ``pool``."""
    out = [0] * n_types
    if n:
        cap = min(n, 3)
        for t in pool:
            if t >= OLD and out[t - OLD] < cap:
                out[t - OLD] += 1
    return tuple(out)


def offer(hands: tuple, pool: tuple, n_types: int) -> tuple:
    """All the plays of lazy ``hands`` read of ``pool`` (``plays``,
    ``team_plays``): per type, how many pending cards may be played as it,
    of the deck's pool and of the first pass's (``ANY_OLD``), and whether
    the deck is empty."""
    n_old = sum(h.count(ANY_OLD) for h in hands)
    n = pending_all(hands) - n_old
    return available(pool, n, n_types), available_old(pool, n_old, n_types), len(pool) - n_old == n


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
    (sorted; a first-pass card as its type + ``OLD``)). A card a hand knows
    is played before a pending one of its type, an ``ANY_NW`` before an
    ``ANY``; a type both pools offer is played from each in turn (module
    docstring); after a three-card play the active player's pending cards
    are ``ANY_NW`` while the Wild is in the pool, and a play that leaves the
    Wild no place it may be (the deck, an ``ANY``) is not made (module
    docstring). It depends on the pool only through ``offer``."""
    wild = model.wild_tok
    kinds = model.tok_kind
    nt = len(kinds)
    known, n_any, n_nw, n_old = _hand_counts(hands, nt)
    avail, avail_old, deck_empty = offer(hands, pool, nt)
    wild_in_pool = avail[wild] > 0  # (with no pending card it is in the deck)
    out: list[tuple] = []
    # Each player's cards for a command, and the hands plays leave (one of
    # counts per type, ``ANY``, ``ANY_NW`` and ``ANY_OLD`` cards): many
    # plays leave the same.
    can = [[t for t in range(nt) if known[p][t] or (avail[t] and (n_any[p] or (n_nw[p] and t != wild)))
            or (avail_old[t] and n_old[p])]
           for p in range(len(hands))]
    made: dict[tuple, tuple] = {}

    def hand_of(counts: list[int], a: int, w: int, o: int) -> tuple:
        key = (*counts, a, w, o)
        got = made.get(key)
        if got is None:
            got = made[key] = (tuple(t for t in range(nt) for _ in range(counts[t]))
                               + (ANY,) * a + (ANY_NW,) * w + (ANY_OLD,) * o)
        return got

    def add(played: tuple, how: str) -> None:
        room = list(avail)
        room_old = list(avail_old)
        take = []
        left = {p: known[p][:] for _, p in played}
        any_left, nw_left, old_left = n_any[:], n_nw[:], n_old[:]
        for t, p in played:  # (one card a player)
            if left[p][t]:
                left[p][t] -= 1
                continue
            new = room[t] and ((t != wild and nw_left[p]) or any_left[p])
            first = room_old[t] and old_left[p]
            if new and first:
                add_each_way(played, how)  # (rare: both pools' cards in one hand)
                return
            if new:
                room[t] -= 1
                if t != wild and nw_left[p]:
                    nw_left[p] -= 1
                else:
                    any_left[p] -= 1
                take.append(t)
            elif first:
                room_old[t] -= 1
                old_left[p] -= 1
                take.append(t + OLD)
            else:
                return
        made_by(played, how, take, left, any_left, nw_left, old_left)

    def add_each_way(played: tuple, how: str) -> None:
        # ``add`` where a card may come from either pool: each way of taking
        # the cards, (take, room, room of the first pass's pool, known cards
        # left, ANY, ANY_NW and ANY_OLD left).
        ways: list[tuple[list, list, list, dict, list, list, list]] = [
            ([], list(avail), list(avail_old), {p: known[p][:] for _, p in played},
             n_any[:], n_nw[:], n_old[:])]
        for t, p in played:
            nxt = []
            for take, room, room_old, left, any_left, nw_left, old_left in ways:
                if left[p][t]:
                    left[p][t] -= 1
                    nxt.append((take, room, room_old, left, any_left, nw_left, old_left))
                    continue
                if room_old[t] and old_left[p]:
                    r, o = room_old[:], old_left[:]
                    r[t] -= 1
                    o[p] -= 1
                    nxt.append((take + [t + OLD], room, r, {q: c[:] for q, c in left.items()}, any_left,
                                nw_left, o))
                if room[t] and t != wild and nw_left[p]:
                    r, w = room[:], nw_left[:]
                    r[t] -= 1
                    w[p] -= 1
                    nxt.append((take + [t], r, room_old, left, any_left, w, old_left))
                elif room[t] and any_left[p]:
                    r, a = room[:], any_left[:]
                    r[t] -= 1
                    a[p] -= 1
                    nxt.append((take + [t], r, room_old, left, a, nw_left, old_left))
            ways = nxt
        for take, _room, _room_old, left, any_left, nw_left, old_left in ways:
            made_by(played, how, take, left, any_left, nw_left, old_left)

    def made_by(played: tuple, how: str, take: list, left: dict, any_left: list, nw_left: list,
                old_left: list) -> None:
        if how == TRIPLE:
            nw_left = nw_left[:]
            nw_left[active] += any_left[active]
            any_left = any_left[:]
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
            after.append(hand_of(left.get(p, known[p]), a, w, old_left[p]))
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


def _hand_counts(hands: tuple, nt: int) -> tuple[list[list[int]], list[int], list[int], list[int]]:
    """Per lazy hand: how many of each of the ``nt`` card types it knows,
    its ``ANY``, its ``ANY_NW`` and its ``ANY_OLD`` cards."""
    known, n_any, n_nw, n_old = [], [], [], []
    for h in hands:
        k = [0] * nt
        for t in h:
            if t < ANY:
                k[t] += 1
        known.append(k)
        n_any.append(h.count(ANY))
        n_nw.append(h.count(ANY_NW))
        n_old.append(h.count(ANY_OLD))
    return known, n_any, n_nw, n_old


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
    next one is active. At the reshuffle the pending cards are what is left
    of the first pass's pool: they stay pending, as its cards (``ANY_OLD``;
    module docstring)."""
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
    hands = tuple(tuple(t if t < ANY else ANY_OLD for t in h) for h in hands)
    hands = _with(hands, active, hands[active] + (ANY,) * need)
    return [(hands, tuple(sorted(pool2 + tuple(t + OLD for t in pool))), (), None, True, nxt)]


def _with(hands: tuple, p: int, hand: tuple) -> tuple:
    return hands[:p] + (tuple(sorted(hand)),) + hands[p + 1:]


def concrete_cards(model: Model, states: list[tuple]) -> list[tuple]:
    """The real card states of a lazy plan's: ``states`` alternates the card
    state at a turn's start and after its command (before the draw), the
    last one after the last command. Each pending card is given the type it
    is played as, or when it becomes known (a lone player's reshuffle or
    empty deck) the type it shows then, or at the plan's end one left in its
    pool (the Wild to one that may be it, if the deck has no room); the
    cards a pending card stood for in each state are then its type (module
    docstring)."""
    wild = model.wild_tok
    players = len(states[0][0])
    typ: dict[int, int] = {}
    nw: dict[int, bool] = {}
    old: dict[int, bool] = {}  # a card of the first pass's pool, after the reshuffle (``ANY_OLD``)
    held: list[list[int]] = [[] for _ in range(players)]  # pending cards, oldest first
    seen: list[list[list[tuple[int, bool]]]] = []  # per state, each hand's pending cards (id, ``ANY_OLD``)
    next_id = 0

    def fresh(p: int, k: int, first_pool: bool = False) -> None:
        nonlocal next_id
        for _ in range(k):
            held[p].append(next_id)
            nw[next_id] = False
            old[next_id] = first_pool
            next_id += 1

    def give(p: int, t: int, first_pool: bool) -> None:
        # A card of the first pass's pool to an ``ANY_OLD``; the Wild to a
        # pending card that may be it; another type to an ``ANY_NW`` first
        # (as the plays do); the oldest of those.
        if first_pool:
            mine = [i for i in held[p] if old[i]]
        else:
            new = [i for i in held[p] if not old[i]]
            mine = [i for i in new if not nw[i]] if t == wild else (
                [i for i in new if nw[i]] + [i for i in new if not nw[i]])
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
            by_old = [p for p in range(players) for _ in range(prev[0][p].count(ANY_OLD) - st[0][p].count(ANY_OLD))]
            for p, t in zip(by_old, sorted(t - OLD for t in taken.elements() if t >= OLD), strict=True):
                give(p, t, True)
            who = [p for p in range(players)
                   for _ in range(pending(prev[0][p]) - pending(st[0][p]) - by_old.count(p))]
            if taken[wild]:  # only a single card is ever the Wild: the active player's
                give(prev[5], wild, False)
                who.remove(prev[5])
                taken[wild] = 0
            for p, t in zip(who, sorted(t for t in taken.elements() if t < OLD), strict=True):
                give(p, t, False)
        else:  # a draw: pending cards drawn, or made known
            prev = states[k - 1]
            if st[4] != prev[4] and players > 1:
                # The reshuffle: the pending cards (with those drawn just
                # before it) are the first pass's pool's.
                for p in range(players):
                    for i in held[p]:
                        old[i] = True
                    fresh(p, st[0][p].count(ANY_OLD) - len(held[p]), True)
            elif st[4] != prev[4] or (players == 1 and not st[1] and prev[1]):
                _show_types(st, prev, held, nw, typ, wild)
            for p in range(players):
                fresh(p, pending(st[0][p]) - len(held[p]))
        for p in range(players):
            hand = st[0][p]
            n_nw = hand.count(ANY_NW)
            new = [i for i in held[p] if not old[i]]
            if n_nw == len(new) or not n_nw:
                for i in new:
                    nw[i] = bool(n_nw)
            assert len(held[p]) == pending(hand), "lazy draws: pending cards lost count"
            assert len(held[p]) - len(new) == hand.count(ANY_OLD), "lazy draws: first-pass cards lost count"
            assert sum(nw[i] for i in new) == n_nw, "lazy draws: [D24] marks lost"
        seen.append([[(i, old[i]) for i in h] for h in held])
    # The plan's end: what is left of each pool, the Wild in the deck if it
    # has room, else to a pending card that may be it.
    last = states[-1]
    rest = [t for t in last[1] if t < OLD]
    rest_old = [t - OLD for t in last[1] if t >= OLD]
    if wild in rest:
        rest.remove(wild)
        if len(rest) + 1 == sum(not old[i] for h in held for i in h):
            p = next(p for p in range(players) if any(not nw[i] and not old[i] for i in held[p]))
            give(p, wild, False)
    for p in range(players):
        for i in list(held[p]):
            pool = rest_old if old[i] else rest
            t = min(pool)
            pool.remove(t)
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


def _typed(st: tuple, ids: list[list[tuple[int, bool]]], typ: dict[int, int]) -> tuple:
    """Card state ``st`` with each hand's pending cards ``ids`` (per
    player: id, whether an ``ANY_OLD``) given their types ``typ``, taken
    from the pool."""
    hands, pool, disc, head, pass2, active = st
    deck = list(pool)
    real = []
    for hand, mine in zip(hands, ids, strict=True):
        types = [typ[i] for i, _first in mine]
        for (_i, first), t in zip(mine, types, strict=True):
            deck.remove(t + OLD if first else t)
        real.append(tuple(sorted(hand[: len(hand) - len(mine)] + tuple(types))))
    return (tuple(real), tuple(sorted(deck)), disc, head, pass2, active)
