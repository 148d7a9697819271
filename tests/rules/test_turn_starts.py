"""``turn_starts``: the turns' starts before the draw, each once, exactly those
of ``legal_turns`` with the re-scan left out."""

import random

import pytest

from sensor_ghosts.generators import generate_setup
from sensor_ghosts.rules.engine import apply_turn, legal_turns, turn_starts
from sensor_ghosts.rules.options import RuleOptions
from sensor_ghosts.rules.state import initial_state
from sensor_ghosts.rules.turns import Turn

VARIANTS = {
    "solo": RuleOptions(),
    "3p": RuleOptions(players=3),
    "second action": RuleOptions(players=2).with_flags(["second-action", "escape-pod"]),
    "pod once a turn": RuleOptions(players=2).with_flags(["escape-pod", "second-action", "pod-once-per-turn"]),
}


@pytest.mark.parametrize("name", list(VARIANTS))
def test_turn_starts_are_the_legal_turns_without_their_rescans(name):
    rng = random.Random(11)
    checked = 0
    for seed in range(10):
        state = initial_state(generate_setup(seed, VARIANTS[name]))
        while not state.is_over and checked < 25:
            turns = legal_turns(state)
            want = {(t.bolster, t.command, t.second) for t in turns}
            starts = turn_starts(state)
            got = [(t.bolster, t.command, t.second) for t in starts]
            assert len(got) == len(set(got)) and set(got) == want
            assert all(isinstance(t, Turn) and not t.rescan for t in starts)
            checked += 1
            state = apply_turn(state, rng.choice(turns))
    assert checked >= 25


def test_turn_starts_of_a_finished_game_are_none():
    state = initial_state(generate_setup(0, RuleOptions()))
    while not state.is_over:
        state = apply_turn(state, legal_turns(state)[0])
    assert turn_starts(state) == []
