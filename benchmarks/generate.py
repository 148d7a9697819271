"""Benchmark of the setup generator (issue 3).

Run: ``python benchmarks/generate.py`` (``--n N`` setups per measurement,
``--deals D`` deals for the swap distribution). Prints setups/second for plain
generation and per constraint kind, growth with the number of constraints, the
distribution of swaps needed by a deal ([D7]), the CP-SAT backend's cost, and
per-setup time percentiles. Single process, one core.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sensor_ghosts.generators import (  # noqa: E402
    NO_SAMPLE_ON_OBSTRUCTED,
    REMOVE_ONLY_ASTEROIDS,
    SAMPLES_REACHABLE,
    UnsafeDealError,
    generate_setup,
    predicate,
    sample_cells,
)
from sensor_ghosts.generators.deal import deal_cards  # noqa: E402
from sensor_ghosts.generators.row_safety import min_swaps, optimal_swap_plans  # noqa: E402
from sensor_ghosts.rules.cards import SectorCardSet  # noqa: E402


def timed(n: int, **kwargs) -> tuple[float, list[float]]:
    times = []
    t0 = time.perf_counter()
    for seed in range(n):
        t = time.perf_counter()
        generate_setup(seed, **kwargs)
        times.append(time.perf_counter() - t)
    return n / (time.perf_counter() - t0), times


def pct(times: list[float], q: float) -> float:
    s = sorted(times)
    return s[min(len(s) - 1, int(q * len(s)))]


def fmt_times(times: list[float]) -> str:
    return (
        f"median {statistics.median(times) * 1e3:.3f} ms, p95 {pct(times, 0.95) * 1e3:.3f} ms, "
        f"max {max(times) * 1e3:.3f} ms"
    )


def swap_distribution(cards: SectorCardSet, deals: int) -> tuple[Counter, int]:
    dist: Counter = Counter()
    unsafe = 0
    for seed in range(deals):
        g = deal_cards(random.Random(seed), cards)
        try:
            dist[min_swaps(g)] += 1
        except UnsafeDealError:
            unsafe += 1
    return dist, unsafe


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=5000, help="setups per measurement")
    ap.add_argument("--deals", type=int, default=100000, help="deals for the swap distribution")
    a = ap.parse_args()
    n = a.n

    print("# sensor-ghosts setup generator benchmark")
    print(f"command: python benchmarks/generate.py --n {a.n} --deals {a.deals}")
    print(
        f"python {platform.python_version()} on {platform.machine()} ({platform.system()}), 1 process"
    )
    print()

    generate_setup(0)  # warm caches (card sets)
    rate, times = timed(n)
    print(f"plain generation: {rate:,.0f} setups/s  ({fmt_times(times)}, n={n})")

    print()
    print("per constraint kind (setups/s, per-setup times):")
    cols12 = sample_cells(lambda g, p: p[1] <= 2, "cols12")
    distinct = predicate(lambda g, s, r: len({c for _, c in s}) >= 4, "4-distinct-cols")
    kinds = [
        ("no-o-sample (per-cell sample)", [NO_SAMPLE_ON_OBSTRUCTED]),
        ("remove-only-a (per-cell removal)", [REMOVE_ONLY_ASTEROIDS]),
        ("reachable (whole choice)", [SAMPLES_REACHABLE]),
        ("custom sample_cells: cols 1-2", [cols12]),
        ("custom predicate: >=4 sample columns", [distinct]),
    ]
    m = max(200, n // 5)
    for label, cons in kinds:
        rate, times = timed(m, constraints=cons)
        print(f"  {label:40s} {rate:9,.0f}/s  {fmt_times(times)}")

    print()
    print("growth with the number of extra constraints (added in this order):")
    stack = [
        NO_SAMPLE_ON_OBSTRUCTED,
        REMOVE_ONLY_ASTEROIDS,
        SAMPLES_REACHABLE,
        predicate(lambda g, s, r: True, "true-1"),
        predicate(lambda g, s, r: True, "true-2"),
        predicate(lambda g, s, r: True, "true-3"),
    ]
    for k in range(len(stack) + 1):
        rate, times = timed(m, constraints=stack[:k])
        names = ", ".join(c.name for c in stack[:k]) or "none"
        print(
            f"  {k} constraint(s) [{names}]: {rate:,.0f}/s, median {statistics.median(times) * 1e3:.3f} ms"
        )

    print()
    print(f"swaps needed by a deal (default card set, {a.deals:,} deals):")
    dist, unsafe = swap_distribution(SectorCardSet.default(), a.deals)
    for k in sorted(dist):
        print(f"  {k} swap(s): {dist[k]:7d}  ({dist[k] / a.deals:.3%})")
    print(f"  not makeable safe: {unsafe} ({unsafe / a.deals:.3%})")
    sparse_lines = [f"{i + 1} {f}/A" for i, f in enumerate("E" * 4 + "B" * 2 + "A" * 15 + "O" * 12)]
    sparse = SectorCardSet.parse("\n".join(sparse_lines), name="sparse-6")
    dist2, unsafe2 = swap_distribution(sparse, a.deals // 10)
    print(
        f"  (a set with only 6 E/B fronts, {a.deals // 10:,} deals: "
        + ", ".join(f"{k}: {v}" for k, v in sorted(dist2.items()))
        + f"; not makeable safe: {unsafe2})"
    )
    print("  note: with >= 6 E/B fronts every deal can be made safe in exactly as many swaps as")
    print("  it has unsafe rows; with < 6 none can ([D7], see row_safety.py).")

    print()
    print("row-safety backends on unsafe deals (all optimal plans):")
    unsafe_deals = []
    for seed in range(20000):
        g = deal_cards(random.Random(seed), SectorCardSet.default())
        if min_swaps(g):
            unsafe_deals.append(g)
        if len(unsafe_deals) == 30:
            break
    for backend in ("python", "cpsat"):
        t = time.perf_counter()
        for g in unsafe_deals:
            optimal_swap_plans(g, backend=backend)
        dt = (time.perf_counter() - t) / len(unsafe_deals)
        print(f"  {backend:6s}: {dt * 1e3:8.2f} ms per unsafe deal")
    rate, times = timed(60, backend="constraint", constraints=[cols12])
    print(
        f"  generate_setup(backend='constraint', cols 1-2): {rate:,.1f} setups/s ({fmt_times(times)})"
    )


if __name__ == "__main__":
    main()
