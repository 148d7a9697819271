"""A small sample of ``benchmarks/random_games.py`` (issue 33): random games of
every variant, invariants after every turn and a text and JSON round trip of
every state. The benchmark runs 10,000 games per variant."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_path = Path(__file__).resolve().parents[2] / "benchmarks" / "random_games.py"
_spec = importlib.util.spec_from_file_location("_sg_random_games", _path)
random_games = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(random_games)


@pytest.mark.parametrize("variant", sorted(random_games.VARIANTS))
def test_random_games_keep_invariants_and_round_trip(variant):
    counts = random_games.Counts()
    for seed in range(5):
        random_games.play_one(seed, random_games.VARIANTS[variant], counts)
    assert counts.games == 5 and counts.turns > 20
    assert (counts.crashes, counts.invariants, counts.round_trips) == (0, 0, 0), counts.examples


def test_the_checks_can_fail():
    # A state that lost its rocks found is a round-trip difference, and a
    # broken invariant is counted as one: the benchmark's counters are live.
    from sensor_ghosts.generators import generate_setup
    from sensor_ghosts.rules.state import initial_state

    counts = random_games.Counts()
    state = initial_state(generate_setup(3))
    random_games._check_state(state.evolve(shields=5), counts)
    assert counts.invariants == 1


def test_random_two_action_turns_keep_the_pod_for_the_last_action():
    """Under 'pod-once-per-turn' a random turn of two actions leaves the pod's
    direction to the second (game 4706 of the 10,000 once drew one the
    engine rightly refused)."""
    counts = random_games.Counts()
    random_games.play_one(4706, random_games.VARIANTS["pod-once-per-turn"], counts)
    assert counts.crashes == 0, counts.examples
