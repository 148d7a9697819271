"""Deal and open mode's search for a plan (``search_plan``): the card search
(``split``) or the fewest-turns A* (``search.astar``), whichever suits the
objective and the game, and the hand-over between them. ``solve`` runs it
for deal and open mode, and expected mode for its fixed flight plans."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

from . import lazy_draws, split
from .model import Model
from .model_state import Root
from .relaxed import DEEPEN_FROM
from .result import Mode, Objective, Status
from .search import Heuristic, SearchInterrupted, SearchOutcome, astar


class SideSearch(Protocol):
    """What a card search that does not end quickly turns to
    (``split.fewest_cards``' ``when_slow``; ``api.SideSearches``)."""

    least: int | None  # a floor on the fewest turns it found, once it has
    unsolvable: str | None  # why no plan wins, when it showed that

    def __call__(self, turns: int) -> str: ...


# The cap of the relaxed game's search for the first guess at the fewest
# turns (``split_solve``): no standard game comes near it, and the relaxed
# game deepens to a cap this far (``RelaxedBound.turns``).
INF_TURNS = DEEPEN_FROM
# The states a search keeps before it stops ('memory limit'; ``solve``'s default).
MAX_STATES = 3_000_000


def search_plan(model: Model, roots: list[Root], objective: str, t0: float, timeout: float | None,
                max_nodes: int | None, max_states: int, progress: Callable[[dict], None] | None,
                max_turns: int | None, side: SideSearch | None = None) -> SearchOutcome:
    """The search ``solve`` makes for an objective of deal or open mode, the
    clock started at ``t0``. ``side``: what the card search turns to when it
    does not end quickly (``SideSearch``)."""
    card_search = split.applies(model, roots)
    if card_search and (objective == Objective.TURNS or (
            objective == Objective.TURNS_ONLY and card_search_first(model))):
        return split_solve(model, roots, t0, timeout, max_nodes, max_states, progress, max_turns,
                           any_cards=objective == Objective.TURNS_ONLY, side=side)
    left = None if timeout is None else max(0.0, timeout - (time.perf_counter() - t0))
    # (Where the caller's node limit is no more than the A*'s share, the A* has it all.)
    handover = card_search and objective == Objective.TURNS_ONLY and (
        max_nodes is None or max_nodes > ASTAR_FIRST_NODES)
    out = astar(model, roots, objective=objective, max_nodes=ASTAR_FIRST_NODES if handover else max_nodes,
                timeout=left, max_states=max_states, progress=progress, max_turns=max_turns)
    if not handover or out.stopped != "node limit":
        return out
    # The A* did not end quickly: the card search from the start (its own
    # bounds; exact as the A*), with what is left of the limits.
    rest = split_solve(model, roots, t0, timeout, None if max_nodes is None else max_nodes - out.nodes,
                       max_states, progress, max_turns, any_cards=True, side=side)
    rest.nodes += out.nodes
    return rest


def card_search_first(model: Model) -> bool:
    """Whether the fewest turns alone ('turns-only') are sought by the card
    search first (``split_solve``) rather than by the fewest-turns A*: in
    open mode with lazy draws, where the card search's card states are few
    (``lazy_draws``), and with more players or the escape pod, whose card
    states (several hands, the pod's values) make the A*'s joint states
    many. Solo without the pod the A* goes first, faster at the median
    (docs/SOLVER.md, "Worst case"), and gives way to the card search after
    ``ASTAR_FIRST_NODES`` nodes (``search_plan``). Either way the answer is
    exact; this is speed only."""
    return lazy_draws.applies(model) or model.players > 1 or model.options.escape_pod


# Where the fewest-turns A* goes first ('turns-only', ``card_search_first``
# False: solo, without the pod, deal mode), it gives way to the card search
# after this many nodes: most setups end well before, and where the A* runs
# long the card search often ends far sooner (docs/SOLVER.md, "Two samples,
# the second action and low memory").
ASTAR_FIRST_NODES = 500

# Nodes after which an open-mode card search's checks keep the far rows
# (``split.fewest_cards``'s ``keep_rows_after``): on a few setups the
# stronger checks prove at once that a number of turns is too few, where the
# cheaper ones let the search run on; a median solve ends before (docs/
# SOLVER.md, "Seventeenth session"). A count, not a clock: the same plan on
# every machine. Deal mode keeps the cheaper checks (no faster there).
KEEP_ROWS_AFTER = 2_000

# How many numbers of turns the card search tries, from the relaxed bound
# up, before the fewest-turns A* takes over (``split_solve``).
CARD_SEARCH_TURNS = 4


def split_solve(model: Model, roots: list[Root], t0: float, timeout: float | None, max_nodes: int | None,
                max_states: int, progress: Callable[[dict], None] | None,
                max_turns: int | None, any_cards: bool = False,
                side: SideSearch | None = None) -> SearchOutcome:
    """The full objective with the grid's and the cards' halves of a turn
    apart (``split``): the fewest cards among the plans of T turns, T the
    fewest.

    T is first taken to be the relaxed game's bound at the roots (an
    admissible bound, so T is at least that): it was the optimum on 59 of
    setups 0-59, and then the card search alone proves the optimum, and the
    fewest-turns A* (a sixth of a median solve, more on the slowest) is not
    needed. When the card search finds no plan of that many turns, it tries
    one more, up to ``CARD_SEARCH_TURNS`` numbers of turns in all (each
    failure proves no plan of that many, nor of fewer: docs/SOLVER.md, "The
    card search deepened"); past them the A* finds T (from the floor the
    card searches proved, ``astar``'s ``min_turns``), then the card search
    runs at T. ``side``: what a card search that does not end quickly turns
    to (``SideSearch``): a floor on T, or a plan of T turns found another
    way (the search stops; ``side.witness``). ``any_cards``
    ('turns-only'): the card search takes the first plan of T turns it
    finds, and the A*'s plan stands when it is needed (where
    ``card_search_first`` says so; solo in deal mode the A* alone is
    faster, the card search took 1.35 of its time per setup on setups
    0-199)."""
    # The card search's checks let the relaxed game's far rows go: they
    # prove grids dead faster so, until in open mode a search goes on long
    # (``KEEP_ROWS_AFTER``). The A*, if needed, keeps them: its priorities
    # are the relaxed values (relaxed.py, "Rows left behind").
    h_cards = Heuristic(model, forget_far_rows=True)
    keep_rows_after = KEEP_ROWS_AFTER if model.mode == Mode.OPEN else None
    deadline = None if timeout is None else t0 + timeout
    if deadline is not None and h_cards.relaxed is not None:
        h_cards.relaxed.deadline = deadline
    turns = 0  # the number of turns tried: no plan has fewer (what a Ctrl-C reports)
    nodes = 0
    try:
        guess = min(h_cards.bounds(st, INF_TURNS)[0] for st, _ in roots)
        none_within = 0  # the card searches proved no plan of this many turns, nor of fewer
        turns = guess
        for _ in range(CARD_SEARCH_TURNS):
            if turns >= INF_TURNS or (max_turns is not None and turns > max_turns):
                break
            out = split.fewest_cards(model, roots, turns, deadline=deadline, heuristic=h_cards, progress=progress,
                                     max_nodes=None if max_nodes is None else max(0, max_nodes - nodes),
                                     max_states=max_states, any_cards=any_cards, when_slow=side,
                                     keep_rows_after=keep_rows_after)
            nodes += out.nodes
            if out.status != Status.UNSOLVABLE:
                out.nodes = nodes
                return out  # solved, 'unknown' with the bound T >= turns, or a plan found by ``side``
            if side is not None and side.unsolvable is not None:
                out.nodes = nodes
                return out
            none_within = turns
            if side is not None and side.least is not None:
                none_within = max(none_within, side.least - 1)  # none of fewer than the ship alone needs
            turns = none_within + 1
        left = None if timeout is None else max(0.0, timeout - (time.perf_counter() - t0))
        out = astar(model, roots, objective=Objective.TURNS_ONLY.value, timeout=left, max_states=max_states, progress=progress,
                    max_nodes=None if max_nodes is None else max(0, max_nodes - nodes), max_turns=max_turns,
                    min_turns=none_within + 1 if none_within else 0)
        nodes += out.nodes
        if out.status == Status.SOLVED and not any_cards:
            assert out.value is not None
            turns = out.value[0]
            out = split.fewest_cards(
                model, roots, turns, deadline=deadline, heuristic=h_cards, progress=progress,
                max_nodes=None if max_nodes is None else max(0, max_nodes - nodes), max_states=max_states,
                keep_rows_after=keep_rows_after,
            )
            out.nodes += nodes
        else:
            out.nodes = nodes
        if out.status == Status.UNKNOWN and none_within:
            # The card searches proved no plan of ``none_within`` turns, and none
            # is shorter (``guess`` is admissible): the optimum is at least one
            # more, whatever the A* cut short by the clock got to bound.
            out.bound = max(out.bound or 0, none_within + 1)
        return out
    except KeyboardInterrupt as e:
        # Ctrl-C: the bound so far goes with the interrupt, as from the A*
        # (its own bound, if it was the one interrupted, may be higher).
        bound = max(turns if turns < INF_TURNS else 0, getattr(e, "bound", None) or 0) or None
        raise SearchInterrupted(bound, nodes + getattr(e, "nodes", 0), time.perf_counter() - t0) from None
