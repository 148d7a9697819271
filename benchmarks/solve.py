"""Solver benchmark: times, peak memory, winnable fractions, optimal turns.

    python benchmarks/solve.py [--n 200] [--timeout 2] [--modes deal,open,expected]
                               [--variants solo,4p,pod,near] [--cross-check N]
                               [--cross-check-variants N] [--objective turns|cards|turns-only]

Instances: seeded standard solo setups from ``generators.generate_setup`` (with
their deal), 4-player and escape-pod setups reported separately, and seeded
mid-game "near Earth" states (tests/solver/instances.py). ``--cross-check N``
compares the solver with the engine brute force (``solver.reference``) on N
near-Earth instances at horizon 2 and reports disagreements;
``--cross-check-variants N`` does the same for every rule variant of the tests
on N instances each. Before and after each table a speed probe prints the
best of five solves of one fixed setup: the machine's speed at that moment.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "solver"))

from sensor_ghosts.rules.options import RuleOptions  # noqa: E402
from sensor_ghosts.solver import solve  # noqa: E402


def _setups(kind: str, n: int) -> list:
    try:
        from sensor_ghosts.generators.generate import generate_setup
    except ImportError:  # pragma: no cover - before the generator lands
        generate_setup = None
    opts = {"solo": RuleOptions(), "4p": RuleOptions(players=4), "pod": RuleOptions(escape_pod=True)}
    if kind == "near":
        from instances import near_earth

        return [near_earth(i) for i in range(n)]
    out = []
    for seed in range(n):
        if generate_setup is not None:
            out.append(generate_setup(seed=seed, options=opts[kind]))
        else:
            from instances import quick_setup

            out.append(quick_setup(seed, opts[kind]))
    return out


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def run(kind: str, mode: str, n: int, timeout: float, objective: str = "turns") -> None:
    insts = _setups(kind, n)
    times, turns, statuses = [], Counter(), Counter()
    by_turns: dict[int, list[float]] = {}
    replayed = 0
    probs = []
    brackets = []  # expected mode, not settled: (lower, upper)
    settled_times = []  # expected mode: time to an exact probability
    for inst in insts:
        t0 = time.perf_counter()
        try:
            r = solve(inst, mode=mode, timeout=timeout, max_states=1_500_000, progress=lambda _i: None,
                      objective=objective)
        except Exception as e:  # report and go on
            statuses[f"error {type(e).__name__}"] += 1
            continue
        times.append(time.perf_counter() - t0)
        statuses[r.status] += 1
        if r.plan is not None:
            replayed += 1  # solve() replays every plan before returning it
            turns[r.turns] += 1
            by_turns.setdefault(r.turns, []).append(times[-1])
        if r.win_probability is not None:
            probs.append(r.win_probability)
            settled_times.append(times[-1])
        elif r.lower is not None:
            brackets.append((r.lower, r.upper))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    known = statuses["solved"] + statuses["unsolvable"]
    print(f"\n## {kind} / {mode} / objective {objective}: {len(insts)} instances, timeout {timeout}s")
    if times:
        print(f"time  median {statistics.median(times) * 1000:.0f} ms   p95 {_pct(times, 0.95) * 1000:.0f} ms"
              f"   max {max(times) * 1000:.0f} ms   (unknowns count at their timeout)")
    print(f"peak RSS so far {rss:.0f} MB")
    print("status  " + ", ".join(f"{k} {v}" for k, v in sorted(statuses.items())))
    if known:
        print(f"winnable {statuses['solved']}/{known} of the decided ({statuses['solved'] / known:.0%}); "
              f"{statuses['unknown']} unknown")
    if turns:
        print("optimal turns  " + ", ".join(f"{t}: {c}" for t, c in sorted(turns.items())))
        print(f"plans replayed {replayed}/{statuses['solved']}")
        # Growth with the size of the answer: solved instances by optimal turns.
        print("median time by optimal turns  " + ", ".join(
            f"{t}: {statistics.median(v) * 1000:.0f} ms (n={len(v)})" for t, v in sorted(by_turns.items())))
    if probs:
        print(f"win probability (exact ones) median {statistics.median(probs):.3f}: "
              + ", ".join(f"{p:g}: {c}" for p, c in sorted(Counter(round(p, 6) for p in probs).items()))
              + f"; time to them median {statistics.median(settled_times) * 1000:.0f} ms, "
              f"max {max(settled_times) * 1000:.0f} ms")
    if brackets:
        lows = [lo for lo, _ in brackets]
        print(f"not settled {len(brackets)}: lower bound median {statistics.median(lows):.4f}, "
              f"min {min(lows):.4f}; upper bound median {statistics.median(hi for _, hi in brackets):.4f}")


def warm_up() -> None:
    """Load the compiled relaxed-game kernel (Numba's cache; a compile after a
    change) before anything is timed: a once-per-process cost, printed apart."""
    from sensor_ghosts.generators.generate import generate_setup

    t0 = time.perf_counter()
    solve(generate_setup(seed=3), mode="deal", objective="turns-only", progress=lambda _i: None)
    print(f"warm-up (loads the compiled kernel once per process): {time.perf_counter() - t0:.2f} s")


def speed_probe() -> float:
    """The machine's speed at the moment: the best of five full solves of one
    fixed setup (seed 3, deal mode). This machine runs the same code up to
    half again slower for seconds to minutes at a time, with nothing else
    running; the probe, printed before and after each table, says what kind
    of time a table's figures come from."""
    from sensor_ghosts.generators.generate import generate_setup

    setup = generate_setup(seed=3)
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        solve(setup, mode="deal", progress=lambda _i: None)
        best = min(best, time.perf_counter() - t0)
    return best


def _probe_line() -> str:
    return f"speed probe (seed 3, deal mode, best of 5 solves): {speed_probe() * 1000:.1f} ms"


def _agrees(st, horizon: int) -> tuple[bool, object, object]:
    """The solver's optimum (turns, cards, cards left) against the engine brute
    force's, within ``horizon`` turns."""
    from sensor_ghosts.solver.reference import reference_solve

    ref = reference_solve(st, horizon)
    r = solve(st, mode="deal", max_turns=horizon, max_nodes=50000, progress=lambda _i: None)
    mine = (r.turns, r.cards, r.plan.figures.cards_left) if r.status == "solved" else None
    return r.status != "unknown" and mine == ref, mine, ref


def cross_check(n: int) -> None:
    from instances import near_earth

    bad = agree = 0
    t0 = time.perf_counter()
    for seed in range(n):
        ok, mine, ref = _agrees(near_earth(seed), 2)
        if ok:
            agree += 1
        else:
            bad += 1
            print(f"  DISAGREE seed {seed}: solver {mine} reference {ref}", flush=True)
        if (seed + 1) % 10 == 0:
            print(f"  {seed + 1}/{n}: {agree} agree, {bad} disagree ({time.perf_counter() - t0:.0f}s)", flush=True)
    print(f"\n## cross-check (engine brute force, horizon 2): {agree}/{n} agree, {bad} disagree "
          f"({time.perf_counter() - t0:.0f}s)")


def cross_check_variants(n: int) -> None:
    """Every rule variant of the tests on ``n`` near-Earth instances each (rows
    5-7 solo at horizon 2; rows 6-7 at horizon 1 with more players, where the
    brute force enumerates every helper's card)."""
    from instances import VARIANTS, near_earth

    bad = agree = 0
    t0 = time.perf_counter()
    for name, opts in sorted(VARIANTS.items()):
        solo = opts.players == 1
        for seed in range(n):
            st = near_earth(200 + seed, opts, rows=(5, 6, 7) if solo else (6, 7))
            ok, mine, ref = _agrees(st, 2 if solo else 1)
            if ok:
                agree += 1
            else:
                bad += 1
                print(f"  DISAGREE {name} seed {200 + seed}: solver {mine} reference {ref}", flush=True)
        print(f"  {name}: done ({time.perf_counter() - t0:.0f}s)", flush=True)
    print(f"\n## cross-check of the variants (engine brute force): {agree}/{agree + bad} agree, "
          f"{bad} disagree ({time.perf_counter() - t0:.0f}s)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--n-variants", type=int, default=20)
    ap.add_argument("--timeout", type=float, default=2.0)
    ap.add_argument("--modes", default="deal,open,expected")
    ap.add_argument("--variants", default="solo,4p,pod,near")
    ap.add_argument("--cross-check", type=int, default=0)
    ap.add_argument("--cross-check-variants", type=int, default=0)
    ap.add_argument("--objective", default="turns", choices=["turns", "cards", "turns-only"],
                    help="turns-only: fewest turns without the card proof (what verify answers)")
    a = ap.parse_args()
    # A typo in a list option gets a message naming it, not a traceback halfway through.
    for flag, given, known in (("--variants", a.variants, ("solo", "4p", "pod", "near")),
                               ("--modes", a.modes, ("deal", "open", "expected"))):
        unknown = [x for x in given.split(",") if x not in known]
        if unknown:
            ap.error(f"{flag}: unknown {', '.join(map(repr, unknown))}; choose from {', '.join(known)}")
    print("command: python " + " ".join(sys.argv))
    warm_up()
    for kind in a.variants.split(","):
        for mode in a.modes.split(","):
            n = a.n if kind in ("solo", "near") else a.n_variants
            print(_probe_line())
            run(kind, mode, n, a.timeout, a.objective)
    print(_probe_line())
    if a.cross_check:
        cross_check(a.cross_check)
    if a.cross_check_variants:
        cross_check_variants(a.cross_check_variants)


if __name__ == "__main__":
    main()
