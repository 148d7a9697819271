"""``continuation.plan_survival`` reads the cells a plan enters from the rules
engine's log (issue 34). Its values must be the ones the walk it replaced
gave: that walk is kept here as the reference, and both run on solver plans
from several seeds and rule variants, in the worlds they were found for."""

from __future__ import annotations

import random

from sensor_ghosts.advisor.continuation import near_careful, plan_survival, world_odds
from sensor_ghosts.generators import generate_setup
from sensor_ghosts.rules.cards import SectorType
from sensor_ghosts.rules.engine import apply_turn, legal_turns
from sensor_ghosts.rules.geometry import EARTH, on_grid
from sensor_ghosts.rules.log import Entered, Flew
from sensor_ghosts.rules.observation import observe
from sensor_ghosts.rules.options import RuleOptions
from sensor_ghosts.rules.setup import Slot
from sensor_ghosts.rules.turns import ActionKind
from sensor_ghosts.solver.api import solve
from sensor_ghosts.solver.plan import Plan
from sensor_ghosts.solver.worlds import WorldSampler, down_side_marginals

VARIANTS = (RuleOptions(), RuleOptions(players=2), RuleOptions(escape_pod=True),
            RuleOptions(second_action=True), RuleOptions(low_memory=True))


def _walked_survival(plan: Plan, odds: dict) -> tuple[float, int]:
    """The walk ``plan_survival`` did before it read the engine's log: the
    Fly cells stepped through one by one from the state before each command."""
    state = plan.start
    p, blind = 1.0, 0
    for turn in plan.turns:
        trace: list = []
        nxt = apply_turn(state, turn, trace)
        for cmd, before, after, _events in trace:
            a = cmd.action
            if a.kind is not ActionKind.FLY or a.direction is None:
                continue
            new = after.seen - before.seen
            if not new.intersection(odds):
                continue
            shields = before.shields
            pos = before.ship
            while True:
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


def _plans():
    """(plan, odds): plans the solver finds in sampled worlds of positions met
    along seeded random games, in the world itself (free to enter unseen
    cards: many blind entries and boost chains) and in its near-careful
    version (as the hint's continuation solves it), each replayed in the world."""
    for v, options in enumerate(VARIANTS):
        for seed in (7300 + 10 * v,):
            setup = generate_setup(seed=seed, options=options)
            state = apply_turn_randomly(setup, seed)
            obs = observe(state, state.active)
            marginals = down_side_marginals(obs)
            rng = random.Random(seed)
            for _ in range(1):
                world = WorldSampler(obs).sample(rng)
                odds = world_odds(world, marginals)
                for solved_in in (world, near_careful(world, 1)):
                    res = solve(solved_in, mode="deal", objective="turns-only", max_nodes=3000)
                    if res.plan is not None and res.plan.turns:
                        yield Plan(world, res.plan.turns, res.plan.deal), odds


def apply_turn_randomly(setup, seed: int, turns: int = 2):
    """The state after a few random turns that do not end the game."""
    from sensor_ghosts.rules.state import initial_state

    state = initial_state(setup, setup.deal, seed=seed)
    rng = random.Random(seed)
    for _ in range(turns):
        safe = [t for t in legal_turns(state) if not apply_turn(state, t).is_over]
        if not safe:
            break
        state = apply_turn(state, rng.choice(safe))
    return state


def test_plan_survival_reads_the_same_cells_as_the_old_walk():
    plans = blind = carried = 0
    for plan, odds in _plans():
        new = plan_survival(plan, odds)
        old = _walked_survival(plan, odds)
        assert new == old, (plan.to_text(), new, old)
        plans += 1
        blind += new[1] > 0
        carried += _carried_on(plan)
    # The comparison means something only if plans enter unseen cards and
    # cards a Boost carried the ship into.
    assert plans >= 6 and blind >= 6 and carried >= 10, (plans, blind, carried)


def _carried_on(plan: Plan) -> int:
    """Cards the plan enters carried on by a Boost (the plan need not win in
    its world, so its turns are played here rather than read from ``Plan.logs``)."""
    n, state = 0, plan.start
    for turn in plan.turns:
        log: list = []
        state = apply_turn(state, turn, log=log)
        boosted = False
        for e in log:
            if isinstance(e, Flew):
                boosted = False
            elif isinstance(e, Entered):
                n += boosted
                boosted = e.met is SectorType.BOOST
    return n
