"""The continuation of a hint's look-ahead: a sampled world solved exactly with
the cards the player may not count on taken as Obstructed (``near_careful``),
and the chance that the plan found survives the unseen cards it still enters
(``plan_survival``)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from ..rules.cards import SectorCard, SectorType, Side
from ..rules.engine import apply_turn
from ..rules.errors import SensorGhostsError
from ..rules.geometry import EARTH, Pos, on_grid
from ..rules.setup import Slot
from ..rules.state import GameState, Status
from ..rules.turns import ActionKind
from ..solver.api import solve
from ..solver.plan import Plan

NEAR_ROWS = 1
"""Rows ahead of the ship (besides its own) whose unseen down sides the
continuation may not count on: the re-scan flips cards two rows ahead, so the
row ahead is met before a re-scan shows anything more of it."""
SOLVE_NODES = 800
"""Node budget of one continuation solve (a node is a turn expanded): a
near-careful position from the dock is solved in a few hundred."""
SOLVE_SECONDS = 0.12
"""Time cap of one continuation solve."""
TURN_WEIGHT = 0.004
"""A won world's score drops by this per turn its plan needs, so that among
equally safe commands the faster one is hinted (a win always outscores a loss)."""

def near_careful(world: GameState, near: int = NEAR_ROWS) -> GameState:
    """``world`` with every down side the players have not seen, in the ship's
    row and the ``near`` rows ahead of it, turned Obstructed (the worst a card
    can be to enter, §5); rows farther ahead keep the world's truth."""
    last = (world.ship_row if world.ship != EARTH else 7) + near
    grid = []
    for r, row in enumerate(world.grid, 1):
        if r > last:
            grid.append(row)
            continue
        cells = []
        for cell in row:
            if isinstance(cell, Slot) and not cell.card.start and cell.card.id not in world.seen:
                c = cell.card
                card = (
                    SectorCard(c.id, c.front, SectorType.OBSTRUCTED)
                    if cell.up is Side.FRONT
                    else SectorCard(c.id, SectorType.OBSTRUCTED, c.back)
                )
                cell = Slot(card, cell.up, cell.sample)
            cells.append(cell)
        grid.append(tuple(cells))
    return world.evolve(grid=tuple(grid))


@dataclass
class _Outcome:
    """One world's valuation of a candidate: the chance that a player who can
    not see this world's hidden cards wins along the best plan found."""

    chance: float
    turns: int | None  # turns to the win, this one included
    blind: int = 0
    """Unseen cards the plan enters (each a gamble at the card set's odds)."""

    @property
    def won(self) -> bool:
        return self.chance > 0

    @property
    def score(self) -> float:
        return self.chance * (1.0 - TURN_WEIGHT * (self.turns or 0))


SafeOdds = dict[int, dict[str, float]]
"""Card id (in one world) -> the down side's odds as the player knows them now."""


def plan_survival(plan: Plan, odds: SafeOdds) -> tuple[float, int]:
    """The chance that the plan's route survives for a player who does not know
    this world: the product, over the cards the plan enters while their down
    side is unseen (by then: a peek, flip or re-scan on the way counts), of the
    odds that the side met is not fatal there (an Asteroid is survived at 2
    shields; a Boost only where the next cell can be entered)."""
    state = plan.start
    p, blind = 1.0, 0
    for turn in plan.turns:
        trace: list = []
        nxt = apply_turn(state, turn, trace)
        for cmd, before, after in trace:
            a = cmd.action
            if a.kind is not ActionKind.FLY or a.direction is None:
                continue
            new = after.seen - before.seen
            if not new.intersection(odds):
                continue
            shields = before.shields
            pos = before.ship
            while True:  # walk the cells entered, in order
                pos = a.direction.step(pos)
                cell = before.cell(pos) if on_grid(pos) else None
                if not isinstance(cell, Slot):
                    break
                cid = cell.card.id
                m = odds.get(cid) if cid in new else None
                if m is not None:
                    blind += 1
                    nxt_cell = a.direction.step(pos)
                    boost_ok = nxt_cell == EARTH or (on_grid(nxt_cell) and isinstance(before.cell(nxt_cell), Slot))
                    safe = (m.get("E", 0.0) + (m.get("B", 0.0) if boost_ok else 0.0)
                            + (m.get("A", 0.0) if shields == 2 else 0.0))
                    p *= safe
                met = after.cell(pos)
                if isinstance(met, Slot) and met.face is SectorType.ASTEROID:
                    shields = 0
                if pos == after.ship:
                    break
        state = nxt
    return p, blind


CONTINUATION_ROWS = (3, 1)
"""The ``near_careful`` worlds solved for a continuation, in this order: a
plan that must see three rows ahead gambles less, one that must see one row
ahead fits the deck more often."""


def continuation(state: GameState, odds: SafeOdds, *, deadline: float,
                 nodes: int = SOLVE_NODES) -> _Outcome:
    """The best chance found from ``state`` (a world at the start of a turn).

    Plans solved exactly in ``near_careful`` versions of this world (the cards
    they may not count on taken as Obstructed), each valued by
    ``plan_survival``: the chance that its route survives the unseen cards it
    still enters. The better one counts; a plan that enters no unseen card
    is the best there is."""
    if state.is_over:
        return _Outcome(float(state.outcome.status is Status.WON), 0)
    best = _Outcome(0.0, None)
    for rows in CONTINUATION_ROWS:
        try:
            res = solve(near_careful(state, rows), mode="deal", objective="turns-only",
                        max_nodes=nodes, timeout=_timeout(deadline, SOLVE_SECONDS))
        except SensorGhostsError:
            continue
        if res.status != "solved" or res.plan is None:
            continue
        plan = Plan(state, res.plan.turns, res.plan.deal, objective=res.plan.objective)
        chance, blind = plan_survival(plan, odds)
        out = _Outcome(chance, res.turns, blind)
        if out.score > best.score:
            best = out
        break  # the first plan found stands: time is for more worlds
    return best


def world_odds(world: GameState, marginals: dict[Pos, dict[str, float]]) -> SafeOdds:
    """``down_side_marginals`` (by position, as the player sees the table now)
    keyed by the card ids of one world."""
    out: SafeOdds = {}
    for pos, m in marginals.items():
        cell = world.cell(pos)
        if isinstance(cell, Slot):
            out[cell.card.id] = m
    return out


def _timeout(deadline: float, cap: float) -> float | None:
    """A solve's time limit: ``cap`` or what is left; none without a budget
    (then node limits alone bound the work, and the answer is deterministic)."""
    if deadline == math.inf:
        return None
    return max(0.005, min(cap, deadline - time.perf_counter()))
