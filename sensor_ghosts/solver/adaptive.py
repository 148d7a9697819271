"""Expected mode: a strategy that wins whatever is drawn, adapting to the draws.

A fixed flight plan (``expected.FlightPath``) wins for certain only when one
way through the grid suits every draw. Often the optimum is still 1 because
the player may change course after seeing the cards: ``SureWin`` decides that,
within a number of turns, by an AND-OR search (a proof that some strategy
wins, not a probability):

* a position (grid, cards) is won within ``left`` turns when some action,
  paid for by some command the hand allows, wins at once, or leads, **for
  every draw** that follows, to a re-scan outcome (chosen after that draw,
  before any later one, §15) that is won within ``left - 1`` turns;
* the model is the expected-mode one (``Model(mode='expected')``): every flip
  (Deep Scan or re-scan) is explicit, so a strategy's flips are fixed when it
  makes them, never decided later to suit a draw;
* a turn's two halves are worked out apart, as in ``split``: the grid half
  (bolster, action, pod move, re-scan outcomes: ``Model.grid_moves``) once
  per grid, the card half (what a hand can pay for:
  ``split.hand_payments``; the draw: ``Model.after_draw``) once per card
  state. They meet on the pay class and the pod's move;
* exact pruning: a grid whose admissible turn bound (the relaxed game,
  ``split.GridHalf.turns_needed``) exceeds the turns left cannot be won in
  time, and on the second pass at most the deck's cards + 1 turns are left
  (every turn but the last draws a card; an empty deck then loses, [D15]);
  a draw that runs the second-pass deck dry is a loss; most of a grid's
  turns are Deep Scan flips, and those of a whole row are ruled out at once
  by one relaxed search, as is each shift, before any is worked out, where
  that search shows none can be won in time (``_deep_scans_ruled_out`` says
  why that is exact);
* transpositions: a position won within some number of turns is won within
  more; one not won within some number is not won within fewer.

A proof makes the expected-mode optimum exactly 1. Not finding one within some
number of turns says nothing about the optimum (a longer strategy, or a
probability below 1). Without the §12 second action only (one action a
turn); not for two players (their [D18] wild draws mid-command, and expected
mode refuses them).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import reduce
from operator import or_

from . import split
from .model import (
    DECK,
    FLIP,
    HANDS,
    MASKS,
    PASS2,
    PEND,
    POD,
    ROT,
    SHIFT,
    SHIP,
    Model,
    members,
    xor_set,
)
from .model_state import Root
from .search import Heuristic, most_turns


class _OutOfBudget(Exception):
    pass


# A position's key: its grid's id and its card state's id in one int.
_CARD_BITS = 32
_NEVER = 1 << 31  # (more turns than any position is proven won within)


def _first(pair: tuple) -> int:
    return pair[0]


def _fewest_first(paid: tuple) -> tuple:
    """A payment's (hands after, cards played, heading after) in a fixed
    order, fewest cards first (the cheapest proof is tried first; the order
    reads no hash, so it is the same under every PYTHONHASHSEED)."""
    hands_after, played, arrow = paid
    return len(played), played, hands_after, str(arrow)


class SureWin:
    """The AND-OR search of the module docstring, its proofs kept between
    calls (so a larger number of turns reuses them)."""

    def __init__(
        self,
        model: Model,
        heuristic: Heuristic | None = None,
        *,
        deadline: float | None = None,
        max_nodes: int | None = None,
        progress: Callable[[dict], None] | None = None,
    ):
        assert model.mode == "expected" and model.actions_per_turn == 1 and model.players != 2
        self.m = model
        self.grid = split.GridHalf(model, 0, heuristic)  # its turn bounds only
        self.deadline = deadline
        self.max_nodes = max_nodes
        self.progress = progress
        self.nodes = 0
        self._t0 = time.perf_counter()
        # Grids and card states are big nested tuples, slow to hash, and the
        # search looks each up millions of times: each gets a small id once
        # (the grid half's ``grid_id``, ``_card_id``), and the tables below
        # are keyed by ids.
        self._grids = self.grid.grids
        self._grid_id = self.grid.grid_id
        self._card_ids: dict[tuple, int] = {}
        self._cards: list[tuple] = []
        self._caps: list[int] = []  # per card id: the most turns its deck allows (``_card_id``)
        # position (its grid's id, shifted by ``_CARD_BITS``, and its card
        # state's id) -> the fewest turns it was proven won within / the
        # most it was proven not won within
        self._won: dict[int, int] = {}
        self._lost: dict[int, int] = {}
        self._moves: dict[tuple, dict] = {}
        self._bounds: dict[tuple[int, int], int] = {}
        self._pays: dict[tuple, dict] = {}
        self._draws: dict[int, list[int]] = {}

    def _card_id(self, cards: tuple) -> int:
        got = self._card_ids.get(cards)
        if got is None:
            got = self._card_ids[cards] = len(self._cards)
            self._cards.append(cards)
            self._caps.append(most_turns(cards[PASS2 - HANDS], len(cards[DECK - HANDS])))
        return got

    def within(self, roots: list[Root], turns: int) -> bool | None:
        """Whether from every model state of ``roots`` (e.g. one per opening
        hand) some strategy wins within ``turns`` turns whatever is drawn;
        None when the budget ran out first."""
        relaxed = self.grid.relaxed_bound()
        outer = relaxed.deadline
        if self.deadline is not None:
            # A relaxed search still running then stops with a weaker bound.
            relaxed.deadline = self.deadline if outer is None else min(outer, self.deadline)
        try:
            return all(self._won_within(self._grid_id(split.grid_key(st)), self._card_id(st[HANDS:PEND]), turns)
                       for st in roots)
        except _OutOfBudget:
            return None
        finally:
            relaxed.deadline = outer

    def _turns_needed(self, gid: int, left: int) -> int:
        """``GridHalf.turns_needed`` of grid ``gid``, kept by id here too: its
        own table hashes the grid's tuple on every lookup (setup 33, side by
        side without this one: 17.0 against 18.2 s, the same positions)."""
        key = (gid, left)
        got = self._bounds.get(key)
        if got is None:
            got = self.grid.turns_needed(self._grids[gid], left)
            if not self.grid.relaxed_bound().timed_out:  # (a bound cut by the clock is not kept)
                self._bounds[key] = got
        return got

    def _grid_turns(self, gid: int, pod: tuple | None, left: int) -> dict[tuple, list]:
        """pay class -> the actions of that class from grid ``gid`` (the pod
        moving by ``pod``; ``split.SKIP``: the turn of a player without
        cards) that may still win within ``left`` turns, each as (wins at
        once, the ids of its re-scan outcomes' grids that may), wins first,
        then the most promising (smallest turn bound)."""
        key = (gid, pod, left)
        got = self._moves.get(key)
        if got is None:
            gk = self._grids[gid]
            ranked: dict[tuple, list] = {}
            # Most actions are Deep Scans (every card's flip, every row's
            # shift), and near a deadline none of them can be followed by a
            # win: one relaxed search rules them all out (``scan_within``, as
            # ``split.GridHalf.scan_may_fit``), where each would cost a turn
            # worked out and its re-scan outcomes bounded.
            scans = left > 1 and self.grid.relaxed_bound().scan_within(split.as_state(gk, split.NO_CARDS), left)
            without = self._deep_scans_ruled_out(gk, pod, left - 1) if scans else frozenset()
            # The four Peeks share one grid end (``Model.grid_moves``): it is
            # bounded once.
            shared: dict[int, list] = {}
            for pc, end in self.grid.ends(gk, pod, scans=scans, without=without):
                if self.deadline is not None and time.perf_counter() > self.deadline:
                    raise _OutOfBudget  # (before anything is kept)
                if end is None:
                    continue
                won, data = end
                if won:
                    ranked.setdefault(pc, []).append((-1, True, []))
                    continue
                nexts = shared.get(id(end))
                if nexts is None:
                    nexts = shared[id(end)] = self._may_win_next(end, left)
                if nexts:
                    ranked.setdefault(pc, []).append((nexts[0][0], False, [g2 for _b, g2 in nexts]))
            if self.deadline is not None and time.perf_counter() > self.deadline:
                raise _OutOfBudget  # (its last bounds may be weak ones, cut by the clock)
            got = self._moves[key] = {pc: [(w, n) for _b, w, n in sorted(acts, key=lambda a: a[:2])]
                                      for pc, acts in ranked.items()}
        return got

    def _may_win_next(self, end: tuple, left: int) -> list[tuple[int, int]]:
        """(turn bound, grid id) of the re-scan outcomes of grid end ``end``
        that may still be won within ``left - 1`` turns, the smallest bound
        first."""
        outcomes = [g2 for g2 in split.next_grids(end) if g2 is not None] if left > 1 else []
        if len(outcomes) > 1 and not self._any_may_fit(outcomes, left - 1):
            return []
        bound = self._turns_needed
        nexts = [(b, g2) for g2 in map(self._grid_id, outcomes) if (b := bound(g2, left - 1)) < left]
        nexts.sort(key=_first)
        return nexts

    def _deep_scans_ruled_out(self, gk: tuple, pod: tuple | None, turns: int) -> frozenset[tuple]:
        """Deep Scans from grid ``gk`` (the pod moving by ``pod``) none of
        whose re-scan outcomes can be won within ``turns`` turns in the
        relaxed game, found before their turns are worked out: most of a
        grid's turns are Deep Scans, and most lead nowhere. Every Deep Scan
        ends the turn as a Peek does (the re-scan alone:
        ``Model.wait_end``) but for one row:

        * a flip toggles its card in every pattern of its row
          (``Model.apply_action``; a row's patterns go by card, so the
          re-scan's shift leaves them be), and in the row the re-scan
          flips, the re-scan then leaves that card out
          (``_rescanned_after_flip``). One relaxed search from the Peek's
          outcomes with that row's patterns after each of its flips,
          merged, starts from a superset, row by row, of every such flip's
          every outcome, so it needs no more turns than any (a superset of
          patterns only adds choices, relaxed.py): where it fails, the
          row's flips go;
        * a shift turns its row one place more, so the Peek's outcomes with
          that row turned are its outcomes as the relaxed game sees them
          (the pod, which may ride along, it does not see).

        The Peek's outcomes differ only in the re-scanned row, merged as in
        ``_any_may_fit``. Every row's flips are tried at once first (each
        row's patterns as the Peek leaves them and after its flips, merged),
        then row by row. Where a search here fails, each action's own check
        would too: this changes which relaxed searches are made, not which
        turns are kept."""
        if turns < 1 or pod == split.SKIP:
            return frozenset()
        end = self.grid.wait_end(gk, pod)
        if end is None or end[0]:
            return frozenset()
        outcomes = [g2 for g2 in split.next_grids(end) if g2 is not None]
        first = outcomes[0]
        ahead = first[SHIP][0] + 1  # the re-scanned row, 0-based
        masks = list(first[MASKS])
        if ahead < len(masks):
            masks[ahead] = reduce(or_, [g2[MASKS][ahead] for g2 in outcomes])
        relaxed = self.grid.relaxed_bound()

        def within(rot: tuple, masks_: list) -> bool:
            return relaxed.within(split.as_state((*first[:ROT], rot, tuple(masks_), *first[MASKS + 1:]),
                                                 split.NO_CARDS), turns)

        out: list[tuple] = []
        flipped: dict[int, int] = {}  # row -> its patterns after each of its flips, merged
        for row, cards in enumerate(self.m.flip_idx):
            if not cards:
                continue
            if row == ahead:
                got = reduce(or_, [self._rescanned_after_flip(gk, row, j) for j in cards])
                if got:  # (else no outcome: each flip is dropped on its own)
                    flipped[row] = got
            else:
                flipped[row] = reduce(or_, [xor_set(masks[row], j) for j in cards])
        # First every row's flips at once (every row with its patterns as
        # the Peek leaves them and after its flips, merged: a superset of
        # each flip's outcomes again); most often none can win in time.
        every = [m | flipped.get(row, 0) for row, m in enumerate(masks)]
        if flipped and not within(first[ROT], every):
            return frozenset([(FLIP, (row, j)) for row in flipped for j in self.m.flip_idx[row]]
                             + self._shifts_ruled_out(gk, first, masks, within))
        for row, got in flipped.items():
            merged = list(masks)
            merged[row] = got
            if not within(first[ROT], merged):
                out += [(FLIP, (row, j)) for j in self.m.flip_idx[row]]
        return frozenset(out + self._shifts_ruled_out(gk, first, masks, within))

    def _shifts_ruled_out(self, gk: tuple, first: tuple, masks: list, within: Callable) -> list[tuple]:
        """``_deep_scans_ruled_out``'s shifts: those of grid ``gk`` whose
        row turned once more in the Peek's merged outcome (``first`` with
        ``masks``) cannot be won in time (``within(rotations, masks)``)."""
        out = []
        for row in self.m.shiftable_rows(self.m.branch_of(split.as_state(gk, split.NO_CARDS))):
            rot = list(first[ROT])
            rot[row] = (rot[row] + 1) % 5
            if not within(tuple(rot), masks):
                out.append((SHIFT, row))
        return out

    def _rescanned_after_flip(self, gk: tuple, row: int, j: int) -> int:
        """The pattern set of row ``row`` of grid ``gk`` after a turn that
        flips its card ``j`` by a Deep Scan, that row being the one the
        re-scan then flips: every legal re-scan of the row with that card
        left out ([D23]), as ``Model._grid_end`` makes them."""
        (m,) = members(gk[MASKS][row])  # (expected mode: every flip explicit, one pattern a row)
        m1 = m ^ 1 << j
        return reduce(or_, [1 << (m1 ^ p) for p in self.m.rescan_choices(row, m1, 1 << j)], 0)

    def _any_may_fit(self, outcomes: list[tuple], turns: int) -> bool:
        """False only if no grid of ``outcomes`` (one action's re-scan
        outcomes) can be won within ``turns`` turns in the relaxed game. The
        outcomes of an action differ only in the flip patterns of the row
        the re-scan flipped, two ahead of the ship (``Model._grid_end``
        builds them so; ``test_adaptive.py`` checks it); the relaxed game
        with that row's patterns merged over them has every outcome's
        choices, so its turns are no more than any outcome's (relaxed.py: a
        superset of patterns only adds choices). One relaxed search then
        often rules out all of them, where each outcome's bound
        (``GridHalf.turns_needed``) would take one."""
        first = outcomes[0]
        row = first[SHIP][0] + 1  # two ahead of the ship, 0-based (its row is 1-based; the dock is in row 1)
        masks = list(first[MASKS])
        masks[row] = reduce(or_, [g2[MASKS][row] for g2 in outcomes])
        return self.grid.relaxed_bound().within(
            split.as_state((*first[:MASKS], tuple(masks), *first[MASKS + 1:]), split.NO_CARDS), turns)

    def _commands(self, cid: int, gid: int) -> dict[tuple, list[int]]:
        """(pay class, pod move) -> the ids of the card states after each
        command that pays for it from grid ``gid`` (before the draw), fewest
        cards played first; (SKIP, SKIP) for a player without cards (§9).
        Kept per card state and pod position (the pod's moves depend on
        where it is)."""
        gk = self._grids[gid]
        key = (cid, gk[POD])
        got = self._pays.get(key)
        if got is None:
            cards = self._cards[cid]
            hands, _deck, _disc, head, _pass2, active = cards
            if not hands[active]:
                got = {(split.SKIP, split.SKIP): [cid]}
            else:
                base = self.m.branch_of(split.as_state(gk, split.NO_CARDS))
                got = {
                    k: [self._card_id(split.after_payment(cards, paid)) for paid in sorted(what, key=_fewest_first)]
                    for k, what in split.hand_payments(self.m, base, hands, head, active).items()
                }
            self._pays[key] = got
        return got

    def _drawn(self, cid1: int) -> list[int]:
        got = self._draws.get(cid1)
        if got is None:
            got = self._draws[cid1] = [self._card_id(cards2) for cards2, _drawn in self.m.after_draw(self._cards[cid1])]
        return got

    def _won_within(self, gid: int, cid: int, left: int) -> bool:
        cap = self._caps[cid]
        if cap < left:
            left = cap
        key = gid << _CARD_BITS | cid
        if self._won.get(key, left + 1) <= left:
            return True
        if self._lost.get(key, -1) >= left:
            return False
        self._tick()
        won = left >= 1 and self._turns_needed(gid, left) <= left and self._some_turn_wins(gid, cid, left)
        if won:
            self._won[key] = left
        else:
            self._lost[key] = left
        return won

    def _some_turn_wins(self, gid: int, cid: int, left: int) -> bool:
        turns: dict = {}  # pod move -> ``_grid_turns`` (asked once each)
        # ``_won_within``'s tables are read here before it is called: most
        # answers are there, and a call costs more than the lookups.
        won_at, lost_at, caps = self._won, self._lost, self._caps
        within = left - 1
        for (pc, pod), after in self._commands(cid, gid).items():
            by_class = turns.get(pod)
            if by_class is None:
                by_class = turns[pod] = self._grid_turns(gid, pod, left)
            actions = by_class.get(pc)
            if not actions:
                continue
            if actions[0][0]:
                return True  # a win on this command: no draw (§4)
            for cid1 in after:
                draws = self._drawn(cid1)
                if not draws:
                    continue  # the second-pass deck runs dry: lost
                for _won, nexts in actions:
                    for i, cid2 in enumerate(draws):
                        cap = caps[cid2]
                        then = within if within < cap else cap  # (as ``_won_within`` caps it)
                        for j, g2 in enumerate(nexts):
                            key = g2 << _CARD_BITS | cid2
                            if won_at.get(key, _NEVER) <= then or (
                                    lost_at.get(key, -1) < then and self._won_within(g2, cid2, within)):
                                if j:
                                    # The re-scan outcome that wins after one
                                    # draw often wins after the others too:
                                    # tried first from now on (the order of
                                    # an OR changes its cost, not its answer).
                                    nexts.insert(0, nexts.pop(j))
                                break
                        else:
                            if i:
                                # A draw that beats one action often beats the
                                # next too: it is tried first from now on (the
                                # order of an AND changes its cost, not its answer).
                                draws.insert(0, draws.pop(i))
                            break
                    else:
                        return True
        return False

    def _tick(self) -> None:
        # The clock on every position: one position's grid turns may take
        # many relaxed searches.
        self.nodes += 1
        if self.max_nodes is not None and self.nodes > self.max_nodes:
            raise _OutOfBudget
        now = time.perf_counter()
        if self.deadline is not None and now > self.deadline:
            raise _OutOfBudget
        if self.progress is not None and not self.nodes % 5000:
            self.progress({"nodes": self.nodes, "states": len(self._won) + len(self._lost), "open": 0,
                           "bound": 0, "seconds": now - self._t0})
