"""The card search's card half (``split``'s module docstring): what the
cards of a card state can pay for, by pay class and pod move, and the card
state after a payment."""

from __future__ import annotations

from ..rules.geometry import DIRECTIONS, EARTH
from . import lazy_draws
from .model import FLY, KIND_FLY, PEEK, SHIELDS, SHIFT, Model, pay_class

# The forms of ``fewest_cards``' payments: final (card state ids), by places
# in the players' hands (``team_payments``), by places in a lone player's
# hand (``solo_payments``), in open mode by the cards played, pending ones
# included (``lazy_draws``).
FINAL, BY_TEAM, BY_PLACES, LAZY = range(4)
# One action of each pay class: the same cards pay for every action of a class.
ONE_OF_EACH = [(k, d) for k in (FLY, PEEK) for d in DIRECTIONS] + [(SHIFT, 0), (SHIELDS, None)]


def hand_payments(model: Model, base, hands: tuple, head, active: int,
                  memo: dict | None = None) -> dict[tuple, list]:
    """(pay class, pod move) -> every (hands after, cards played (sorted),
    heading after) of a command of player ``active`` with that key; ``base``:
    the branch before it (only the pod's position is read). Not for two
    players, whose [D18] wild plays the deck's top card: otherwise a command
    leaves the deck untouched and its cards join the discard pile, so what it
    can do depends on the hands and the heading alone. ``memo``: as
    ``_play_keys``'."""
    # (Lists and dicts, not sets: a heading is an Enum, whose hash, and so
    # a set's order, changes with PYTHONHASHSEED.) Two plays of a hand play
    # two sets of cards, so their entries differ.
    what: dict[tuple, list] = {}
    if memo is None:
        memo = {}
    for played, how, hs, _deck, _disc, _pass2, _resh in model.plays(hands, (), (), False, active):
        cards = tuple(sorted(t for t, _ in played))
        for k, arrow in _play_keys(model, base, played, how, head, memo):
            what.setdefault(k, []).append((hs, cards, arrow))
    return what


def team_payments(model: Model, base, hands: tuple, head, active: int, memo: dict) -> dict[tuple, list]:
    """``hand_payments`` of three or four players' dealt ``hands`` as
    places in them: (pay class, pod move) -> every (places played, ((player,
    index in the hand), ...); per player whose hand it takes from, (player,
    the indices kept); heading after), in the same order. The same for all
    hands of the same classes of cards (``Model.tok_classes``) in the same
    order, player by player, and the same heading and active player: the
    plays read the cards' kinds (Fly, the Wild) and which player holds them,
    never which card it is (``Model.plays``), and their keys the classes
    (``_play_keys``). So the card search works it out once per such hands
    (``fewest_cards``); ``paid_at`` rebuilds a payment."""
    what: dict[tuple, list] = {}
    for played, how, _hs, _deck, _disc, _pass2, _resh in model.plays(hands, (), (), False, active):
        places: list[tuple[int, int]] = []
        for t, p in played:
            i = hands[p].index(t)
            while (p, i) in places:  # (equal cards: the next copy)
                i += 1
            places.append((p, i))
        at = tuple(sorted(places))
        kept = tuple((p, tuple(i for i in range(len(hands[p])) if (p, i) not in at))
                     for p in sorted({p for p, _ in at}))
        for k, arrow in _play_keys(model, base, played, how, head, memo):
            what.setdefault(k, []).append((at, kept, arrow))
    return what


def paid_at(hands: tuple, places: tuple, kept: tuple) -> tuple[tuple, tuple]:
    """The hands after playing the cards at ``places``, the indices ``kept``
    in the hands played from (``team_payments``), and those cards, sorted
    (as ``hand_payments`` has them)."""
    after = list(hands)
    for p, ks in kept:
        h = hands[p]
        after[p] = tuple([h[i] for i in ks])
    return tuple(after), tuple(sorted([hands[p][i] for p, i in places]))


def solo_payments(model: Model, base, hand: tuple, head, memo: dict) -> dict[tuple, list]:
    """``hand_payments`` of a lone player's sorted ``hand`` as positions in
    it: (pay class, pod move) -> every (positions kept, positions played,
    heading after). The same for every hand of the same classes of cards
    (``Model.tok_classes``) in the same order, so the card search works it
    out once per such hand (``fewest_cards``): the cards of a hand's
    positions are its cards in order, so kept and played cards stay
    sorted."""
    what: dict[tuple, list] = {}
    for played, how, _hs, _deck, _disc, _pass2, _resh in model.plays((hand,), (), (), False, 0):
        places: list[int] = []
        for t, _ in played:
            i = hand.index(t)
            while i in places:  # equal cards (open mode): the next copy
                i += 1
            places.append(i)
        pos = tuple(sorted(places))
        kept = tuple(i for i in range(len(hand)) if i not in pos)
        for k, arrow in _play_keys(model, base, played, how, head, memo):
            what.setdefault(k, []).append((kept, pos, arrow))
    return what


def _play_keys(model: Model, base, played: tuple, how: str, head, memo: dict) -> list[tuple]:
    """The (pay class, pod move) and heading after of every command paid
    with the cards ``played`` (``Model.play_commands``), each once, in
    order. ``memo``: a dict kept by the caller for one model and ``base``
    pod position: the answer depends on the classes of the cards
    (``Model.tok_classes``) and, for a single Fly card, the heading before,
    and is worked out once there."""
    kinds, single_fly = _keys_of(model, played, how)
    key = (kinds, how, head if single_fly else None)
    got = memo.get(key)
    if got is None:
        pod_free = base.pod is not None and base.pod != EARTH
        pod_move = model.pod_move if model.pod_variant else _no_pod
        got = memo[key] = list(dict.fromkeys(
            ((pay_class(c[1]), pod_move(c)), c[2])
            for c in model.play_commands(played, how, head, ONE_OF_EACH, pod_free)))
    return got


def _no_pod(_command: tuple) -> None:
    return None  # ``Model.pod_move`` without the pod


def after_payment(cards: tuple, paid: tuple) -> tuple:
    """The card state after a command: ``cards`` before it, ``paid`` one of
    ``hand_payments``' (hands after, cards played, heading after); the cards
    played join the discard pile."""
    hands_after, played, arrow = paid
    _hands, deck, disc, _head, pass2, active = cards
    return (hands_after, deck, tuple(sorted(disc + played)), arrow, pass2, active)



def lazy_payments(model: Model, base, cards: tuple, key: tuple, memo: dict) -> dict[tuple, list]:
    """``hand_payments`` of lazy card state ``cards`` (``lazy_draws.plays``,
    one player; ``team_plays``, three or four): (pay class, pod move) ->
    every (hands after, cards played (types, sorted), pool cards they take,
    heading after). ``key``: what the plays depend on (the hands, what the
    pool offers: ``lazy_draws.available``, whether the deck is empty, the
    active player); the plays, which the heading does not change, are kept
    in ``memo`` under it, with ``_play_keys``' answers."""
    hands, pool, _disc, head, _pass2, active = cards
    plays = memo.get(key)
    if plays is None:
        if model.players == 1:
            plays = [(tuple((t, 0) for t in played), how, (after, played, take))
                     for played, how, after, take in lazy_draws.plays(model, hands[0], pool)]
        else:
            plays = [(played, how, (after, tuple(sorted(t for t, _ in played)), take))
                     for played, how, after, take in lazy_draws.team_plays(model, hands, pool, active)]
        # With ``_play_keys``' own key but for the heading, and whether the
        # heading counts (a single Fly card): read for every heading.
        plays = memo[key] = [(played, how, item, *_keys_of(model, played, how)) for played, how, item in plays]
    # Each (hands after, cards played, pool cards taken, heading after)
    # once: with pending cards, plays by other players or in another order
    # often leave the same (docs/SOLVER.md, "Twenty-sixth session"), and
    # the search would build each card state after them again.
    what: dict[tuple, dict] = {}
    for played, how, item, kinds, single_fly in plays:
        got = memo.get((kinds, how, head if single_fly else None))
        if got is None:
            got = _play_keys(model, base, played, how, head, memo)
        for k, arrow in got:
            what.setdefault(k, {})[item + (arrow,)] = None
    return {k: list(v) for k, v in what.items()}


def _keys_of(model: Model, played: tuple, how: str) -> tuple[tuple, bool]:
    """``_play_keys``' key for the cards ``played`` but for the heading, and
    whether it has the heading (a single Fly card)."""
    kinds = tuple(model.tok_classes[t] for t, _ in played)
    return kinds, how == "single" and kinds[0][0] == KIND_FLY


