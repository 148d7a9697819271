"""Collection build throughput (issue 35): puzzles solved and graded per
second on a Dask LocalCluster of 1 worker, then of 2, and the speed-up.

    python benchmarks/collection.py --seeds 12
    python benchmarks/collection.py --seeds 6 --no-first-moves --careful-nodes 20   # a quick one

Each run builds a fresh collection of the same seeds in a temporary
directory. Two rates are printed: over the whole build (cluster start and
the workers' loading of the solver's compiled kernels included), and from
the first result to the last (the steady rate, which is what a long build
sees). The rows of the two runs are compared: they must be equal.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sensor_ghosts.collections.build import build  # noqa: E402
from sensor_ghosts.rules.options import RuleOptions  # noqa: E402


def run(path: Path, seeds: range, workers: int, a: argparse.Namespace) -> dict:
    stamps: list[float] = []
    summary = build(path, seeds, RuleOptions(), workers=workers, timeout=a.timeout, main_nodes=a.main_nodes,
                    first_moves=a.first_moves, careful_nodes=a.careful_nodes,
                    on_result=lambda *_: stamps.append(time.perf_counter()))
    steady = (len(stamps) - 1) / (stamps[-1] - stamps[0]) if len(stamps) > 1 and stamps[-1] > stamps[0] else 0.0
    con = sqlite3.connect(path)
    rows = sorted(con.execute("SELECT game_id, plan_json, features, grade, proof, seconds FROM puzzles"))
    con.close()
    return {"summary": summary, "steady": steady, "rows": rows}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=12)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=60.0, help="the main solve's safety net (seconds)")
    ap.add_argument("--main-nodes", type=int, default=200_000)
    ap.add_argument("--first-moves", dest="first_moves", action="store_true",
                    help="count the first moves too (off by default, as in the build command)")
    ap.add_argument("--no-first-moves", dest="first_moves", action="store_false", help="the default")
    ap.add_argument("--careful-nodes", type=int, default=None)
    a = ap.parse_args(argv)
    seeds = range(a.seed, a.seed + a.seeds)
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for workers in (1, 2):
            out[workers] = run(Path(tmp) / f"w{workers}.db", seeds, workers, a)
    print(f"# {a.seeds} seeds from {a.seed}, timeout {a.timeout:g} s, first moves {a.first_moves}, "
          f"careful nodes {a.careful_nodes or 'default'}")
    print(f"{'workers':>7} {'puzzles':>7} {'wall s':>7} {'puzzles/s (wall)':>17} {'puzzles/s (steady)':>19}")
    for w, r in out.items():
        s = r["summary"]
        print(f"{w:>7} {s.added:>7} {s.seconds:>7.1f} {s.added / s.seconds:>17.3f} {r['steady']:>19.3f}")
    one, two = out[1], out[2]
    print(f"speed-up, wall: {one['summary'].seconds / two['summary'].seconds:.2f}x; steady: "
          f"{(two['steady'] / one['steady']) if one['steady'] else float('nan'):.2f}x")
    # Compared without the timing column; a row that differs is named with its
    # proof status and worker seconds in both runs (only a seed that reaches
    # the --timeout safety net may differ: it is then skipped in one run).
    a = {r[0]: r for r in one["rows"]}
    b = {r[0]: r for r in two["rows"]}
    differ = sorted(g for g in a.keys() | b.keys() if a.get(g, ())[:5] != b.get(g, ())[:5])
    print("rows equal in both runs:", not differ)
    for g in differ:
        ra, rb = a.get(g), b.get(g)
        print(f"  {g}: 1 worker {ra[4] if ra else 'missing'} {ra[5] if ra else 0:.1f} s; "
              f"2 workers {rb[4] if rb else 'missing'} {rb[5] if rb else 0:.1f} s")


if __name__ == "__main__":
    main()
