"""Time a printable booklet: N puzzles, then N solution pages (RULES.md setups).

    python benchmarks/render.py                 # 100 puzzles + 100 solution pages
    python benchmarks/render.py --count 20 --solutions solver

Solutions: ``solver`` asks ``sensor_ghosts.solver.solve`` (solving time is
reported apart and not counted as rendering; the plan's pass through the
engine for its states and logs is counted); ``replay`` (default) draws a
12-turn line of legal turns chosen at random, played through the rules engine
beforehand (not counted); ``none`` gives puzzles only.
Prints total time, per-page median / p95 / max, and the command line.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sensor_ghosts.puzzles import solution_line, solution_of, solve_instance  # noqa: E402
from sensor_ghosts.render import setup_page, solution_page  # noqa: E402
from sensor_ghosts.render.pdf import pdf_bytes  # noqa: E402
from sensor_ghosts.rules.setup import Setup  # noqa: E402


def make_setups(n: int) -> list[Setup]:
    try:
        from sensor_ghosts.generators import generate_setup

        return [generate_setup(seed=i) for i in range(1, n + 1)]
    except ImportError:  # no generator: the tests' quick shuffle
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
        from dataclasses import replace

        from factories import quick_setup

        return [replace(quick_setup(i), id=f"quick-{i}") for i in range(1, n + 1)]


def random_line(setup: Setup, rng: random.Random, turns: int = 12):
    from sensor_ghosts.rules.engine import apply_turn, legal_turns
    from sensor_ghosts.rules.state import initial_state

    state = initial_state(setup, seed=rng.randrange(1 << 30))
    states, line = [state], []
    while len(line) < turns and not state.is_over:
        options = legal_turns(state)
        rng.shuffle(options)
        # prefer a turn that keeps the game going (look at a few only: it is cheap)
        nxt = [(t, apply_turn(state, t)) for t in options[:8]]
        t, state = next(((t, s) for t, s in nxt if not s.is_over), nxt[0])
        line.append(t)
        states.append(state)
    return states, line


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--solutions", choices=["replay", "solver", "none"], default="replay")
    ap.add_argument("--out", default=None, help="keep the PDF here (default: a temporary file)")
    args = ap.parse_args()

    setups = make_setups(args.count)
    jobs = [("puzzle", lambda s=s, i=i: setup_page(s, hide_down=True, title=f"Puzzle {i}")) for i, s in enumerate(setups, 1)]
    prep = 0.0
    if args.solutions == "solver":
        t0 = time.perf_counter()
        plans = [solve_instance(s).plan for s in setups]
        prep = time.perf_counter() - t0
        jobs += [("solution", lambda p=p: solution_page(solution_of(p))) for p in plans if p]
    elif args.solutions == "replay":
        rng = random.Random(1)
        t0 = time.perf_counter()
        lines = [solution_line(st[0], ln) for st, ln in (random_line(s, rng) for s in setups)]
        prep = time.perf_counter() - t0
        jobs += [("solution", lambda sol=sol: solution_page(sol)) for sol in lines]

    times: dict[str, list[float]] = {"puzzle": [], "solution": []}

    def pages():
        # Each page is built, then painted by the PDF writer before the next one is
        # asked for: the time between two requests is one page's whole cost.
        for kind, build in jobs:
            t = time.perf_counter()
            yield build()
            times[kind].append(time.perf_counter() - t)

    t0 = time.perf_counter()
    data = pdf_bytes(pages())
    total = time.perf_counter() - t0
    out = Path(args.out) if args.out else Path(tempfile.gettempdir()) / "sensor-ghosts-bench-booklet.pdf"
    out.write_bytes(data)

    every = times["puzzle"] + times["solution"]
    print(f"command: python benchmarks/render.py {' '.join(sys.argv[1:])}".rstrip())
    print(f"booklet: {len(every)} pages ({len(times['puzzle'])} puzzles, {len(times['solution'])} solutions), "
          f"{len(data) / 1e6:.1f} MB -> {out}")
    print(f"total render + write: {total:.2f} s (one process, one core)")
    if prep:
        print(f"(not counted: preparing the {args.solutions} lines took {prep:.1f} s)")
    for kind, ts in [("all pages", every), *times.items()]:
        if not ts:
            continue
        ts = sorted(ts)
        p95 = ts[min(len(ts) - 1, int(round(0.95 * (len(ts) - 1))))]
        print(f"{kind:>10}: median {statistics.median(ts) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms, "
              f"max {ts[-1] * 1000:.1f} ms")


if __name__ == "__main__":
    main()
