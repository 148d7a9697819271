"""Open mode, one player: each card drawn is decided only when it is played.

In open mode the solver chooses the deck's order (§15): the first deck's
order, which deals the opening hand, and the reshuffle ranking, which orders
the second deck. The card search (``split.fewest_cards``) used to branch on
every opening hand and on every draw (each multiset of card types the pile
holds), and most of those card states differ only in cards the plan has not
played yet. Here a card drawn is a *pending* card (``ANY``): some card of the
pile it came from, not yet said which. The card state keeps the pile's
**pool**, the multiset of its cards not decided yet: those still in the deck
and the pending ones in hand; the deck holds ``len(pool)`` less the pending
cards. Playing a pending card says which card of the pool it is.

Why this finds the same optimum (turns, cards, cards left):

* **Every lazy plan is a real one.** Walk the plan and give each pending card
  the type it is played as; those never played take what is left of the pool.
  Deal the first deck (and rank the second) in the order the cards were
  drawn: every draw then draws the cards the plan says (``concrete_cards``
  builds those card states, and the plan is replayed through the rules engine
  like every other).
* **Every real plan is a lazy one.** Its draws are cards of the pool, and a
  pending card may be played as any of them. (The lazy plan plays a card the
  hand knows before a pending card of the same type: the state it leaves
  keeps a pending card, which may still become that type, so it is at least
  as good, and the optimum is found among such plans.)
* **The reshuffle** comes when a draw finds the deck empty ([D15]); the
  pending cards in hand are then the pool itself, and become known cards. So
  are they as soon as the deck holds none (``draw``): pending cards exist only
  while the deck holds at least one card.
* **[D24]** A player holding the Wild may not play three cards as a wild,
  and the three never include it. A lone player holds at most three cards
  (§2): holding the Wild, they hold at most two others, so no three-card play
  is left to forbid; and a three-card play empties the hand, so no pending
  card is held across one and none need be kept from being the Wild later.
  (So ``applies`` asks for a hand limit of three at most.)

Cards left and cards played count as before: a pending card is a card in hand.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations_with_replacement

from .model import KIND_FLY, Model

ANY = 1 << 20  # a pending card: any card of the pool (tokens are types, all smaller)
SINGLE, PAIR, TRIPLE = "single", "pair", "triple"  # as ``Model.plays``' 'how'


def applies(model: Model) -> bool:
    """Open mode with one player, a hand of three at most (the card states
    this module knows; module docstring, [D24])."""
    return model.mode == "open" and model.players == 1 and model.limit <= 3


def pending(hand: tuple) -> int:
    """How many of ``hand``'s cards are pending (they sort last)."""
    return hand.count(ANY)


def root_cards(model: Model, roots: list[tuple[tuple, object]]) -> tuple:
    """The lazy card state (hands, pool, discard pile, heading, second pass,
    active) of the search's roots: for a fresh setup (``Model.open_roots``,
    one root per opening hand) the opening hand pending, its pool the first
    deck; else the one root's cards, its deck the pool."""
    from .model import HANDS, PEND

    hands, deck, disc, head, pass2, active = roots[0][0][HANDS:PEND]
    if len(roots) > 1 or (roots[0][1] is not None and roots[0][1][0] == "deal"):
        pool = tuple(sorted(hands[0] + deck))
        return _settled(((ANY,) * len(hands[0]),), pool, disc, head, pass2, active)
    return hands, deck, disc, head, pass2, active


def _settled(hands: tuple, pool: tuple, disc: tuple, head, pass2: bool, active: int) -> tuple:
    """The card state with its pending cards made known when the deck holds
    none (they are the pool then)."""
    hand = hands[0]
    n = pending(hand)
    if n and len(pool) == n:
        return (tuple(sorted(hand[: len(hand) - n] + pool)),), (), disc, head, pass2, active
    return hands, pool, disc, head, pass2, active


def deck_size(cards: tuple) -> int:
    """The cards in the deck of a lazy card state."""
    return len(cards[1]) - pending(cards[0][0])


def plays(model: Model, hand: tuple, pool: tuple) -> list[tuple]:
    """Every card set a lone player may play from lazy ``hand`` (§4 step 2,
    [D24]): (cards played (sorted types), how, hand after, pool cards they
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
        out.append((cards, how, rest + (ANY,) * (n - len(take)), tuple(take)))

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


def after_play(cards: tuple, hand_after: tuple, played: tuple, take: tuple, arrow) -> tuple:
    """The lazy card state after a command: ``cards`` before it, the hand
    it leaves, the cards played (joining the discard pile), the pool cards
    they took, the heading after."""
    _hands, pool, disc, _head, pass2, active = cards
    if take:
        rest = list(pool)
        for t in take:
            rest.remove(t)
        pool = tuple(rest)
    return (hand_after,), pool, tuple(sorted(disc + played)), arrow, pass2, active


def draw(model: Model, cards: tuple) -> list[tuple]:
    """The lazy card state after the draw that ends a turn (§7): pending
    cards up to the hand limit; [D15] when the deck is empty the discard pile
    and the Wild become the pool. Empty when the deck runs out on the second
    pass (a loss), as ``Model.after_draw``."""
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


def concrete_cards(model: Model, states: list[tuple]) -> list[tuple]:
    """The real card states of a lazy plan's: ``states`` alternates the card
    state at a turn's start and after its command (before the draw), the
    last one after the last command. Each pending card is given the type it
    is played as, or when the pool settles (or the plan ends) one left in the
    pool; the cards a pending card stood for in each state are then its type
    (module docstring)."""
    typ: dict[int, int] = {}
    held: list[int] = []  # the pending cards in hand, oldest first
    seen: list[list[int]] = []  # per state, the pending cards it holds
    next_id = 0

    def settle(pool: tuple) -> None:
        # Pending cards take what is left of the pool, in order (what they
        # do not take stays in the deck, or was drawn and is known).
        for i, t in zip(held, sorted(pool), strict=False):
            typ[i] = t
        held.clear()

    for k, st in enumerate(states):
        if k % 2:  # a command: pending cards take the pool cards it took
            for t in sorted((Counter(states[k - 1][1]) - Counter(st[1])).elements()):
                typ[held.pop(0)] = t
        elif k:  # a draw: pending cards drawn, the pool settled or reshuffled
            prev = states[k - 1]
            if st[4] != prev[4] or (not st[1] and prev[1]):
                settle(prev[1])  # [D15] a reshuffle, or the deck drawn empty
            while len(held) < pending(st[0][0]):
                held.append(next_id)
                next_id += 1
        else:
            held.extend(range(pending(st[0][0])))
            next_id = len(held)
        assert len(held) == pending(st[0][0]), "lazy draws: pending cards lost count"
        seen.append(list(held))
    settle(states[-1][1])
    out = []
    for st, ids in zip(states, seen, strict=True):
        hands, pool, disc, head, pass2, active = st
        hand = hands[0]
        mine = [typ[i] for i in ids]
        deck = list(pool)
        for t in mine:
            deck.remove(t)
        out.append(((tuple(sorted(hand[: len(hand) - len(ids)] + tuple(mine))),), tuple(sorted(deck)),
                    disc, head, pass2, active))
    return out
