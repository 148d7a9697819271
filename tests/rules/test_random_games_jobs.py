"""``benchmarks/random_games.py --jobs``: the counts do not depend on how the
games are shared among worker processes."""

from __future__ import annotations

import importlib.util
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

_path = Path(__file__).resolve().parents[2] / "benchmarks" / "random_games.py"
_spec = importlib.util.spec_from_file_location("_sg_random_games_jobs", _path)
random_games = importlib.util.module_from_spec(_spec)
# Known by name, so that its functions can be sent to the (forked) workers.
sys.modules[_spec.name] = random_games
_spec.loader.exec_module(random_games)


def _fields(c):
    return (c.games, c.turns, c.crashes, c.invariants, c.round_trips, c.examples)


def test_merged_counts_keep_the_first_examples_in_game_order():
    a, b = random_games.Counts(), random_games.Counts()
    a.games, a.turns, a.crashes = 2, 30, 1
    b.games, b.turns, b.round_trips = 3, 40, 2
    for i in range(4):
        a.note("crash", f"a{i}")
        b.note("round trip", f"b{i}")
    a.merge(b)
    assert (a.games, a.turns, a.crashes, a.round_trips) == (5, 70, 1, 2)
    assert a.examples == ["crash: a0", "crash: a1", "crash: a2", "crash: a3", "round trip: b0"]


def test_two_workers_count_what_one_process_counts():
    seeds = range(3, 9)
    alone = random_games.run_variant("2p", seeds, None, None, 1)
    with ProcessPoolExecutor(2) as pool:
        shared = random_games.run_variant("2p", seeds, None, pool, 2)
    assert alone.games == 6 and alone.turns > 20
    assert _fields(shared) == _fields(alone)
