"""The careful plan (``hints.careful_turn``, ``worlds.worst_case``): planned with
every unseen down side taken as Obstructed, it must win whatever the hidden
down sides really are."""

from __future__ import annotations

import random

import pytest

from sensor_ghosts.advisor.legacy import careful_turn
from sensor_ghosts.generators import generate_setup
from sensor_ghosts.rules.cards import SectorType
from sensor_ghosts.rules.engine import apply_turn
from sensor_ghosts.rules.observation import observe
from sensor_ghosts.rules.setup import Slot
from sensor_ghosts.rules.state import Status, initial_state
from sensor_ghosts.solver import solve
from sensor_ghosts.solver.worlds import WorldSampler, with_unseen_down_sides, worst_case


def test_worst_case_turns_only_unseen_down_sides():
    setup = generate_setup(seed=1000)
    world = WorldSampler(observe(initial_state(setup, setup.deal), 0)).sample(random.Random(1))
    worst = worst_case(world)
    for row_w, row_x in zip(world.grid, worst.grid, strict=True):
        for a, b in zip(row_w, row_x, strict=True):
            if not isinstance(a, Slot):
                assert a == b
                continue
            assert a.face == b.face and a.up == b.up and a.sample == b.sample
            if a.card.start or a.card.id in world.seen:
                assert b.card == a.card
            else:
                assert b.down is SectorType.OBSTRUCTED


# Seed 1's layout has a plan that enters only cards whose down side is known
# when the ship gets there (found in 0.3 s with its own deal).
@pytest.mark.parametrize("hidden", [None, SectorType.EMPTY, SectorType.ASTEROID, SectorType.BOOST])
def test_a_worst_case_plan_wins_whatever_the_hidden_sides(hidden):
    setup = generate_setup(seed=1)
    truth = initial_state(setup, setup.deal)
    res = solve(worst_case(truth), mode="deal", objective="turns-only", max_nodes=3000)
    assert res.status == "solved"
    state = truth if hidden is None else with_unseen_down_sides(truth, hidden)
    for turn in res.plan.turns:
        state = apply_turn(state, turn)
    assert state.outcome.status is Status.WON
    assert state.turn == res.turns  # the winning turn is the last one counted


def test_careful_turn_is_the_first_turn_of_such_a_plan_or_none():
    setup = generate_setup(seed=1)
    truth = initial_state(setup, setup.deal)
    first = careful_turn(truth, timeout=None)
    assert first is not None
    apply_turn(truth, first)  # legal in the real game
    # With no budget to search, no plan: the hint falls back to its screening.
    assert careful_turn(truth, timeout=None, max_nodes=1) is None


def test_the_hint_is_the_careful_plans_first_turn_when_there_is_one():
    from sensor_ghosts.advisor.legacy import hint

    setup = generate_setup(seed=1)
    obs = observe(initial_state(setup, setup.deal), 0)
    # hint() plans in its first sampled world: the same one, for the same seed.
    first_world = WorldSampler(obs).sample(random.Random(0))
    expected = careful_turn(first_world, timeout=None)
    assert expected is not None  # seed 1 has one from the dock
    h = hint(obs, budget=3.0, seed=0, worlds=4)  # the plan takes well under a second
    assert h.best == expected and "careful plan" in h.method
    plain = hint(obs, budget=0.5, seed=0, worlds=4, careful=False)
    assert "careful plan" not in plain.method
