"""A plan keeps the engine's account of each turn from its replay."""

from sensor_ghosts.generators import generate_setup
from sensor_ghosts.rules.engine import apply_turn
from sensor_ghosts.rules.log import Entered, GameEnded
from sensor_ghosts.solver.api import solve


def test_plan_logs_are_the_engines_logs_of_its_turns():
    for seed in (1, 2):
        plan = solve(generate_setup(seed), mode="deal", timeout=60).plan
        assert plan is not None
        states = plan.replay()
        assert len(plan.logs) == len(plan.turns) == len(states) - 1
        for before, turn, logged in zip(states[:-1], plan.turns, plan.logs, strict=True):
            log: list = []
            apply_turn(before, turn, log=log)
            assert log == logged
        assert any(isinstance(e, Entered) for e in plan.logs[0])
        assert isinstance(plan.logs[-1][-1], GameEnded)
