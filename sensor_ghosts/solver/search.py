"""A* over model states (deal and open modes, RULES.md §15).

Why the search is exact:

* **Objective.** Every turn costs (1 turn, n cards). The priority of a node is
  ``(g_turns + h_turns, g_cards + h_cards, ...)`` (objective 'turns'; swapped for
  'cards'). Both ``h`` are admissible, so every node on an optimal path has a
  priority no greater than the optimum (T*, C*); the first goal popped therefore
  has value (T*, C*). Goals tied on (T*, C*) are all collected before a node of
  larger priority is popped, and the one with most cards left in hand and deck
  wins the last tie-break. States are re-opened when reached again more cheaply,
  so consistency of ``h`` is not needed for optimality.
  Objective 'turns-only' asks for the fewest turns alone: the priority is
  ``(g_turns + h_turns, -g_turns)`` (deepest first among equals, which finds a
  plan at the optimum quickly), cards play no part in re-opening or dominance,
  and the first goal popped is returned. Proving the fewest *cards* among the
  fewest-turn plans is most of the work of 'turns' (the card bound is only one
  card a turn), so this is the objective for questions about turns alone.
  Where a turn has one action (no §12 second action) ``api.solve`` runs
  'turns-only' here and leaves the cards to ``split``, which keeps a turn's
  grid half and card half apart.
* **Heuristic**: the larger of two admissible bounds.
  - ``Model._init_heuristic``, cheap: a relaxed grid where every cell is
    passable and a row boosts anywhere if any of its cards has a B side (rows
    rotate, so a row-level relaxation is invariant under shifts). The relaxed
    number of Fly actions to Earth bounds the real one; one action per turn (two
    with the §12 second action) turns it into turns; every action costs at least
    one card. While the ship holds fewer virus samples than Earth asks for it
    must enter a cell holding one first (``d(ship, v) + d(v, Earth) - 1``: the
    last action to v may carry on past it). The escape pod climbs at most 3
    rows per command and reaches Earth only from row 7.
  - ``relaxed.RelaxedBound``, dear and much tighter (the module says why it is
    admissible): a small game with every row's rotation tracked, faces exact
    where no flip can have happened, Deep Scans as credits, shields and waits
    counted.
    It is worked out lazily: a node is pushed with the cheap bound and, when
    popped, refined with the relaxed game searched one turn past its
    priority; if the bound rises the node goes back on the heap (the priority
    only ever rises, so A*'s order stays valid), and a bound that stopped at
    that cap is refined again, further, when the node comes back up.
* **Pathmax**: a child's bounds are at least its parent's less what the turn
  between them costs (one turn, its cards), since the parent needs at most that
  turn plus the child's optimum. Without it a child pushed with the cheap bound
  climbed back to its parent's level one refinement at a time, each a search
  of the relaxed game (about a hundred searches per expansion; now a few).
* **Lazy children.** A child is pushed with its parent's bounds only; its own
  cheap bound and the dominance test wait until it is popped (most never are:
  the first goal ends a fewest-turns search). The relaxed search also reports
  where its optimal way's first turn ends (``RelaxedBound.first_turn``):
  children that end there are tried first and, under 'turns-only', the others
  are generated only if the search comes back to the parent's priority (a
  DEFERRED heap entry with that priority stands for them, so A*'s order
  holds). With the §12 second action or the escape pod the others are
  kept from the one generation instead: there a turn costs most to work
  out whatever the hint lets through, and nearly every node's other half
  came up. These change the order of work, never what is proven.
* **Dead ends**: every turn but the last draws at least one card, so on the
  second pass a state whose turns bound exceeds the deck plus one is dropped.
* **Transpositions**: states are canonical tuples (hands and discard pile sorted,
  the discard pile kept as a set because only its top arrow, the heading [D11],
  and its content at the reshuffle, ordered by the ranking [D22], matter).
* **Dominance**: a state is dropped when a state already reached at no greater
  cost is equal (pending Deep Scan flips included) except for at least as many shields, at least as many held virus
  samples, a superset of the sample tokens still on the board and, per row, a
  superset of the possible flip patterns. Each of these is monotone: shields
  only ever help (they absorb an asteroid or, in low memory mode, an
  obstruction); a held virus can always be kept unspent and Earth asks for *at
  least* n; a token still on the board can be picked up or ignored (the low
  memory removal of the nearest token preserves the superset relation); more
  flip patterns are more choices for the planner; no heading ([D11]) allows
  every command a heading allows, and each command sets the heading after it
  whatever the heading before. Bolstering beyond two shields is never
  generated for the same reason; nor is a bolster whose shields this turn's
  flight does not spend (``Model.successors``), nor a Peek with the Wild or
  three cards, nor a Fly card on top of three cards that hold another kind
  (``Model.commands``).
* **Limits**: when a node, time or memory budget runs out the search stops and
  reports the smallest priority still open or, if larger, the smallest bound of
  a root: both are valid lower bounds on the optimum. The clock is read every
  pop and inside the relaxed game's searches (``RelaxedBound.deadline``).
"""

from __future__ import annotations

import heapq
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..rules.geometry import DIRECTIONS, EARTH
from .model import (
    ACTIVE,
    DECK,
    DISC,
    HANDS,
    HEAD,
    HELD,
    MASKS,
    PASS2,
    PEND,
    POD,
    ROT,
    SAMPLES,
    SHIP,
    SHL,
    Model,
)
from .model_state import Root
from .relaxed import INF, RelaxedBound, takeable_virus_bits
from .relaxed import applies as relaxed_applies

# Heap entry kinds. FRESH: pushed with its parent's bounds (pathmax) only; its
# own cheap bound and the dominance test wait until it is popped.
# DEFERRED: the children of a node not yet generated (the second half of an
# expansion, ``astar``).
UNREFINED, REFINED, GOAL, FRESH, DEFERRED = 0, 1, 2, 3, 4


class SearchInterrupted(KeyboardInterrupt):
    """Ctrl-C during a search: still a ``KeyboardInterrupt`` (a batch stops),
    carrying what was known: ``bound`` (at least that many turns, or None),
    the nodes expanded and the seconds spent."""

    def __init__(self, bound: int | None, nodes: int, seconds: float):
        super().__init__()
        self.bound = bound
        self.nodes = nodes
        self.seconds = seconds


@dataclass
class SearchOutcome:
    status: str  # 'solved' | 'unsolvable' | 'unknown'
    path: list | None  # [(state, record)] from a root to the goal; record None at a root
    value: tuple | None
    bound: int | None
    nodes: int
    stopped: str = ""


def too_few_samples(model: Model, st: tuple, takeable: int | None = None) -> bool:
    """Whether the virus samples held and those left on the board that the
    ship can take (``relaxed.takeable_virus_bits``, or ``takeable`` when the
    caller has them) are fewer than Earth asks for ([D12]): no win then."""
    if takeable is None:
        takeable = takeable_virus_bits(model)
    return st[HELD] + bin(st[SAMPLES] & takeable).count("1") < model.need


class Heuristic:
    def __init__(self, model: Model, forget_far_rows: bool = False):
        """``forget_far_rows``: the relaxed game lets rows three or more below
        the ship go (``relaxed.RelaxedBound``; faster, a little weaker: for
        the card search's checks, ``split``)."""
        self.m = model
        self.apt = model.actions_per_turn
        self._cache: dict[tuple, int] = {}
        # Only the virus tokens the ship can take count (as in the relaxed
        # game): a way through the row of one it cannot take is no way.
        self._takeable = takeable_virus_bits(model)
        # The relaxed game (``relaxed``) counts turns, with the §12 second
        # action too while the samples are few (``relaxed.applies``).
        self.relaxed = RelaxedBound(model, forget_far_rows) if relaxed_applies(model) else None
        # Every solo turn plays at least one card ([D10], the hand is refilled),
        # so a bound on turns bounds cards too; with more players a turn may
        # play none (§9), see ``bounds``.
        self.turns_bound_cards = model.players == 1

    def keep_far_rows(self) -> None:
        """From now on the relaxed game keeps the rows far below the ship
        (a relaxed game of its own: what the one that forgot them learned is
        of states with those rows left out), its deadline as before."""
        old = self.relaxed
        if old is None or not old.forget_far_rows:
            return
        self.relaxed = RelaxedBound(self.m, forget_far_rows=False)
        self.relaxed.deadline = old.deadline

    def bounds(self, st: tuple, cap: int = 0) -> tuple[int, int]:
        """Admissible lower bounds on (turns, cards) still needed; INF when dead.
        With ``cap`` > 0 the relaxed game (dearer) is searched up to ``cap`` turns."""
        a = self.actions(st)
        if a >= INF:
            return INF, INF
        t = -(-a // self.apt)
        if cap and self.relaxed is not None and st[SHIP] != EARTH:
            r = self.relaxed.turns(st, cap)
            if r >= INF:
                return INF, INF
            t = max(t, r)
            a = max(a, self.cards_for_turns(t, st[HANDS]))
        if t > most_turns(st[PASS2], len(st[DECK])):
            return INF, INF
        return t, a

    def cards_for_turns(self, turns: int, hands: tuple) -> int:
        """Lower bound on the cards ``turns`` more turns play. Solo, one a
        turn. With more players a turn plays no card only when its active
        player holds none (§9). Whoever holds none now may skip once; to skip
        again a player must first give away both cards as a helper, on turns
        that each play a card of their active player too: every later skip is
        paid for twice. So one a turn less one per player holding none."""
        if self.turns_bound_cards:
            return turns
        return self.cards_for_turns_of(turns, sum(1 for hand in hands if not hand))

    def cards_for_turns_of(self, turns: int, empty: int) -> int:
        """``cards_for_turns`` for hands of which ``empty`` hold no card
        (for a caller that keeps that count)."""
        return turns if self.turns_bound_cards else max(0, turns - empty)

    def actions(self, st: tuple) -> int:
        """Lower bound on the Fly actions still needed (ship and pod)."""
        key = (st[SHIP], st[HELD], st[SAMPLES] & self._takeable, st[POD])
        got = self._cache.get(key)
        if got is None:
            got = self._cache[key] = self._actions(st)
        return got

    def _actions(self, st: tuple) -> int:
        m = self.m
        ship = st[SHIP]
        need_ship = 0
        if ship != EARTH:
            need_ship = m.to_earth[ship]
            held = st[HELD]
            if held < m.need:
                if too_few_samples(m, st, self._takeable):
                    return INF
                need_ship = max(need_ship, m.through_virus(ship, st[SAMPLES] & self._takeable, INF))
        pod = st[POD]
        if pod is not None:
            need_ship = max(need_ship, pod_actions(pod))
        return need_ship

    def turns(self, st: tuple) -> int:
        a = self.actions(st)
        if a >= INF:
            return INF
        return -(-a // self.apt)


def most_turns(pass2: bool, deck_size: int) -> int:
    """The most turns a game can still last, from its second-pass flag and
    the cards in its deck: on the second pass the deck's cards and one.
    Every turn but the last draws at least one card (its active player
    plays one if they hold any, [D10], and refills the hand, §7; one who
    holds none draws), and an empty deck at a draw on the second pass
    loses ([D15]). On the first pass INF: the reshuffle is still to come."""
    return deck_size + 1 if pass2 else INF


def pod_actions(pod: tuple[int, int]) -> int:
    """Lower bound on the moves the escape pod at ``pod`` still needs: it
    climbs at most 3 rows a move (§10) and reaches Earth only from row 7."""
    return 0 if pod == EARTH else math.ceil((8 - pod[0]) / 3)


def cards_left(st: tuple) -> int:
    return sum(len(h) for h in st[HANDS]) + len(st[DECK])


def _dominance_key(st: tuple) -> tuple:
    # Everything but shields, held, samples, pattern sets and the heading.
    return (st[SHIP], st[POD], st[ROT], st[HANDS], st[DECK], st[DISC], st[PASS2], st[ACTIVE], st[PEND])


_UNARY = (0, 1, 3, 7, 15)


def _dominance_bits(st: tuple) -> int:
    """The parts of a state where more is better, as one bit set, so that "a is
    at least as good as b" is ``b & ~a == 0``: per row the possible flip
    patterns, the sample tokens still on the board, shields and held virus
    samples in unary, and the directions a single Fly card may take (all of
    them without a heading, [D11]; a command sets the next heading whatever
    the one before)."""
    x = 0
    for m in st[MASKS]:
        x = (x << 32) | m
    head = st[HEAD]
    allowed = 15 if head is None else 1 << DIRECTIONS.index(head)
    x = (x << 35) | st[SAMPLES]
    return (((x << 2) | _UNARY[st[SHL]]) << 4 | _UNARY[min(st[HELD], 4)]) << 4 | allowed


def _there(hint: tuple | None) -> Callable[[tuple], bool]:
    """``Model.successors``' ``keep``: the grids whose ship and rotations are
    ``hint`` (an optimal relaxed way's first turn's end)."""
    return lambda grid: (grid[0], grid[4]) == hint


def _elsewhere(hint: tuple | None) -> Callable[[tuple], bool]:
    """``_there``'s complement (None: every grid)."""
    return lambda grid: (grid[0], grid[4]) != hint


# Long by design: one loop over the heap whose state (heap, best, deferred
# and refinement entries) stays in locals it reads many times a node; split
# into an object's methods it would pay an attribute lookup for each.
def astar(
    model: Model,
    roots: list[Root],
    *,
    objective: str = "turns",
    max_nodes: int | None = None,
    timeout: float | None = None,
    max_states: int = 3_000_000,
    progress: Callable[[dict], None] | None = None,
    max_turns: int | None = None,
    heuristic: Heuristic | None = None,
    min_turns: int = 0,
) -> SearchOutcome:
    """A* from ``roots``; ``max_turns`` prunes plans longer than that many turns
    (an 'unsolvable' answer then means 'none within max_turns'). ``heuristic``:
    one to share (and its learned bounds) with a later search of ``model``.
    ``min_turns`` ('turns-only'): a lower bound on the optimum proven
    elsewhere (no plan has fewer turns). Priorities are raised to it: among
    the states it covers the deepest is expanded first, and the first goal
    popped is still optimal (an optimal plan keeps a state of priority at
    most max(optimum, min_turns) = the optimum open, so the goal popped has
    no more turns than that), with no need to expand every state below it."""
    h = heuristic or Heuristic(model)
    t0 = time.perf_counter()
    if timeout is not None and h.relaxed is not None:
        h.relaxed.deadline = t0 + timeout
    heap: list = []
    best: dict[tuple, tuple[int, int]] = {}
    parent: dict[tuple, tuple] = {}
    front: dict[tuple, list[tuple]] = {}  # dominance key -> states kept
    # state -> its first-turn hint, or the rest of its children (DEFERRED)
    deferred: dict[tuple, tuple | list] = {}
    # Whether an expansion's other half is kept rather than generated again
    # when its DEFERRED entry comes up: with the §12 second action (two
    # actions, each with its cards) and with the escape pod (a turn's grid
    # worked out for every move of the pod) a turn is dear to work out
    # whatever ``keep`` lets through, and on the slow setups nearly every
    # node's other half came up (docs/SOLVER.md, "Fourteenth session");
    # otherwise the half that the hint's grid rejects is cheap to skip, and
    # keeping it cost low memory's median 14 %.
    keep_rest = model.second_ok or model.pod_variant
    seq = 0
    by_cards = objective == "cards"
    turns_only = objective == "turns-only"

    def prio(st: tuple, g1: int, g2: int, cap: int = 0) -> tuple | None:
        ht, a = h.bounds(st, cap)
        if ht >= INF:
            return None
        if max_turns is not None and g1 + ht > max_turns:
            return None
        if by_cards:
            return (g2 + a, g1 + ht, -g2)
        if turns_only:
            return (max(g1 + ht, min_turns), -g1, 0)
        return (g1 + ht, g2 + a, -g1)

    def lift(p2: tuple, p: tuple) -> tuple:
        """Priority ``p2`` raised to the bounds of ``p`` (pathmax)."""
        if turns_only:
            return p2 if p2[0] >= p[0] else (p[0], p2[1], p2[2])
        return (max(p2[0], p[0]), max(p2[1], p[1]), p2[2])

    def dominated(st: tuple, g: tuple[int, int]) -> bool:
        key = _dominance_key(st)
        bits = _dominance_bits(st)
        lst = front.get(key)
        if lst is None:
            front[key] = [(bits, st)]
            return False
        for obits, other in lst:
            if not bits & ~obits and other != st:  # not itself (re-opened at a lower cost)
                og = best[other]
                if og[0] <= g[0] and (turns_only or og[1] <= g[1]):
                    return True
        lst.append((bits, st))
        return False

    # Every plan starts at a root, so the smallest root bound is a lower bound
    # on the optimum too; the refined ones keep the reported bound of an
    # 'unknown' answer from falling to the cheap bounds of unrefined nodes.
    root_bound: dict[tuple, int] = {}
    for st, rec in roots:
        p = prio(st, 0, 0)
        if p is None or st in best:
            continue
        root_bound[st] = p[0]
        best[st] = (0, 0)
        parent[st] = (None, rec)
        dominated(st, (0, 0))
        heapq.heappush(heap, (p, seq, st, 0, 0, UNREFINED))
        seq += 1

    def better(a: tuple[int, int], b: tuple[int, int]) -> bool:
        if turns_only:
            return a[0] < b[0]
        return (a[1], a[0]) < (b[1], b[0]) if by_cards else a < b

    nodes = 0
    goal_prio = None
    goals: list[tuple] = []
    last_report = t0
    stopped = ""
    p = None
    try:
        while heap:
            p, _, st, eg1, eg2, kind = heap[0]
            if goal_prio is not None and p[:2] > goal_prio[:2]:
                break
            heapq.heappop(heap)
            g = best.get(st)
            if g is None or g != (eg1, eg2):
                continue  # stale entry
            if kind == GOAL:
                if goal_prio is None:
                    goal_prio = p
                goals.append(st)
                if turns_only:
                    break
                continue
            # Checked on every pop, of every kind (reading the clock costs far
            # less than a pop): refinements that send a node back take most of
            # the time, and with four players one expansion is dear.
            now = time.perf_counter()
            if timeout is not None and now - t0 > timeout:
                stopped = "time limit"
                heapq.heappush(heap, (p, seq, st, eg1, eg2, kind))  # still open: part of the bound
                break
            if now - last_report > 0.5:
                last_report = now
                if progress is not None:
                    progress({"nodes": nodes, "states": len(best), "open": len(heap),
                              "bound": p[0], "seconds": now - t0})
            if kind == FRESH:
                # Most children are never popped (the search ends first), so their
                # bounds and the dominance test are worked out only now.
                p2 = prio(st, eg1, eg2)
                if p2 is None:
                    continue
                p2 = lift(p2, p)
                if max_turns is not None and (p2[1] if by_cards else p2[0]) > max_turns:
                    continue
                if dominated(st, g):
                    continue
                if p2 > p:
                    heapq.heappush(heap, (p2, seq, st, eg1, eg2, UNREFINED))
                    seq += 1
                    continue
                kind = UNREFINED
            if kind == UNREFINED and h.relaxed is not None:
                # Lazy refinement: the relaxed game's bound is dear, so it is worked
                # out only for nodes about to be expanded, searched one turn past
                # the priority they were popped at; a node whose bound rises goes
                # back, to be refined further if it is popped again.
                cap = (p[1] if by_cards else p[0]) - eg1 + 1
                p2 = prio(st, eg1, eg2, cap)
                if st in root_bound:
                    root_bound[st] = INF if p2 is None else p2[0]
                if p2 is None:
                    continue
                if p2 > p:
                    # A bound that reached the cap is only "at least": it is
                    # refined again, further, if the node is popped again.
                    capped = (p2[1] if by_cards else p2[0]) - eg1 >= cap
                    heapq.heappush(heap, (p2, seq, st, eg1, eg2, UNREFINED if capped else REFINED))
                    seq += 1
                    continue
            if kind == DEFERRED:
                # The rest of an expansion (below): its priority bounds them all.
                rest = deferred.pop(st, None)  # None: regenerate all (duplicates are dropped)
                children = rest if isinstance(rest, list) else model.successors(st, keep=_elsewhere(rest))
            else:
                nodes += 1
                if (max_nodes is not None and nodes > max_nodes) or len(best) > max_states:
                    stopped = "node limit" if max_nodes is not None and nodes > max_nodes else "memory limit"
                    heapq.heappush(heap, (p, seq, st, eg1, eg2, kind))  # still open: part of the bound
                    break
                # Children that end where an optimal relaxed way's first turn ends
                # come first among equals: often the search then goes straight
                # down and never refines their siblings.
                hint = h.relaxed.first_turn(st) if h.relaxed is not None else None
                if hint is None:
                    children = model.successors(st)
                elif turns_only:
                    # Two halves, the others expanded only if the search comes
                    # back to this priority (the first goal found ends it).
                    if keep_rest:
                        # (As ``keep`` would split them: a win goes first.)
                        at_hint = _there(hint)
                        every = model.successors(st)
                        children = [c for c in every if c[3] or at_hint(c[0])]
                        deferred[st] = [c for c in every if not c[3] and not at_hint(c[0])]
                    else:
                        children = model.successors(st, keep=_there(hint))
                        deferred[st] = hint
                    heapq.heappush(heap, (p, seq, st, eg1, eg2, DEFERRED))
                    seq += 1
                else:
                    # Every child is needed to prove the fewest cards: in order.
                    children = model.successors(st)
                    children.sort(key=lambda c: (c[0][SHIP], c[0][ROT]) != hint)
            g1, g2 = g
            for st2, rec, ncards, won in children:
                ng = (g1 + 1, g2 + ncards)
                if won and max_turns is not None and ng[0] > max_turns:
                    continue
                old = best.get(st2)
                if old is not None and not better(ng, old):
                    continue
                if won:
                    p2 = (ng[1], ng[0], 0) if by_cards else (ng[0], -ng[0], -1) if turns_only else (ng[0], ng[1], 0)
                    best[st2] = ng
                    parent[st2] = (st, rec)
                    heapq.heappush(heap, (p2, seq, st2, ng[0], ng[1], GOAL))
                    seq += 1
                    continue
                # Pathmax: the parent's bounds, less this turn, bound the child.
                if by_cards:
                    p2 = (p[0], p[1], -ng[1])
                elif turns_only:
                    p2 = (p[0], -ng[0], 0)
                else:
                    p2 = (p[0], p[1], -ng[0])
                best[st2] = ng
                parent[st2] = (st, rec)
                heapq.heappush(heap, (p2, seq, st2, ng[0], ng[1], FRESH))
                seq += 1
    except KeyboardInterrupt:
        # Ctrl-C: the best bound so far goes with the interrupt (the node being
        # worked on counts as open), for a caller that reports it.
        if p is not None:
            heapq.heappush(heap, (p, -1, st, eg1, eg2, kind))  # -1: no tie with another entry
        bound = max(heap[0][0][0] if heap else 0, min(root_bound.values(), default=0)) or None
        raise SearchInterrupted(bound, nodes, time.perf_counter() - t0) from None
    if goals:
        goal = max(goals, key=cards_left)
        path = []
        cur = goal
        while cur is not None:
            prev, rec = parent[cur]
            path.append((cur, rec))
            cur = prev
        path.reverse()
        return SearchOutcome("solved", path, best[goal], None, nodes)
    if stopped:
        bound = max(heap[0][0][0] if heap else 0, min(root_bound.values(), default=0)) or None
        return SearchOutcome("unknown", None, None, bound, nodes, stopped)
    return SearchOutcome("unsolvable", None, None, None, nodes)


class TtyProgress:
    """A progress line on stderr, rewritten in place; ``end`` closes it with a
    newline if one was shown (a short solve shows none)."""

    def __init__(self) -> None:
        self.shown = False

    def __call__(self, info: dict) -> None:
        self.shown = True
        sys.stderr.write(
            f"\rsolving: {info['nodes']} nodes, {info['states']} states, "
            f"bound {info['bound']}, {info['seconds']:.1f}s   "
        )
        sys.stderr.flush()

    def end(self) -> None:
        if self.shown:
            sys.stderr.write("\n")
            self.shown = False


def tty_progress() -> TtyProgress | None:
    """A progress printer on stderr, only when it is a terminal."""
    return TtyProgress() if sys.stderr.isatty() else None
