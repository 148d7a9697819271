"""The cards' side of a turn on model states (RULES.md §4 step 2, §7, §9,
§10, [D11], [D15], [D18], [D22], [D24]): what a player may play, what it
pays for, the draw."""

from __future__ import annotations

from itertools import combinations

from ..rules.geometry import DIRECTIONS, Direction
from .model_state import FLIP, FLY, KIND_DS, KIND_FLY, KIND_SH, PEEK, SHIELDS, SHIFT


class CardRules:
    """The cards' rules of ``Model`` (a base class of it): plays, the
    commands they pay for, the draw."""

    # Set by ``Model.__init__``.
    mode: str
    players: int
    limit: int
    pod_variant: bool
    wild_tok: int
    tok_kind: list[int]
    tok_value: list[int]
    tok_rank: list[int]
    tok_classes: list[tuple[int, int]]
    _draw_cache: dict[tuple, list]

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
        out: list[tuple] = []
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

    def wild_actions(self, every: list[tuple]) -> list[tuple]:
        """The actions worth taking with the Wild or three cards, of ``every``
        action: all but Peek, which a Shields action with the same cards (and
        the same top card and arrow) always matches or beats: shields only help."""
        return [a for a in every if a[0] != PEEK]

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
            pods: list[Direction | None] = list(DIRECTIONS) if pod_free and not top_fly else [None]
            for act in acts:
                if top_fly:
                    arrows: list[Direction | None] = [act[1]] if act[0] in (FLY, PEEK) else list(DIRECTIONS)
                else:
                    arrows = [None]
                for arrow in arrows:
                    for pd in pods:
                        out.append((order, act, arrow, pd, value))
        return out

    def pod_move(self, c: tuple) -> tuple | None:
        """§10: (direction, steps) of the escape pod after command ``c``: the
        top card's arrow if it is a Fly card, else the direction chosen, by the
        top card's value; None without the pod or when it has arrived."""
        if not self.pod_variant:
            return None
        order, _act, arrow, pd, value = c[:5]
        direction = arrow if self.tok_kind[order[-1][0]] == KIND_FLY else pd
        return None if direction is None else (direction, value)

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
