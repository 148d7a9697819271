"""Difficulty features of a solved puzzle, and its grade.

The features are measured with the solver and the rules engine's log of the
optimal plan (``Plan.logs``); the grade is a function of three of them
(``grade_rule``, which says how it was fitted and checked against the
bots' win rates; docs/COLLECTIONS.md).
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass

from ..rules.cards import SectorType
from ..rules.engine import apply_turn, legal_turns
from ..rules.log import Drew, Entered
from ..rules.state import GameState
from ..rules.turns import Turn
from ..solver import solve
from ..solver.model import Model
from ..solver.plan import Plan
from ..solver.result import Mode, Objective, Status
from ..solver.search import Heuristic
from ..solver.worlds import worst_case
from .grade_rule import grade_of

FIRST_MOVE_NODES = 25
"""Node budget of each solve that asks whether a first move keeps the optimum
(a node budget, not a time one, so that the answer does not depend on the
machine's speed)."""
CAREFUL_NODES = 200
"""Node budget of the careful plan's solve (``advisor.legacy.CAREFUL_NODES``
is 3,000 for a hint; a collection can afford a little more)."""
SAFETY_SECONDS = 10.0
"""Time safety net of each feature solve. The budgets above are in nodes, but
one node's bound (the relaxed game at the root) took over 10 minutes on some
setups (seeds 5030, 5113, ...: the worst case of issue 37), holding a worker.
Cut by this, a solve answers 'unknown' as when it runs out of nodes; only
such a setup's row may then differ between machines."""


@dataclass(frozen=True)
class Features:
    turns: int
    """Fewest turns (proven)."""
    cards: int
    """Cards the stored plan plays."""
    first_moves: int | None
    """Distinct first moves: what the first turn does on the board (bolster,
    action(s), re-scan), whichever cards pay for it."""
    first_moves_optimal: int | None
    """First moves whose cheapest payment (fewest cards, then the engine's
    order) leaves a position the solver wins in ``turns - 1``: 1 is a narrow
    puzzle, many a forgiving one."""
    first_moves_unknown: int | None
    """First moves whose solve ran out of its node budget (counted as not
    optimal). The three first-move counts are None when not measured."""
    deep_scan: bool
    wild_three: bool
    """The plan plays three cards as a wild."""
    wild_card: bool
    """The plan plays the Wild itself (only after the reshuffle)."""
    bolster: bool
    boosts: int
    """Boost cards the ship meets along the plan."""
    boost_chain: bool
    """Two or more Boosts met in a row within one flight."""
    second_pass: bool
    """The plan draws past the reshuffle."""
    careful_turns: int | None
    """Turns of the fewest-turns plan that never enters a card whose down side
    is unseen (every unseen down side taken as Obstructed, the deck as dealt):
    None when there is none, or none found within ``CAREFUL_NODES``."""
    careful_status: str
    """The careful solve's status: solved, unsolvable (no careful route) or unknown."""

    def as_dict(self) -> dict:
        return asdict(self)


def _first_moves(start: GameState, optimum: int) -> tuple[int, int, int]:
    """(first moves, those that keep the optimum, those left unknown).

    Moves are grouped by what they do on the board, each paid with its
    fewest cards; groups that lead to the same position share one answer.
    A position whose admissible lower bound (the relaxed game's,
    ``_may_win_within``) exceeds ``optimum - 1`` turns cannot keep the
    optimum: only the others need a solve, which is most of the saving."""
    groups: dict[tuple, Turn] = {}
    for t in legal_turns(start):
        key = (t.bolster, t.command.action if t.command else None,
               t.second.action if t.second else None, t.rescan)
        held = groups.get(key)
        if held is None or _paid(t) < _paid(held):
            groups[key] = t
    answers: dict[GameState, Status | None] = {}  # None: cannot keep the optimum
    keep = unknown = 0
    for t in groups.values():
        after = apply_turn(start, t)
        if after not in answers:
            answers[after] = _keeps_optimum(after, optimum)
        got = answers[after]
        keep += got == Status.SOLVED
        unknown += got == Status.UNKNOWN
    return len(groups), keep, unknown


def _keeps_optimum(after: GameState, optimum: int) -> Status | None:
    """SOLVED when the position after a first move is won in ``optimum - 1``
    more turns, UNKNOWN when its node-bounded solve runs out, None when it
    cannot be (lost, or its lower bound is too high)."""
    if after.is_over:
        return Status.SOLVED if optimum == 1 and after.outcome.status.value == "won" else None
    if optimum <= 1 or not _may_win_within(after, optimum - 1):
        return None
    res = solve(after, mode=Mode.DEAL, objective=Objective.TURNS_ONLY, max_turns=optimum - 1,
                max_nodes=FIRST_MOVE_NODES, timeout=SAFETY_SECONDS)
    return Status(res.status) if res.status in (Status.SOLVED, Status.UNKNOWN) else None


def _may_win_within(state: GameState, turns: int) -> bool:
    """False when the solver's admissible lower bound on the turns still
    needed from ``state`` (the relaxed game searched up to ``turns + 1``)
    is more than ``turns``. No clock: the answer depends on the position only."""
    model = Model(state, Mode.DEAL.value)
    h = Heuristic(model)
    if h.relaxed is not None:  # the safety net: a search cut short gives a weaker, still valid bound
        h.relaxed.deadline = time.perf_counter() + SAFETY_SECONDS
    return h.bounds(model.root_state(), turns + 1)[0] <= turns


def _paid(t: Turn) -> int:
    return sum(len(c.cards) for c in (t.command, t.second) if c is not None)


def measure(plan: Plan, optimum: int, *, first_moves: bool = True,
            careful_nodes: int = CAREFUL_NODES) -> Features:
    """The features of the puzzle whose optimal ``plan`` (from its start) has
    ``optimum`` turns. ``first_moves`` False leaves the first-move counts
    out (None): they take one solve per first move, most of the time spent."""
    turns = plan.turns
    commands = [c for t in turns for c in (t.command, t.second) if c is not None]
    boosts = longest = 0
    for log in plan.logs:
        run = 0
        for e in log:
            if isinstance(e, Entered):
                if e.met is SectorType.BOOST:
                    boosts += 1
                    run += 1
                    longest = max(longest, run)
                else:
                    run = 0
    moves = keep = unknown = None
    if first_moves:
        moves, keep, unknown = _first_moves(plan.start, optimum)
    careful = solve(worst_case(plan.start), mode=Mode.DEAL, objective=Objective.TURNS_ONLY,
                    max_nodes=careful_nodes, timeout=SAFETY_SECONDS)
    return Features(
        turns=optimum,
        cards=plan.figures.cards_played,
        first_moves=moves,
        first_moves_optimal=keep,
        first_moves_unknown=unknown,
        deep_scan=any(c.action.is_deep_scan for c in commands),
        wild_three=any(len(c.cards) >= 3 for c in commands),
        wild_card=any(pc.card == "W" for c in commands for pc in c.cards),
        bolster=any(t.bolster > 0 for t in turns),
        boosts=boosts,
        boost_chain=longest >= 2,
        second_pass=any(isinstance(e, Drew) and e.reshuffled for log in plan.logs for e in log),
        careful_turns=careful.turns if careful.status == Status.SOLVED else None,
        careful_status=str(careful.status),
    )


def grade(f: Features) -> tuple[str, int]:
    """The grade and its points (``grade_rule``: the length over 10 turns,
    14 cards or more, no careful route found)."""
    return grade_of(f.as_dict())
