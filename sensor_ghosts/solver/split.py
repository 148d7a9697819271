"""Fewest cards among the fewest-turn plans, with the grid split from the cards.

Where it applies (``applies``: a solo game without the escape pod or the §12
second action, in deal or open mode) a turn has two independent halves:

* the **grid half**: the bolster and the action with its arguments decide all
  that happens on the grid (``Model.grid_moves``). Which cards paid does not
  enter it: without the pod nothing reads a card's pod value (§10).
* the **card half**: the cards played, the heading they leave ([D11]) and the
  draw (§7) decide the hands, deck and discard pile. Of the action it sees only
  its *pay class* (``model.pay_class``: Fly or Peek with its direction, any
  Deep Scan, Shields): every action of a class is paid for by the same cards.

A plan is a grid path and a card path that agree on the pay class turn by turn.
With T the fewest turns (found first by the A* under 'turns-only'), an A* over
(turn, grid, card state) finds the fewest cards among T-turn plans:

* **Grid half once per grid.** A grid state's turns (``_Grid.moves``) are
  worked out once, whatever the cards; from a grid on turn t only the turns
  that can still be part of a win on turn T are followed (``_Grid.live``: a
  win only on the last turn; else a next grid whose admissible turn bounds,
  ``search.Heuristic``, fit in the turns left). Each grid's check is made once.
* **Card half once per hand.** What the cards can pay for, by pay class, is
  worked out once per (hand, heading) (``payments``): solo, the deck is
  untouched by a command and the cards played join the discard pile. Then the
  draw (``Model.draw_outcomes``); a draw that finds the second-pass deck empty
  is a loss ([D15]) and is dropped.
* **Bound.** Every turn plays a card, so the cards still to play are at least
  the turns left: f = g + T - t (consistent).
* **Most cards left** (the last tie-break, §15): cards left plus cards played
  stays put as cards are played and drawn and rises only at the reshuffle
  ([D15]); a node's priority carries a bound on it for the wins of f cards
  below it, and wins go on the heap too, so the first win popped is optimal.
* **Dominance.** A card state with no heading is at least as good as the same
  one with a heading, at no more cards ([D11]: no heading allows all that a
  heading allows, and every command sets the next heading whatever the one
  before).
* **Transpositions**: one entry per (turn, grid, card state), at its fewest cards.

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

from ..rules.geometry import DIRECTIONS
from .model import FLY, HANDS, PEEK, PEND, SHIELDS, SHIFT, Model, pay_class
from .search import Heuristic, SearchOutcome

GOAL = -1  # the class of "the game is won" (after the last turn)
# The card half of a state that stands for its grid only (the bounds and
# ``Model.grid_moves`` read no card).
_NO_CARDS = ((), (), (), None, False, 0)


# One action of each pay class: the same cards pay for every action of a class.
_ONE_OF_EACH = [(k, d) for k in (FLY, PEEK) for d in DIRECTIONS] + [(SHIFT, 0), (SHIELDS, None)]


def applies(model: Model, roots: list[tuple[tuple, object]]) -> bool:
    """Whether a turn's grid half is its action's alone (module docstring)."""
    return (
        model.players == 1
        and not model.pod_variant
        and model.actions_per_turn == 1
        and model.lazy
        and all(st[HANDS][0] for st, _ in roots)  # a hand to play from
        and len({_grid_key(st) for st, _ in roots}) == 1
    )


def _grid_key(st: tuple) -> tuple:
    return st[:HANDS] + (st[PEND],)


def _as_state(gk: tuple, cards: tuple) -> tuple:
    return (*gk[:HANDS], *cards, gk[HANDS])


class _Grid:
    """The grid half: every grid state's turns, worked out once, and which of
    them can still lead to a win at exactly turn T."""

    def __init__(self, model: Model, turns: int, heuristic: Heuristic | None):
        self.m = model
        self.T = turns
        self.h = heuristic or Heuristic(model)
        self._moves: dict[tuple, list] = {}
        self._live: dict[tuple, list] = {}

    def moves(self, gk: tuple) -> list[tuple[tuple, tuple | None]]:
        """(pay class, next grid or None for a win) for every turn from ``gk``."""
        got = self._moves.get(gk)
        if got is None:
            out = []
            for act, (won, data) in self.m.grid_moves(_as_state(gk, _NO_CARDS)):
                pc = pay_class(act)
                if won:
                    out.append((pc, None))
                else:
                    out.extend((pc, grid + (pend,)) for grid, pend, _cols, _ops in data)
            got = self._moves[gk] = list(dict.fromkeys(out))
        return got

    def live(self, gk: tuple, t: int) -> dict[tuple, list]:
        """pay class -> next grids (None: the win) of the turns from ``gk`` on
        turn ``t`` (0-based) after which a win at turn T is not ruled out by
        the admissible bounds: a win only on the last turn, else a next grid
        whose bound fits in the turns left."""
        key = (gk, t)
        got = self._live.get(key)
        if got is None:
            left = self.T - t - 1  # turns left after this one
            got = {}
            for pc, nxt in self.moves(gk):
                if nxt is None:
                    if left:
                        continue
                elif not left:
                    continue
                else:
                    st = _as_state(nxt, _NO_CARDS)
                    if self.h.turns(st) > left or self.h.relaxed.turns(st, left + 1) > left:
                        continue
                got.setdefault(pc, []).append(nxt)
            self._live[key] = got
        return got


def fewest_cards(
    model: Model,
    roots: list[tuple[tuple, object]],
    turns: int,
    *,
    deadline: float | None = None,
    max_nodes: int | None = None,
    max_states: int = 3_000_000,
    heuristic: Heuristic | None = None,
    progress: Callable[[dict], None] | None = None,
) -> SearchOutcome:
    """The plan of ``turns`` turns (the fewest) with the fewest cards, then the
    most cards left, from ``roots`` (``applies`` must hold). Status 'unknown'
    (bound ``turns``) when ``deadline`` passes or more than ``max_nodes`` nodes
    or ``max_states`` states would be needed. ``heuristic``: the one
    the search for ``turns`` used (its learned bounds carry over)."""
    t_start = time.perf_counter()
    last_report = t_start
    grid = _Grid(model, turns, heuristic)
    base = model.branch_of(roots[0][0])
    by_hand: dict[tuple, dict[tuple, set]] = {}
    pays: dict[tuple, dict[tuple, list]] = {}

    def payments(cards: tuple) -> dict[tuple, list]:
        """pay class -> [(cards after the command, cards played)] (before the draw)."""
        got = pays.get(cards)
        if got is None:
            hands, deck, disc, head, pass2, active = cards
            # Solo, what a command can do and leaves in hand depends on the hand
            # and the heading alone; the deck is untouched and the cards played
            # join the discard pile.
            what = by_hand.get((hands, head))
            if what is None:
                what = by_hand[(hands, head)] = {}
                for order, act, arrow, _pd, _value, cards1, _resh in model.commands(
                    base, (hands, (), (), head, False, active), frozenset(), actions=_ONE_OF_EACH
                ):
                    what.setdefault(pay_class(act), set()).add(
                        (cards1[0], tuple(t for t, _p in order), arrow)
                    )
            got = pays[cards] = {
                pc: [((hs, deck, tuple(sorted(disc + played)), arrow, pass2, active), len(played))
                     for hs, played, arrow in options]
                for pc, options in what.items()
            }
        return got

    # A* over (turn, grid, cards) for the fewest cards, then the most cards
    # left. Every turn plays a card, so the cards still to play are at least
    # the turns left: f = g + T - t bounds the cards of every win below a node.
    # L = cards left + cards played stays put as cards are played and drawn and
    # rises only at the reshuffle ([D15]), so among wins of f cards "most cards
    # left" is "largest L", bounded by ``l_up``. Wins go on the heap too; the
    # first popped is optimal, as every open node's priority bounds the wins
    # below it.
    best: dict[tuple, int] = {}
    parent: dict[tuple, tuple] = {}
    heap: list = []
    root_of = {}
    seq = 0

    def push(key: tuple, g: int) -> None:
        nonlocal seq
        t, _gk, (hands, deck, disc, _head, pass2, _active) = key
        f = g + turns - t
        big_l = sum(len(x) for x in hands) + len(deck) + g
        if not pass2 and f - g - 1 > len(deck):
            # The f - g - 1 cards at most drawn before the last turn may empty
            # the deck: the discard pile (and what joins it) and the Wild return.
            big_l += len(disc) + f - g + 1
        heapq.heappush(heap, (f, -big_l, -t, seq, key))
        seq += 1

    gk0 = _grid_key(roots[0][0])
    for st, rec in roots:
        key = (0, gk0, st[HANDS:PEND])
        root_of[key] = (st, rec)
        best[key] = 0
        push(key, 0)
    nodes = 0
    while heap:
        f, _, _, _, key = heapq.heappop(heap)
        if key[0] == "won":
            _, last, pc, cards1, n = key
            break
        t, gk, cards = key
        g = best[key]
        if g + turns - t != f:
            continue  # stale
        if cards[3] is not None:
            free = best.get((t, gk, (*cards[:3], None, *cards[4:])))
            if free is not None and free <= g:
                continue  # dominated since it was pushed
        nodes += 1
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
        pay = payments(cards)
        for pc, nexts in grid.live(gk, t).items():
            for cards1, n in pay.get(pc, ()):
                g2 = g + n
                for nxt in nexts:
                    if nxt is None:
                        # A win on the last turn: no draw (§4).
                        big_l = sum(len(x) for x in cards1[0]) + len(cards1[1]) + g2
                        heapq.heappush(heap, (g2, -big_l, -turns - 1, seq, ("won", key, pc, cards1, n)))
                        seq += 1
                        continue
                    hands, deck, disc, head, pass2, active = cards1
                    for hand, dk, dc, hd, p2, _drawn in model.draw_outcomes(hands[0], deck, disc, head, pass2):
                        key2 = (t + 1, nxt, ((hand,), dk, dc, hd, p2, active))
                        old = best.get(key2)
                        if hd is not None:
                            # No heading allows all that a heading allows, and
                            # every command sets the next one ([D11]).
                            free = best.get((t + 1, nxt, ((hand,), dk, dc, None, p2, active)))
                            if free is not None and free <= g2:
                                continue
                        if old is None or g2 < old:
                            best[key2] = g2
                            parent[key2] = (key, pc, n)
                            push(key2, g2)
    else:
        return SearchOutcome("unsolvable", None, None, None, nodes)
    steps = [(last, pc, n)]
    while steps[-1][0] not in root_of:
        steps.append(parent[steps[-1][0]])
    steps.reverse()
    path = _concrete(model, root_of[steps[0][0]], steps, cards1)
    return SearchOutcome("solved", path, (turns, f), None, nodes)


def _concrete(model: Model, root: tuple, steps: list, last_cards: tuple) -> list:
    """The optimum as a path of model states and ``Model.successors`` records
    (as ``search.astar`` returns it). ``steps``: per turn (node before it, pay
    class, cards played); the node after each is the next step's."""
    path = [root]
    st = root[0]
    for t, (_node, pc, n) in enumerate(steps):
        final = t == len(steps) - 1
        if final:
            want_cards = last_cards
        else:
            _, gk2, want_cards = steps[t + 1][0]
        for st2, rec, ncards, won in model.successors(st):
            if ncards != n or st2[HANDS:PEND] != want_cards:
                continue
            if (final and won and pay_class(rec[1][1]) == pc) or (not final and st2 == _as_state(gk2, want_cards)):
                path.append((st2, rec))
                st = st2
                break
        else:  # pragma: no cover - the two halves disagree: a solver bug
            raise AssertionError(f"split search: turn {t + 1} of the optimum has no matching successor")
    return path
