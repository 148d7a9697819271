"""Expected mode (RULES.md §15): draws are random; maximise the win probability.

Three methods, each sound on its own, tried in this order:

* **A fixed flight plan** (``FlightPath``, the lower bound). Fewest-turn
  plans (``search``, ``split``: open mode's, and deal mode's for a few seeded
  deals) give flight plans: per turn the bolster, the action and its
  arguments, the re-scan flips and the escape pod's move. Following one
  whatever is drawn, and paying each turn with the cards that maximise the
  chance to finish, is a strategy of expected mode: its flips are fixed
  before any draw is seen (§15), and without the §12 second action a turn's
  effect on the grid depends on the cards only through the pod's move, which
  is part of what the cards must pay for (``split.hand_payments``). Its win
  probability, worked out exactly over every draw (a recursion over card
  states), is a lower bound on the optimum; when the plan wins whatever is
  drawn (decided without rounding) the optimum is 1. From a fresh setup
  each opening hand takes the plan best for it (the players see their
  hands before they set out). With the escape pod the plan fixes the
  ship's side of each turn only, and the pod's move is chosen with the
  turn's cards (``pod_track``; the plan's own moves where that runs out of
  time). When open mode proves that no deck order wins, the optimum is 0:
  a strategy's winning run is an open-mode plan.
* **A strategy that adapts to the draws** (``adaptive.SureWin``): an AND-OR
  search for one that wins whatever is drawn, within the fewest turns open
  mode needs, then one or two more. When it finds one the optimum is 1.
  (Not from a fresh setup with three or four players or the escape pod,
  where it has settled none: the budget goes to more flight plans.)
* **Expectimax** over model states with explicit flips
  (``Model(mode='expected')``): a turn is a decision (bolster, command(s)),
  then the draw (chance: the deck is a uniformly random order of its cards,
  [D22], so each draw of k cards is a multivariate hypergeometric outcome over
  card types, a reshuffle starting a new pool), then the re-scan decision,
  taken after that draw but before any later one. Values are memoised per
  state (transpositions). Exactness: every decision and every chance outcome
  is enumerated; a state whose admissible lower bound on the turns left is
  infinite (no virus reachable) or, on the second pass, exceeds the draws
  left plus one (every turn but the last draws a card, [D15]) is worth 0.
  Under a budget the recursion
  returns an interval: unexplored states count as [0, 1] (the relaxation
  behind the upper bound); the maximum and the expectation of intervals are
  intervals, so the result brackets the true value.

The answer is exact when a flight plan or an adaptive strategy wins for
certain, or the expectimax finishes; else it is the interval [the better
lower bound of the flight plans and the expectimax, the expectimax's upper
bound], and ``SolveResult.method`` says where each end comes from. The
budget: the open-mode flight plans up to half of it, the adaptive search to
70 %, deal mode's flight plans to 85 %, the expectimax the rest.

Not covered: the two-player three-card wild ([D18]) uses the deck's top card,
a chance event inside a decision; this mode refuses two-player games.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from math import comb

from ..rules.geometry import DIRECTIONS, DOCK, EARTH, Pos
from ..rules.state import GameState, initial_state, random_deal
from . import split
from .adaptive import SureWin
from .model import (
    DECK,
    DISC,
    HANDS,
    KIND_DS,
    KIND_SH,
    PASS2,
    PEND,
    SCAN,
    SHIELDS,
    Branch,
    Model,
    pay_class,
)
from .plan import build_plan, dealt_of
from .plan_search import MAX_STATES, search_plan
from .pod_track import WAITING, WON, PodTrack
from .result import SolveResult, SolverInputError
from .search import INF, Heuristic, astar


def _draw_probability(pool: tuple, drawn: tuple, disc_after_play: tuple, wild: int) -> float:
    p = 1.0
    cur = Counter(pool)
    seg: list[int] = []
    segments = []
    for t in drawn:
        if t == "R":
            segments.append((cur, seg))
            cur = Counter(disc_after_play + (wild,))
            seg = []
        else:
            seg.append(t)
    segments.append((cur, seg))
    for pool_c, seg in segments:
        if not seg:
            continue
        n = sum(pool_c.values())
        k = len(seg)
        num = 1
        for t, kt in Counter(seg).items():
            num *= comb(pool_c[t], kt)
        p *= num / comb(n, k)
    return p


# A turn after the plan's last, spent waiting at Earth for the pod
# (``FlightPath.pods``; its pay classes: ``pod_track.WAITING``).
_WAIT = ("wait", None)


# With the escape pod: how many turns a flight plan may wait at Earth for the
# pod after its last (``FlightPath``'s ``waiting``; docs/SOLVER.md, "Expected
# mode"). (Of the commands paying for a turn one is weighed, ``_options``.)
POD_WAITING = 1
# How far below the best command so far another must be shown to stay, by
# its draws worked out and the rest counted as wins, before its other draws
# are left out (``FlightPath._after``): far above the sums' rounding, so the
# turn's value is the same to the last bit.
CUT_MARGIN = 1e-9


def _with_pod(key: tuple, pod: Pos | None) -> tuple:
    """A ``FlightPath`` memo key with the pod's place (``pods``; None: no
    pod in the state, the key as it is)."""
    return key if pod is None else (key, pod)


class OutOfTime(Exception):
    """A ``FlightPath`` worked past its deadline."""


class FlightPath:
    """A fixed flight plan followed whatever is drawn (module docstring).

    ``needs``: per turn, what its cards must pay for, ``(pay class, pod
    move)`` (``split.SKIP`` for a turn whose active player holds no card,
    §9), and the branch before it (only the pod's position is read).
    ``win(i, cards)`` is the chance to win from turn ``i`` (0-based) with card
    state ``cards`` (hands, deck, disc, heading, pass2, active), the cards
    chosen to maximise it; ``certain`` whether some choice of cards wins
    whatever is drawn (decided without rounding); ``choice`` the cards after
    the best command.

    ``pods``: with the escape pod, the plan's ``PodTrack``. Then the pod's
    move is not the plan's but whatever the cards paying for the turn give
    (§10), chosen with them; the pod's place is part of the state (the
    ``pod`` arguments), and the game is won when the ship and the pod are
    both at Earth, up to ``waiting`` turns after the plan's last
    (``pod_track.WAITING``). Of the commands that pay for a turn, only the
    best by a rule of thumb is weighed (``_options``): a strategy still, so
    still a lower bound, and worked out exactly; weighing them all
    multiplies the card states by the pod's places, too slow for seconds
    (docs/SOLVER-HISTORY.md has two and three weighed)."""

    def __init__(self, model: Model, needs: list[tuple[tuple, Branch]], deadline: float | None = None,
                 pods: PodTrack | None = None, waiting: int = 0):
        assert model.mode == "expected"
        self.m = model
        self.pods = pods
        if pods is not None:
            needs = needs + [(_WAIT, needs[-1][1])] * waiting
            # What ``hand_payments`` reads of the branch: whether the pod
            # is free to move (by that, keyed) or has arrived.
            free, arrived = needs[0][1].copy(), needs[0][1].copy()
            free.pod, arrived.pod = DOCK, EARTH
            self._bases = {True: free, False: arrived}
            # Every move a top card could give the pod (``PodTrack.turns_to_arrive``).
            self._moves = tuple((d, v) for d in DIRECTIONS for v in sorted(set(model.tok_value)))
        self.needs = needs
        self.last = len(needs) - 1
        self.deadline = deadline  # past it ``OutOfTime`` is raised
        # (turn, cards) (``_key``), with the pod's place (``pods``) ->
        # (certain, probability)
        self._memo: dict[tuple, tuple[bool, float]] = {}
        self._sure: dict[tuple, bool] = {}  # ``certain`` alone
        self._calls = 0
        # (hands, heading, active player, pod) -> ``split.hand_payments``'
        # answer for every pay class: a plan's turns ask for a few classes
        # each, of the same hands. (With ``pods``, whether the pod is free
        # stands for the pod.)
        self._pays: dict[tuple, dict] = {}
        self._play_keys: dict = {}  # ``hand_payments``' memo (one per model and pod position)
        self._draws: dict[tuple, list] = {}
        self._paying: dict[tuple, list] = {}  # with ``pods``: (turn, cards, pod free) -> ``_by_move``
        self._pod_ranks: dict[tuple, dict] = {}  # with ``pods``: (turn, pod) -> move -> ``_rank``
        self._chances: dict[tuple, float] = {}  # (deck, drawn, discard if reshuffled) -> chance
        # Per turn, the headings alike for it (``_canonical``): (the one
        # direction a single Fly card may take, a heading that forbids it), or
        # None when the heading carries on past the turn (a player without
        # cards) or a waiting turn's Fly may take any direction.
        self._alike: list[tuple | None] = []
        for need, _base in needs:
            if need in (split.SKIP, _WAIT):
                self._alike.append(None)
            else:
                d = need[0][1]  # the Fly's or Peek's direction; None: another action
                self._alike.append((d, next((e for e in DIRECTIONS if e != d), None)))
        # Per turn, whether a Deep Scan card and a Shields card play alike from
        # it on (``_merged``): no turn left needs either action, and without
        # the pod their movement values do not count.
        scan, shields = ([t for t, k in enumerate(model.tok_kind) if k == kind] for kind in (KIND_DS, KIND_SH))
        self._junk = (scan[0], shields[0]) if len(scan) == len(shields) == 1 and not model.pod_variant else None
        self._swapped: dict[tuple, tuple] = {}
        self._merge = [False] * len(needs)
        if self._junk is not None:
            for i in range(len(needs) - 1, -1, -1):
                need = needs[i][0]
                if need != split.SKIP and need[0] in (SCAN, (SHIELDS, None)):
                    break
                self._merge[i] = True

    def win(self, i: int, cards: tuple, pod: Pos | None = None) -> float:
        return self.value(i, cards, pod)[1]

    def value(self, i: int, cards: tuple, pod: Pos | None = None) -> tuple[bool, float]:
        """(``certain``, ``win``) at once (``_solve`` makes a certain win
        1.0). ``pod``: its place before turn ``i`` (``pods``; at turn 0 the
        start's by default)."""
        cards, pod = self._canonical(i, cards), self._pod(pod)
        return self._solve(i, cards, pod, self._key(i, cards, pod))

    def _pod(self, pod: Pos | None) -> Pos | None:
        return self.needs[0][1].pod if pod is None and self.pods is not None else pod

    def _key(self, i: int, cards: tuple, pod: Pos | None) -> tuple:
        """The memo's key of turn ``i``, card state ``cards`` (``_canonical``
        already) and the pod's place (``pods``; else None): with the card
        kinds that play alike from turn ``i`` on as one (``_merged``)."""
        return _with_pod((i, self._merged(cards)) if self._merge[i] else (i, cards), pod)

    def _merged(self, cards: tuple) -> tuple:
        """``cards`` with every Deep Scan card as a Shields card. When no turn
        left needs a Deep Scan or Shields (and the pod, whose moves read a
        card's value, is not played), either card pays only as one of a
        three-card wild ([D24]) and leaves no heading: the two play alike,
        and draws of them are as likely together as a draw of either."""
        hands, deck, disc, head, pass2, active = cards
        swap = self._swap
        return (tuple(swap(h) for h in hands), swap(deck), swap(disc), head, pass2, active)

    def _swap(self, pile: tuple) -> tuple:
        """``_merged`` of one hand or pile (sorted), kept."""
        got = self._swapped.get(pile)
        if got is None:
            assert self._junk is not None
            scan, shields = self._junk
            got = tuple(sorted(shields if t == scan else t for t in pile)) if scan in pile else pile
            self._swapped[pile] = got
        return got

    def _canonical(self, i: int, cards: tuple) -> tuple:
        """``cards`` with its heading as another that plays alike on turn
        ``i``. Every command sets the heading afresh, and the one before
        matters only to a single Fly card, which may fly or peek only its
        way ([D11]). So for a turn of Fly or Peek in direction d, "none" and
        d allow the same payments, and every other heading forbids the same
        one; for another action the heading changes nothing. Four players'
        plans meet many states that differ only there."""
        alike = self._alike[i]
        head = cards[3]
        if alike is None or head is None:
            return cards
        d, other = alike
        to = None if d is None or head == d else other
        return cards if head == to else (*cards[:3], to, *cards[4:])

    def certain(self, i: int, cards: tuple, pod: Pos | None = None) -> bool:
        """Decided on its own, without the probabilities: an option fails at
        its first draw that does not win for certain."""
        cards, pod = self._canonical(i, cards), self._pod(pod)
        return self._certain(i, cards, pod, self._key(i, cards, pod))

    def _certain(self, i: int, cards: tuple, pod: Pos | None, key: tuple) -> bool:
        got = self._sure.get(key)
        if got is None:
            full = self._memo.get(key)
            if full is not None:
                return full[0]
            self._tick()
            got = False
            for cards1, pod1 in self._options(i, cards, pod):
                if self._won(i, pod1):
                    got = True
                    break
                if i == self.last:
                    continue
                outcomes = self._drawn(i, cards1)
                if outcomes and all(self._certain(i + 1, c2, pod1, _with_pod(k2, pod1))
                                    for _pr, c2, k2 in outcomes):
                    got = True
                    break
            self._sure[key] = got
        return got

    def _won(self, i: int, pod1: Pos | str | None) -> bool:
        """Whether the command of turn ``i`` that leaves the pod at ``pod1``
        wins: the plan's last turn without ``pods``, else when the pod and the
        ship are both at Earth (``PodTrack.after``)."""
        return i == self.last if self.pods is None else pod1 == WON

    def _tick(self) -> None:
        self._calls += 1
        if self.deadline is not None and not self._calls & 255 and time.perf_counter() > self.deadline:
            raise OutOfTime

    def choice(self, i: int, cards: tuple, pod: Pos | None = None) -> tuple | None:
        """(The cards after turn ``i``'s best command, before the draw, and the
        pod's place after it: ``pods``' or None); None when nothing pays for
        the turn. (Worked out here from the values of the options: the memo
        keeps a state alike to ``cards``, whose choice may play other
        cards.)"""
        cards, pod = self._canonical(i, cards), self._pod(pod)
        best: tuple = (False, -1.0)
        chosen = None
        for cards1, pod1 in self._options(i, cards, pod):
            if self._won(i, pod1):
                return cards1, pod1
            got = (False, 0.0) if i == self.last else self._after(i, cards1, pod1)
            if got > best:
                best, chosen = got, (cards1, pod1)
        return chosen

    def _after(self, i: int, cards1: tuple, pod1: Pos | None, beat: float = 0.0) -> tuple[bool, float]:
        """(certain, probability) after turn ``i``'s command left card state
        ``cards1`` and the pod at ``pod1``, over its draws.

        ``beat``: the best another command of the turn has. Once the draws
        worked out so far, with the rest counted as wins, stay below it
        (``CUT_MARGIN`` kept for rounding), this command cannot be the
        turn's best, and that bound is returned without the other draws.
        The turn's value, the best of its commands, is the same (``_solve``
        takes a command only when it is strictly better)."""
        drawn = self._drawn(i, cards1)
        outcomes = []
        if beat > CUT_MARGIN:
            rest = sum(pr for pr, _c2, _k2 in drawn)
            acc = 0.0
            for pr, c2, k2 in drawn:
                got = self._solve(i + 1, c2, pod1, _with_pod(k2, pod1))
                outcomes.append((pr, got))
                acc += pr * got[1]
                rest -= pr
                if acc + rest < beat - CUT_MARGIN:
                    return False, acc + max(rest, 0.0)
        else:
            outcomes = [(pr, self._solve(i + 1, c2, pod1, _with_pod(k2, pod1))) for pr, c2, k2 in drawn]
        sure = bool(outcomes) and all(got[0] for _pr, got in outcomes)
        return sure, 1.0 if sure else sum(pr * got[1] for pr, got in outcomes)

    def _options(self, i: int, cards: tuple, pod: Pos | None) -> list[tuple]:
        """(card state, the pod's place) after each command paying for turn
        ``i`` (the pod's: ``pods``' answer, None without them)."""
        hands, _deck, _disc, head, _pass2, active = cards
        need, base = self.needs[i]
        track = self.pods
        if not hands[active]:
            if need == split.SKIP or need == _WAIT:
                return [(cards, None if track is None else track.after(i, pod, None))]
            return []
        if need == split.SKIP:
            return []  # a player holding a card must play [D10]
        if track is None:
            what = self._payments(hands, head, active, base.pod, base)
            return [(split.after_payment(cards, paid), None) for paid in what.get(need, ())]
        free = pod != EARTH
        by_move = self._paying.get((i, cards, free))
        if by_move is None:
            by_move = self._paying[(i, cards, free)] = self._by_move(i, cards, free)
        # The rule of thumb: the pod the fewest turns from Earth, then the
        # most cards kept, then the first paid. (A pod destroyed, or too far
        # behind to arrive whatever is drawn, is no option.)
        ranks = self._pod_ranks.setdefault((i, pod), {})
        best: tuple | None = None
        chosen = None
        for move, first, kept, top in by_move:
            got_rank = ranks.get(move)
            if got_rank is None:
                got_rank = ranks[move] = self._rank(i, pod, move)
            pod1, rank = got_rank
            if rank is None:
                continue
            if pod1 == WON:
                # Nothing does better: the first command paid that wins.
                if best is None or best[0] != WON or first[0] < best[1]:
                    best, chosen = (WON, first[0]), (first[1], pod1)
                continue
            if best is not None and best[0] == WON:
                continue
            got = (rank, kept, -top[0])
            if best is None or got > best:
                best, chosen = got, (top[1], pod1)
        return [] if chosen is None else [chosen]

    def _by_move(self, i: int, cards: tuple, free: bool) -> list[tuple]:
        """The commands paying for turn ``i`` from ``cards`` (the pod free to
        move or not), by the pod's move they give: (move, (order, cards
        after) of the first paid, cards kept at most, (order, cards after)
        of the first paid that keeps that many), the order counting every
        payment (``split.hand_payments``' order)."""
        need = self.needs[i][0]
        hands, _deck, _disc, head, _pass2, active = cards
        what = self._payments(hands, head, active, free, self._bases[free])
        groups: dict[tuple | None, list] = {}
        n = 0
        for (pc, move), paid in what.items():
            if not (pc in WAITING if need == _WAIT else pc == need[0]):
                continue
            for p in paid:
                cards1 = split.after_payment(cards, p)
                kept = len(cards1[0][active])
                g = groups.get(move)
                if g is None:
                    groups[move] = [(n, cards1), kept, (n, cards1)]
                elif kept > g[1]:
                    g[1], g[2] = kept, (n, cards1)
                n += 1
        return [(move, g[0], g[1], g[2]) for move, g in groups.items()]

    def _rank(self, i: int, pod: Pos | None, move: tuple | None) -> tuple:
        """(The pod's place after turn ``i`` from ``pod`` when the top card
        moves it by ``move``, its rank: ``WON`` when the turn wins, else minus
        the turns it still needs to arrive; None when it is no option.)"""
        track, last = self.pods, self.last
        assert track is not None
        pod1 = track.after(i, pod, move)
        if pod1 == WON:
            return pod1, WON
        if isinstance(pod1, tuple) and i < last:
            behind = track.turns_to_arrive(i + 1, pod1, last, self._moves)
            if behind <= last - i:
                return pod1, -behind
        return pod1, None

    def _payments(self, hands: tuple, head, active: int, pod, base: Branch) -> dict:
        """``split.hand_payments``' answer for every pay class, kept: ``pod``
        stands for what it reads of ``base`` (the pod's place, or with
        ``pods`` whether it is free to move)."""
        key = (hands, head, active, pod)
        what = self._pays.get(key)
        if what is None:
            memo = self._play_keys.setdefault(pod, {})
            what = self._pays[key] = split.hand_payments(self.m, base, hands, head, active, memo)
        return what

    def _drawn(self, i: int, cards1: tuple) -> list[tuple[float, tuple, tuple]]:
        """(probability, card state, its memo key without the pod) for each
        outcome of the draw (§7) after turn ``i``'s command, the next player
        active (``_canonical`` for turn ``i + 1``). No outcome at all when the
        deck runs out on the second pass ([D15], a loss): the deck's size,
        not the cards drawn, decides that."""
        got = self._draws.get((i, cards1))
        if got is None:
            _hands, deck, disc = cards1[:3]
            got = []
            for cards2, drawn in self.m.after_draw(cards1):
                cards2 = self._canonical(i + 1, cards2)
                got.append((self._chance(deck, drawn, disc), cards2, self._key(i + 1, cards2, None)))
            self._draws[(i, cards1)] = got
        return got

    def _chance(self, deck: tuple, drawn: tuple, disc: tuple) -> float:
        """``_draw_probability``, kept: many card states share a deck (the
        discard pile matters only when the draw reshuffles it)."""
        key = (deck, drawn, disc if "R" in drawn else None)
        got = self._chances.get(key)
        if got is None:
            got = self._chances[key] = _draw_probability(deck, drawn, disc, self.m.wild_tok)
        return got

    def _solve(self, i: int, cards: tuple, pod: Pos | None, key: tuple) -> tuple[bool, float]:
        """(certain, probability) from turn ``i``, card state ``cards``
        (``_canonical``) and the pod at ``pod`` (``pods``), whose memo key
        is ``key``."""
        got = self._memo.get(key)
        if got is not None:
            return got
        self._tick()
        best = (False, 0.0)
        for cards1, pod1 in self._options(i, cards, pod):
            if self._won(i, pod1):
                best = (True, 1.0)  # the win: no draw (§4)
                break
            if i == self.last:
                continue
            got = self._after(i, cards1, pod1, best[1])
            if got > best:
                best = got
                if got[0]:
                    break
        self._memo[key] = best
        return best


def flight_needs(model: Model, path: list) -> list[tuple[tuple, Branch]]:
    """What each turn of a plan's path (as ``search.astar`` returns it, in a
    lazy model) asks of the cards: ``FlightPath.needs``."""
    out: list[tuple[tuple, Branch]] = []
    for i in range(1, len(path)):
        cmd = path[i][1][1]
        base = model.branch_of(path[i - 1][0])
        if cmd is None:
            out.append((split.SKIP, base))
            continue
        order, act = cmd[0], cmd[1]
        value = model.tok_value[order[-1][0]]
        out.append(((pay_class(act), model.pod_move((order, act, cmd[2], cmd[3], value))), base))
    return out


def _fewest_turn_plans(inst: GameState, mode: str, fresh: bool, deadline: float | None,
                       max_nodes: int | None):
    """The fewest-turn search's status in ``mode`` from ``inst`` and its
    plans, as (model, path): the first one found, then the one with the
    fewest cards (fewer cards leave more to spare for bad draws), as far as
    the budget goes (a generator: the caller may stop early)."""
    model = Model(inst, mode)
    roots = model.search_roots(fresh)
    if not split.applies(model, roots):
        yield "unknown", None
        return
    h = Heuristic(model)
    timeout = None if deadline is None else max(0.0, deadline - time.perf_counter())
    # With more players or the pod the joint A* may find no plan within the
    # budget where the search ``solve`` makes (the card search first) finds
    # one at once: there the A* has half the budget, and the card search
    # the rest. Where the A* finds a plan, its plan stands: which of the
    # two plans is worth more moves from setup to setup (docs/SOLVER.md,
    # "Expected mode", twenty-second session).
    more = model.players > 1 or model.pod_variant
    first = astar(model, roots, objective="turns-only", heuristic=h,
                  timeout=timeout / 2 if more and timeout is not None else timeout,
                  max_nodes=max_nodes // 2 if more and max_nodes is not None else max_nodes)
    if more:
        if first.status == "unknown" and first.stopped in ("time limit", "node limit"):
            left = None if deadline is None else max(0.0, deadline - time.perf_counter())
            rest = None if max_nodes is None else max_nodes - first.nodes
            first = search_plan(model, roots, "turns-only", time.perf_counter(), left, rest, MAX_STATES, None, None)
        if deadline is not None and h.relaxed is not None:
            h.relaxed.deadline = deadline  # (the A* set its own: past it a relaxed search gives up)
    if first.status != "solved":
        yield first.status, None
        return
    assert first.value is not None
    yield "solved", (model, first.path)
    fewest = split.fewest_cards(model, roots, first.value[0], deadline=deadline, heuristic=h, max_nodes=max_nodes)
    if fewest.status == "solved":
        yield "solved", (model, fewest.path)


@dataclass
class PathBound:
    """What fixed flight plans tell of the win probability (``path_lower_bound``)."""

    # The win probability with the best plan for each opening hand (a lower
    # bound on the optimum: the players see their hands before they choose)
    probability: float = 0.0
    certain: bool = False  # for each hand some plan wins whatever is drawn: the optimum is 1
    turns: int | None = None  # the best single plan's turns; None: no plan found
    impossible: bool = False  # open mode proved no deck order wins: the optimum is 0
    flight: list[str] | None = None  # that plan's turns without their cards (``flight_text``)
    single: float = 0.0  # that plan's probability, followed from every hand
    single_certain: bool = False  # that plan wins whatever is drawn, from every hand
    pod_chosen: bool = False  # the escape pod's moves chosen as the cards come (``FlightPath.pods``)
    # opening card state -> (certain, probability) of its best plan so far
    per_hand: dict = field(default_factory=dict)

    def method(self) -> str:
        """How the probability was found, for ``SolveResult.method``."""
        if self.turns is None:
            return "no flight plan found"
        chosen = "its cards and the escape pod's moves" if self.pod_chosen else "its cards"
        if self.probability > self.single + 1e-12:
            return f"the best fixed flight plan for each opening hand, {chosen} chosen as they come"
        return f"a fixed {self.turns}-turn flight plan, {chosen} chosen as they come"


def flight_text(model: Model, path: list, mode: str, pod_moves: bool = True) -> list[str]:
    """A flight plan as text, one line per turn: the bolster, the action, the
    pod's move (direction and steps, §10; with ``pod_moves`` False, "by the
    top card": chosen as the cards come) and the re-scan, the cards left out (they
    are whatever pays for the action when the turn comes). The plan is
    replayed through the rules engine first, with the cards of the deal it
    was found for (``Plan.replay``)."""
    plan = build_plan(model, path, mode, dealt_of(path))
    plan.replay()  # raises PlanReplayError on a solver bug
    lines = []
    for i, (turn, (need, _base)) in enumerate(zip(plan.turns, flight_needs(model, path), strict=True)):
        parts = [f"bolster {turn.bolster}"] if turn.bolster else []
        if turn.command is None:
            parts.append("skip")
        else:
            pod = need[1]
            if not pod_moves and model.pod_variant:
                parts.append(f"{turn.command.action} (pod: by the top card)")
            else:
                parts.append(str(turn.command.action) + (f" (pod {pod[0].letter} {pod[1]})" if pod else ""))
        if turn.rescan:
            parts.append("rescan " + ",".join(str(c) for c in sorted(turn.rescan)))
        lines.append(f"{i + 1:2d}. " + "; ".join(parts))
    return lines


def path_lower_bound(
    start: GameState, fresh: bool, deadline: float | None = None, max_nodes: int | None = None,
    deals: int = 4, open_plans: bool = True, prior: PathBound | None = None,
) -> PathBound:
    """The best win probability of fewest-turn flight plans followed whatever
    is drawn (``FlightPath``; from a fresh setup averaged over the opening
    hands, each hand with the plan best for it: the players see their hands
    before they set out, so choosing the plan by the hand is a strategy of
    expected mode too). The plans: ``prior``'s, open mode's (unless not
    ``open_plans``), then, from a fresh setup, deal mode's for ``deals``
    seeded random deals (other ways through the grid), while the budget
    lasts. An open mode proven unsolvable makes the optimum 0: every winning
    run of a strategy is an open-mode plan (the deck order it met, its
    flips)."""
    model_e = Model(start, "expected")
    starts = sorted(((pr, st[HANDS:PEND]) for pr, st in opening(model_e, fresh)), key=lambda x: -x[0])
    instances = [(start, "open")] if open_plans else []
    if fresh:
        instances += [(initial_state(start.setup, random_deal(start.setup, random.Random(k))), "deal")
                      for k in range(deals)]
    per_hand: dict[tuple, tuple[bool, float]] = dict(prior.per_hand) if prior is not None else {}
    best = PathBound() if prior is None else replace(prior, per_hand=per_hand)
    source = None

    def every_hand_certain() -> bool:
        return all(per_hand.get(cards, (False,))[0] for _pr, cards in starts)

    def done() -> PathBound:
        if source is not None:
            best.flight = flight_text(*source)  # the best single plan's only
        per_hand_sum = sum(pr * per_hand.get(cards, (False, 0.0))[1] for pr, cards in starts)
        best.probability = max(best.single, per_hand_sum)
        best.certain = every_hand_certain()
        return best

    def record(values: dict, model: Model, path: list, mode: str, pods: tuple, earlier: dict | None = None) -> None:
        """A plan's value per hand (``_hand_values``; ``earlier``: the same
        plan's, kept where better) into ``per_hand`` and ``best``."""
        nonlocal source
        if earlier is not None:
            merged = dict(earlier)
            for cards, got in values.items():
                merged[cards] = max(got, merged.get(cards, got))
            values = merged
        for cards, got in values.items():
            if got > per_hand.get(cards, (False, -1.0)):
                per_hand[cards] = got
        p = sum(pr * values[cards][1] for pr, cards in starts if cards in values)
        sure = len(values) == len(starts) and all(got[0] for got in values.values())
        if best.turns is None or p > best.single:
            best.single, best.single_certain, best.turns = p, sure, len(path) - 1
            source = (model, path, mode, not pods)
            best.pod_chosen = bool(pods)

    for inst, mode in instances:
        for status, found in _fewest_turn_plans(inst, mode, fresh, deadline, max_nodes):
            if found is None:
                if mode == "open" and status == "unsolvable":
                    return PathBound(impossible=True)
                break
            if deadline is not None and time.perf_counter() > deadline:
                return done()
            model, path = found
            needs = flight_needs(model, path)
            values, timed_out = _hand_values(FlightPath(model_e, needs, deadline), starts)
            record(values, model, path, mode, ())
            if timed_out or every_hand_certain():  # (a plan certain from every hand makes every hand so)
                return done()
            # With the escape pod, the plan's own pod moves above (quick), then
            # its moves chosen as the cards come (worth much more, but slow:
            # most of it on the first hand, whose states later hands share),
            # each hand keeping the better.
            pods = _pod_track(model, path, mode)
            if pods:
                more, timed_out = _hand_values(FlightPath(model_e, needs, deadline, *pods), starts)
                record(more, model, path, mode, pods, values)
                if timed_out or every_hand_certain():
                    return done()
        if deadline is not None and time.perf_counter() > deadline:
            break
    return done()


def _hand_values(fp: FlightPath, starts: list[tuple[float, tuple]]) -> tuple[dict, bool]:
    """(opening card state -> (certain, probability)) of a plan followed as
    ``fp`` follows it, and whether time ran out before every hand had a
    value. Opening hand by opening hand, the likeliest first: when time
    runs out, the hands not yet worked out keep what an earlier plan gave
    them, else count as losses (still a lower bound; four players have 345
    hands)."""
    values: dict[tuple, tuple[bool, float]] = {}
    sure = True
    try:
        for _pr, cards in starts:
            # (``certain`` first while the plan is: it stops at a first draw
            # that does not win for certain.)
            got = (True, 1.0) if sure and fp.certain(0, cards) else fp.value(0, cards)
            sure = sure and got[0]
            values[cards] = got
    except OutOfTime:
        return values, True
    return values, False


def _pod_track(model: Model, path: list, mode: str) -> tuple:
    """``FlightPath``'s ``pods`` and ``waiting`` for a plan's path: with the
    escape pod, its moves chosen as the cards come (``pod_track``); else
    none, the plan as it is."""
    if not model.pod_variant:
        return ()
    plan = build_plan(model, path, mode, dealt_of(path))
    if any(t.second is not None for t in plan.turns):
        return ()  # (two pod moves a turn: the plan's own)
    return PodTrack(plan.replay(), plan.turns), POD_WAITING


def solve_expected(
    start: GameState,
    fresh: bool,
    *,
    max_nodes: int | None = None,
    timeout: float | None = None,
    progress: Callable[[dict], None] | None = None,
    t0: float | None = None,
) -> SolveResult:
    t0 = time.perf_counter() if t0 is None else t0
    if start.options.players == 2:
        raise SolverInputError("expected mode does not cover two-player games (the [D18] wild draws mid-command)")
    def by(share: float) -> float | None:
        """The deadline at ``share`` of the budget."""
        return None if timeout is None else t0 + share * timeout

    # From a fresh setup with three or four players or the escape pod the
    # adaptive search below has proven nothing in seconds (docs/SOLVER.md,
    # "Expected mode"): there the time goes to flight plans, which raise the
    # lower bound (four players' 345 opening hands take seconds for one).
    plans_only = fresh and (start.options.players > 1 or start.options.escape_pod)
    # First open mode's fixed flight plans (a lower bound, often certain).
    bound = path_lower_bound(start, fresh, by(0.8 if plans_only else 0.5), max_nodes, deals=0)
    if bound.certain:
        return _certain(t0, bound)
    if bound.impossible:
        return _settled(t0, 0.0, "no deck order wins (open mode)")
    model = Model(start, "expected")
    h = Heuristic(model)
    roots = opening(model, fresh)
    nodes = 0
    # Then a strategy that adapts to the draws and still wins whatever is
    # drawn (``adaptive``), from the fewest turns open mode needs.
    if bound.turns is not None and model.actions_per_turn == 1 and not plans_only:
        # From a fresh setup the expectimax settles nothing in a budget of
        # seconds (docs/SOLVER.md, "Expected mode"): the time goes to this
        # search, which may make the answer exact, not to bounds.
        sure = SureWin(model, h, deadline=by(0.9 if fresh else 0.7), max_nodes=max_nodes, progress=progress)
        for turns in range(bound.turns, bound.turns + 3):
            won = sure.within([st for _pr, st in roots], turns)
            if won:
                return _settled(t0, 1.0, f"a strategy adapting to the draws wins whatever is drawn within "
                                f"{turns} turns (AND-OR search)", nodes=sure.nodes)
            if won is None:
                break
        nodes = sure.nodes
    # Then deal mode's flight plans, other ways through the grid.
    if fresh:
        bound = path_lower_bound(start, fresh, by(0.97), max_nodes, open_plans=False, prior=bound)
        if bound.certain:
            return _certain(t0, bound, nodes)
    if h.relaxed is not None and timeout is not None:
        h.relaxed.deadline = t0 + timeout  # past it a relaxed search gives up (a weaker bound)
    lo, hi, nodes = _expectimax(model, h, roots, nodes, t0, timeout, max_nodes, progress)
    return _bracketed(lo, hi, bound, nodes, time.perf_counter() - t0)


def _certain(t0: float, bound: PathBound, nodes: int = 0) -> SolveResult:
    """``solve_expected``'s answer when flight plans win whatever is drawn."""
    if bound.single_certain:
        return _settled(t0, 1.0, f"a fixed {bound.turns}-turn flight plan wins whatever is drawn", bound.flight,
                        nodes)
    return _settled(t0, 1.0, "a fixed flight plan chosen by the opening hands wins whatever is drawn",
                    nodes=nodes)


def _settled(t0: float, p: float, method: str, flight: list[str] | None = None, nodes: int = 0) -> SolveResult:
    """``solve_expected``'s answer when the win probability ``p`` is known
    (found by ``method``)."""
    return SolveResult(
        status="solved" if p else "unsolvable", plan=None, turns=None, bound=None, nodes=nodes,
        seconds=time.perf_counter() - t0, mode="expected", objective="probability", win_probability=p,
        lower=p, upper=p, flight=flight, method=method,
    )


def _expectimax(model: Model, h: Heuristic, roots: list[tuple[float, tuple]], nodes: int, t0: float,
                timeout: float | None, max_nodes: int | None,
                progress: Callable[[dict], None] | None) -> tuple[float, float, int]:
    """The win probability from ``roots`` (probability, state) by
    expectimax over every decision and draw, as (lower, upper, nodes): the
    two differ when the budget ran out (unexplored states count as losses
    in the lower bound, as wins in the upper). ``nodes``: those counted
    before."""
    memo: dict[tuple, float] = {}
    exhausted = False
    # ``value`` calls itself through this list, cleared at the end, and not by
    # its own name: a closure that names itself is a reference cycle, which
    # would keep the model and the memo alive until the cyclic garbage
    # collector runs (paused while the next solve runs, ``api.cyclic_gc_paused``).
    recurse: list[Callable[[tuple], tuple[float, float]]] = []

    def value(st: tuple) -> tuple[float, float]:
        nonlocal nodes, exhausted
        got = memo.get(st)
        if got is not None:
            return got, got
        # The clock on every state: one state's successors can take 0.1 s.
        if exhausted or (timeout is not None and time.perf_counter() - t0 > timeout):
            exhausted = True
            return 0.0, 1.0
        # Lost for sure: no virus within reach, or (second pass) more turns
        # needed than draws left (``Heuristic.bounds``; the relaxed game there).
        if h.bounds(st, len(st[DECK]) + 2 if st[PASS2] else 0)[0] >= INF:
            memo[st] = 0.0
            return 0.0, 0.0
        nodes += 1
        if max_nodes is not None and nodes > max_nodes:
            exhausted = True
            return 0.0, 1.0
        if progress is not None and nodes % 5000 == 0:
            progress({"nodes": nodes, "states": len(memo), "open": 0, "bound": 0,
                      "seconds": time.perf_counter() - t0})
        # group: command -> draw -> best re-scan
        groups: dict[tuple, dict[tuple, list]] = {}
        for st2, rec, _ncards, won in model.successors(st):
            bolster, r1, r2, drawn, _cols, _ops = rec
            key = (bolster, r1, r2)
            groups.setdefault(key, {}).setdefault((drawn, st2[DISC] if won else None), []).append((st2, won))
        best_lo = best_hi = 0.0
        for key, by_draw in groups.items():
            lo = hi = 0.0
            for (drawn, _), outs in by_draw.items():
                if outs[0][1]:
                    lo, hi = 1.0, 1.0
                    break
                pr = _draw_probability(st[DECK], drawn, _disc_after(key, st, model), model.wild_tok)
                blo = bhi = 0.0
                for st2, _ in outs:
                    a, b = recurse[0](st2)
                    blo, bhi = max(blo, a), max(bhi, b)
                    if blo >= 1.0 or exhausted:
                        break
                lo += pr * blo
                hi += pr * bhi
                if exhausted:
                    # Out of budget: unwind at once with what is proven (the
                    # rest counted as wins), not after pricing every draw left.
                    return max(best_lo, lo), 1.0
            best_lo, best_hi = max(best_lo, lo), max(best_hi, hi)
            if best_lo >= 1.0 - 1e-12:
                break
        if best_lo == best_hi:
            memo[st] = best_lo
        return best_lo, best_hi

    recurse.append(value)
    lo = hi = 0.0
    for pr, st in roots:
        a, b = value(st)
        lo += pr * a
        hi += pr * b
    recurse.clear()
    return lo, hi, nodes


def _bracketed(lo: float, hi: float, bound: PathBound, nodes: int, seconds: float) -> SolveResult:
    """``solve_expected``'s answer from the expectimax's bounds ``lo`` and
    ``hi`` and the best flight plan's ``bound``."""
    exact = abs(hi - lo) < 1e-12
    if exact:
        method = "expectimax over every decision and draw"
    else:
        path_note = bound.method()
        from_path = bound.probability > lo
        lo = max(lo, bound.probability)
        if from_path:
            lower = path_note
        elif lo > 0:
            lower = "the states the expectimax settled"
        elif bound.turns is not None and not bound.per_hand:
            # (A plan came, but the budget ran out in its first opening hand.)
            lower = f"a fixed {bound.turns}-turn flight plan, valued from no opening hand in time"
        else:
            lower = "none found in time"
        method = f"lower: {lower}; upper: the expectimax with unexplored states counted as wins"
    lo, hi = max(0.0, lo), min(1.0, hi)  # sums of probabilities, rounded
    status = ("solved" if lo > 0 else "unsolvable") if exact else "unknown"
    return SolveResult(
        status=status, plan=None, turns=None, bound=None, nodes=nodes, seconds=seconds,
        mode="expected", objective="probability", win_probability=lo if exact else None,
        lower=lo, upper=hi, stopped="" if exact else "budget", method=method,
        # The flight plan when it alone is behind the answer (and wins at all).
        flight=bound.flight if 0 < bound.single >= lo else None,
    )


def _disc_after(key: tuple, st: tuple, model: Model) -> tuple:
    """The discard pile after this turn's commands (reshuffle pool)."""
    disc = list(st[DISC])
    for rec in key[1:]:
        if rec is not None:
            disc += [t for t, _ in rec[0]]
    return tuple(sorted(disc))


def opening(model: Model, fresh: bool) -> list[tuple[float, tuple]]:
    """(probability, root state) of the expected-mode ``model``: from a fresh
    setup one per choice of opening hands, dealt at random too; else the
    state itself."""
    if not fresh:
        return [(1.0, model.root_state())]
    roots = model.open_roots()
    full = roots[0][0][DECK] + tuple(t for h_ in roots[0][1] for t in h_)
    return [(_hands_probability(full, dealt), st) for st, dealt in roots]


def _hands_probability(full: tuple, dealt: tuple) -> float:
    """Probability that the players' opening hands are these multisets."""
    pool = Counter(full)
    n = len(full)
    p = 1.0
    for hand in dealt:
        k = len(hand)
        num = 1
        for t, kt in Counter(hand).items():
            num *= comb(pool[t], kt)
        p *= num / comb(n, k)
        pool.subtract(hand)
        n -= k
    return p
