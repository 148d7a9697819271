"""The fewest-turns A* first, then the card search (``plan_search.search_plan``):
solo deal mode, 'turns-only', where an A* that has not ended within
``ASTAR_FIRST_NODES`` nodes gives way to the card search. Both are exact,
so the answer is the A*'s own optimum."""

from __future__ import annotations

import pytest

from sensor_ghosts.generators import generate_setup
from sensor_ghosts.rules.options import RuleOptions
from sensor_ghosts.rules.state import initial_state
from sensor_ghosts.solver import plan_search, solve
from sensor_ghosts.solver.model import Model
from sensor_ghosts.solver.search import astar

LOW = RuleOptions(low_memory=True)


@pytest.mark.parametrize("seed", [25, 986])
def test_the_card_search_after_the_astar_finds_the_astars_optimum(seed: int) -> None:
    setup = generate_setup(seed, LOW)
    model = Model(initial_state(setup, setup.deal), "deal")
    alone = astar(model, model.search_roots(True), objective="turns-only", timeout=60)
    assert alone.status == "solved" and alone.value is not None
    assert alone.nodes > plan_search.ASTAR_FIRST_NODES  # (the A* alone does not end in time)
    r = solve(setup, mode="deal", objective="turns-only", timeout=60)
    assert r.status == "solved" and r.turns == alone.value[0]  # (its plan replayed in ``solve``)
    assert r.nodes != alone.nodes  # the card search answered


def test_a_quick_astar_answers_alone() -> None:
    setup = generate_setup(0, LOW)
    model = Model(initial_state(setup, setup.deal), "deal")
    alone = astar(model, model.search_roots(True), objective="turns-only", timeout=60)
    assert alone.nodes <= plan_search.ASTAR_FIRST_NODES
    r = solve(setup, mode="deal", objective="turns-only", timeout=60)
    assert (r.turns, r.nodes) == (alone.value[0], alone.nodes)
