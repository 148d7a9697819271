"""The solver's worst case (issue 37): every seed of a range, every variant,
deal and open mode, fewest turns and the full objective.

    python benchmarks/worst_case.py [--variants standard,advanced,...] [--seeds 1000]
        [--standard-seeds 10000] [--modes deal,open] [--objectives turns-only,turns]
        [--timeout 10] [--workers 2 | --scheduler ADDRESS] [--jsonl runs.jsonl]
    python benchmarks/worst_case.py --variants standard --standard-seeds 200 --modes expected

Each (variant, seed, mode, objective) is one task on Dask distributed (a local
cluster of ``--workers`` processes, or the cluster at ``--scheduler``): the
worker generates the setup and solves it with ``--timeout`` seconds. The time
of a solve is the worker's CPU time for it (``time.process_time``), the
figure that does not grow with the other work on the machine; the wall time is
kept beside it. With ``--jsonl`` each result is appended as it arrives and a
later run skips what the file holds (resume; the same file is also the data
for the tables). Prints, per variant, mode and objective: the count settled
(solved or unsolvable), unsettled and failed (an exception in the solver,
listed with its message: a bug), the winnable share, the distribution of
CPU seconds (median, p95, p99, max), every seed over ``--slow`` seconds with
its time, and every unsettled seed; then the optimal turns' distribution per
variant (deal mode, fewest turns). In expected mode (``--modes expected``)
a solve is the best chance to win with random draws: the table counts the
exact answers (at 1, at 0, between) and the others' bounds.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# name -> generate options (the list; "standard" is standard solo).
VARIANTS: dict[str, dict[str, Any]] = {
    "standard": {},
    "introductory": {"difficulty": "introductory"},
    "advanced": {"difficulty": "advanced"},
    "2p": {"players": 2},
    "3p": {"players": 3},
    "4p": {"players": 4},
    "pod": {"escape_pod": True},
    "lowmem": {"low_memory": True},
    "second-action": {"flags": ["second-action"]},
    "two-samples": {"flags": ["two-samples"]},
}


def _options(variant: str) -> Any:
    from sensor_ghosts.rules.options import Difficulty, RuleOptions

    spec = dict(VARIANTS[variant])
    flags = spec.pop("flags", [])
    if "difficulty" in spec:
        spec["difficulty"] = Difficulty(spec["difficulty"])
    opts = RuleOptions(**spec)
    return opts.with_flags(flags) if flags else opts


def solve_one(variant: str, seed: int, mode: str, objective: str, timeout: float) -> dict[str, Any]:
    """One task: a plain dict, the same whichever worker runs it (but the
    times, and a solve that needs about ``timeout`` may settle on one run and
    not on another)."""
    from sensor_ghosts.generators import generate_setup
    from sensor_ghosts.rules.state import initial_state
    from sensor_ghosts.solver import compiled, solve

    setup = generate_setup(seed, _options(variant))
    compiled.load_for(initial_state(setup, setup.deal), notice=None)  # once a process, outside the clock
    c0, t0 = time.process_time(), time.perf_counter()
    row: dict[str, Any] = {"variant": variant, "seed": seed, "mode": mode, "objective": objective,
                           "timeout": timeout}
    try:
        if mode == "expected":  # the best chance with random draws
            r = solve(setup, mode=mode, timeout=timeout, progress=None)
            row.update(status=str(r.status), turns=None, bound=None, nodes=r.nodes, p=r.win_probability,
                       lower=r.lower, upper=r.upper, method=r.method)
        else:
            r = solve(setup, mode=mode, objective=objective, timeout=timeout, progress=None)
            row.update(status=str(r.status), turns=r.turns, bound=r.bound, nodes=r.nodes)
    except Exception as e:  # a solver bug (e.g. a plan the engine refuses): recorded, listed, not fatal
        row.update(status="error", turns=None, bound=None, nodes=None, error=f"{type(e).__name__}: {e}")
    row.update(cpu=round(time.process_time() - c0, 4), wall=round(time.perf_counter() - t0, 4))
    return row


def _key(row: dict[str, Any]) -> tuple:
    return row["variant"], row["seed"], row["mode"], row["objective"]


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def report(rows: list[dict[str, Any]], slow: float) -> None:
    groups: dict[tuple, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[(r["variant"], r["mode"], r["objective"])].append(r)
    print(f"{'variant':14s} {'mode':5s} {'objective':10s} {'n':>6s} {'settled':>8s} {'unknown':>8s} "
          f"{'errors':>6s} {'winnable':>9s} {'median':>8s} {'p95':>8s} {'p99':>8s} {'max':>8s}  (CPU seconds)")
    for (v, m, o), rs in sorted(groups.items()):
        cpu = [r["cpu"] for r in rs]
        unknown = [r for r in rs if r["status"] == "unknown"]
        errors = [r for r in rs if r["status"] == "error"]
        won = sum(r["status"] == "solved" for r in rs)
        print(f"{v:14s} {m:5s} {o:10s} {len(rs):6d} {len(rs) - len(unknown) - len(errors):8d} {len(unknown):8d} "
              f"{len(errors):6d} {won / len(rs):9.1%} {_pct(cpu, 0.5):8.3f} {_pct(cpu, 0.95):8.3f} "
              f"{_pct(cpu, 0.99):8.3f} {max(cpu):8.3f}")
    for (v, m, o), rs in sorted(groups.items()):
        over = sorted((r for r in rs if r["cpu"] > slow), key=lambda r: -r["cpu"])
        unknown = [r for r in rs if r["status"] == "unknown"]
        if over:
            print(f"\n{v} {m} {o}: {len(over)} over {slow:g} s: "
                  + ", ".join(f"{r['seed']} ({r['cpu']:.1f}s{', ' + r['status'] if r['status'] != 'solved' else ''})"
                              for r in over[:40]) + (" ..." if len(over) > 40 else ""))
        for r in rs:
            if r["status"] == "error":
                print(f"{v} {m} {o}: ERROR on seed {r['seed']}: {r['error']}")
        if unknown and m == "expected":
            print(f"{v} {m}: unsettled: " + ", ".join(
                f"{r['seed']} ({r['lower']:.3f}-{r['upper']:.3f})" for r in unknown[:40])
                + (" ..." if len(unknown) > 40 else ""))
        elif unknown:
            print(f"{v} {m} {o}: unsettled: " + ", ".join(
                f"{r['seed']} (at least {r['bound']})" for r in unknown[:40]) + (" ..." if len(unknown) > 40 else ""))
    chances = [r for r in rows if r["mode"] == "expected" and r["status"] != "error"]
    if chances:
        print("\nthe best chance to win with random draws (expected mode): exact answers, then the"
              "\nlower bounds of the others (their upper bound is 1 unless shown)")
        print(f"  {'variant':14s} {'n':>5s} {'exact':>6s} {'at 1':>6s} {'at 0':>6s} {'between':>8s} "
              f"{'others: lower median':>21s} {'min':>6s} {'upper<1':>8s}")
        for v in sorted({r["variant"] for r in chances}):
            rs = [r for r in chances if r["variant"] == v]
            exact = [r for r in rs if r["p"] is not None]
            others = [r for r in rs if r["p"] is None]
            lows = [r["lower"] for r in others]
            print(f"  {v:14s} {len(rs):5d} {len(exact):6d} {sum(r['p'] == 1.0 for r in exact):6d} "
                  f"{sum(r['p'] == 0.0 for r in exact):6d} {sum(0.0 < r['p'] < 1.0 for r in exact):8d} "
                  f"{_pct(lows, 0.5) if lows else float('nan'):21.3f} {min(lows) if lows else float('nan'):6.3f} "
                  f"{sum(r['upper'] < 1.0 - 1e-9 for r in others):8d}")
    print("\noptimal turns (deal mode, fewest turns; solved setups):")
    for v in sorted({r["variant"] for r in rows}):
        c = Counter(r["turns"] for r in rows if r["variant"] == v and r["mode"] == "deal"
                    and r["objective"] == "turns-only" and r["status"] == "solved")
        if c:
            print(f"  {v:14s} " + "  ".join(f"{t}:{n}" for t, n in sorted(c.items())))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--seeds", type=int, default=1000, help="seeds 0..N-1 of each variant but standard")
    ap.add_argument("--standard-seeds", type=int, default=10000, help="seeds of standard solo")
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--modes", default="deal,open", help="deal, open and expected (the best chance with "
                    "random draws; one objective, 'probability'; not for two players)")
    ap.add_argument("--objectives", default="turns-only,turns")
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--slow", type=float, default=2.0, help="list the seeds over this many CPU seconds")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--scheduler", default="")
    ap.add_argument("--jsonl", default="", help="append results here; skip those already in it")
    args = ap.parse_args()
    variants = args.variants.split(",")
    for v in variants:
        if v not in VARIANTS:
            ap.error(f"unknown variant {v!r}; known: {', '.join(VARIANTS)}")
    done: list[dict[str, Any]] = []
    out = Path(args.jsonl) if args.jsonl else None
    if out is not None and out.exists():
        done = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    have = {_key(r) for r in done}
    tasks = []
    for v in variants:
        n = args.standard_seeds if v == "standard" else args.seeds
        for seed in range(args.first_seed, args.first_seed + n):
            for m in args.modes.split(","):
                if m == "expected" and VARIANTS[v].get("players") == 2:
                    continue  # expected mode refuses two players ([D18]'s wild draws mid-command)
                for o in (["probability"] if m == "expected" else args.objectives.split(",")):
                    if (v, seed, m, o) not in have:
                        tasks.append((v, seed, m, o))
    print("command: python " + " ".join(sys.argv), flush=True)
    print(f"{len(tasks)} solves to run ({len(have)} already in {out})" if out else f"{len(tasks)} solves to run",
          flush=True)
    t0 = time.perf_counter()
    rows = list(done)
    if tasks:
        from distributed import Client, LocalCluster, as_completed

        cluster = None if args.scheduler else LocalCluster(
            n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None)
        with Client(cluster if cluster is not None else args.scheduler) as client:
            futures = [client.submit(solve_one, v, s, m, o, args.timeout, key=f"worst-{v}-{s}-{m}-{o}-{args.timeout:g}",
                                     pure=False) for v, s, m, o in tasks]
            sink = out.open("a") if out is not None else None
            try:
                for i, fut in enumerate(as_completed(futures), 1):
                    row = fut.result()
                    rows.append(row)
                    if sink is not None:
                        sink.write(json.dumps(row) + "\n")
                        sink.flush()
                    if i % 500 == 0:
                        print(f"  {i}/{len(tasks)} ({time.perf_counter() - t0:.0f}s)", file=sys.stderr, flush=True)
            finally:
                if sink is not None:
                    sink.close()
            if cluster is not None:
                client.run(_quiet_worker_log)
        if cluster is not None:
            cluster.close()
    report(rows, args.slow)
    print(f"seconds {time.perf_counter() - t0:.0f}")
    return 0


def _quiet_worker_log() -> None:
    """Run on every worker of the local cluster once all results are in:
    while the cluster closes, a worker's heartbeat may find the scheduler
    gone and log the CommClosedError's traceback (dask/distributed#7105), a
    page of noise after the tables. Failed solves are rows, not log lines."""
    import logging

    logging.getLogger("distributed.worker").setLevel(logging.CRITICAL)


if __name__ == "__main__":
    sys.exit(main())
