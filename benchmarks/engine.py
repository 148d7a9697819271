"""Rules-engine throughput over seeded random playouts.

    python benchmarks/engine.py [--games N] [--seed S]

For solo and 4-player games (standard difficulty, no variant): legal-turn
generation throughput (turns generated per second), apply-turn throughput
(turns applied per second, applying every enumerated turn of a sample of
states), and the median / p95 / max time to generate all legal turns of one
state. Playouts pick a uniformly random legal turn, preferring one that does not
lose at once, so games last into the second pass.
"""

from __future__ import annotations

import argparse
import pathlib
import platform
import random
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sensor_ghosts.rules.engine import apply_turn, legal_turns  # noqa: E402
from sensor_ghosts.rules.options import RuleOptions  # noqa: E402
from sensor_ghosts.rules.state import Status, initial_state  # noqa: E402
from tests.factories import quick_setup  # noqa: E402


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def run(players: int, games: int, seed: int, apply_every: int) -> dict:
    options = RuleOptions(players=players)
    gen_times: list[float] = []
    generated = 0
    applied = 0
    apply_time = 0.0
    states = 0
    for g in range(games):
        rng = random.Random(seed + g)
        s = initial_state(quick_setup(seed + g, options), seed=seed + g)
        while not s.is_over:
            t0 = time.perf_counter()
            turns = legal_turns(s)
            gen_times.append(time.perf_counter() - t0)
            generated += len(turns)
            states += 1
            if states % apply_every == 0:
                t0 = time.perf_counter()
                for t in turns:
                    apply_turn(s, t)
                apply_time += time.perf_counter() - t0
                applied += len(turns)
            rng.shuffle(turns)
            nxt = None
            for t in turns[:8]:
                cand = apply_turn(s, t)
                if cand.outcome.status is not Status.LOST:
                    nxt = cand
                    break
            s = nxt or apply_turn(s, turns[0])
    total_gen = sum(gen_times)
    return {
        "players": players,
        "games": games,
        "states": states,
        "turns generated": generated,
        "gen turns/s": generated / total_gen,
        "gen median ms": 1000 * statistics.median(gen_times),
        "gen p95 ms": 1000 * pct(gen_times, 0.95),
        "gen max ms": 1000 * max(gen_times),
        "turns applied": applied,
        "apply turns/s": applied / apply_time if apply_time else float("nan"),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--apply-every", type=int, default=5, help="apply every enumerated turn of 1 state in N")
    a = ap.parse_args()
    print(f"command: python benchmarks/engine.py --games {a.games} --seed {a.seed} --apply-every {a.apply_every}")
    print(f"python {platform.python_version()} on {platform.machine()} ({platform.processor() or 'cpu'})")
    for players in (1, 4):
        r = run(players, a.games, a.seed, a.apply_every)
        print(
            f"{players} player(s): {r['games']} games, {r['states']} states, "
            f"{r['turns generated']} turns generated at {r['gen turns/s']:,.0f} turns/s; "
            f"per-state generation median {r['gen median ms']:.2f} ms, p95 {r['gen p95 ms']:.2f} ms, "
            f"max {r['gen max ms']:.2f} ms; {r['turns applied']} turns applied at {r['apply turns/s']:,.0f} turns/s"
        )


if __name__ == "__main__":
    main()
