"""Careful plans: routes that never enter a card whose down side the player has
not seen, solved in sampled worlds; when most worlds have one, the hint follows
them."""

from __future__ import annotations

import math
import time

from ..rules.errors import SensorGhostsError
from ..rules.observation import Observation
from ..rules.state import GameState
from ..rules.turns import Turn
from ..solver.api import solve
from ..solver.plan import Plan
from .answer import Hint, wilson
from .calibration import calibrated
from .commands import _effect
from .continuation import _timeout, near_careful

CAREFUL_SHARE = 0.5
"""Share of the budget for looking for careful plans."""
CAREFUL_WORLDS = 8
CAREFUL_SECONDS = 0.3


def careful_plans(
    ws: list[GameState], pool: dict[tuple, Turn], t0: float, deadline: float, budget: float | None
) -> list[tuple[int, Plan | None]]:
    """Careful plans (``near_careful`` over the whole grid: every unseen down side
    Obstructed) in the first worlds, within ``CAREFUL_SHARE`` of the budget."""
    until = t0 + CAREFUL_SHARE * (deadline - t0) if budget is not None else math.inf
    out: list[tuple[int, Plan | None]] = []
    for i, w in enumerate(ws[:CAREFUL_WORLDS]):
        if until - time.perf_counter() <= 0.01 and out:
            break
        found = sum(p is not None for _, p in out)
        if found * 2 + (CAREFUL_WORLDS - len(out)) * 2 < CAREFUL_WORLDS or (out and not found and len(out) >= 2):
            break  # careful routes cannot be the majority any more
        try:
            res = solve(near_careful(w, 7), mode="deal", objective="turns-only", max_nodes=4000,
                        timeout=_timeout(until, CAREFUL_SECONDS))
        except SensorGhostsError:
            continue
        out.append((i, res.plan if res.status == "solved" and res.plan and res.plan.turns else None))
    return out


def careful_hint(
    observation: Observation,
    ws: list[GameState],
    found: list[tuple[int, Plan]],
    tried: int,
    pool: dict[tuple, Turn],
    n_commands: int,
    t0: float,
) -> Hint:
    """Follow the careful plans: the first command most of them share (fewer
    turns breaking ties), with the re-scan of one of them."""
    votes: dict[tuple, list[tuple[int, Plan]]] = {}
    for i, plan in found:
        votes.setdefault(_effect(plan.turns[0]), []).append((i, plan))
    ranked = sorted(votes.values(), key=lambda v: (-len(v), min(len(p.turns) for _, p in v)))
    i, plan = min(ranked[0], key=lambda ip: (len(ip[1].turns), ip[0]))
    best = plan.turns[0]
    runner = ranked[1][0][1].turns[0] if len(ranked) > 1 else None
    raw = len(found) / tried
    low, high = wilson(len(found), tried)
    from .explain import explain

    win, low, high = calibrated(raw, True), calibrated(low, True), calibrated(high, True)
    note = (f"; a careful route of {len(plan.turns)} turns (it enters no unseen card) fits the "
            f"deck in {len(found)} of {tried} sampled worlds")
    if certain_win(observation, plan, raw):
        win = low = high = 1.0
        note = "; it reaches Earth now on cards already seen, with the samples held: a sure win"
    return Hint(
        best=best,
        win=win,
        low=low,
        high=high,
        worlds=tried,
        reason=explain(observation, best, runner) + note,
        rescans=[],
        runner_up=runner,
        candidates=len(votes),
        commands=n_commands,
        seconds=time.perf_counter() - t0,
        method="careful plans: solved exactly with every unseen down side taken as Obstructed, "
               "in sampled worlds (deck order, samples)",
        raw_win=raw,
        careful=True,
    )


def certain_win(observation: Observation, plan: Plan, raw: float) -> bool:
    """A careful plan of one turn found in every world tried wins for sure when
    the ship already holds the samples Earth asks for and there is no pod to
    wait for: it enters only cards whose down sides were seen, and the turn
    ends at Earth before anything is drawn. (With a sample still to pick up,
    or one spent on a bolster or a second action, a face-down token on the way
    might be a rock.)"""
    t = plan.turns[0] if len(plan.turns) == 1 else None
    return (raw == 1.0 and t is not None and t.bolster == 0 and t.second is None
            and observation.pod is None and observation.held >= observation.options.samples_to_win)
