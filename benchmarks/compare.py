"""Two versions of the solver, timed side by side in one process.

    python benchmarks/compare.py OLD_CHECKOUT NEW_CHECKOUT [--mode deal] [--seeds 0-59]
                                 [--rounds 3] [--objective turns] [--variant solo]

Timing on a small shared machine drifts by 10-40 % from minute to minute, more
than most single changes gain, so two benchmark runs one after the other say
little. Here each setup is solved by both versions in turn (which goes first
alternates), ``--rounds`` times, and each version keeps its best CPU time per
setup: the drift hits both alike. It prints each version's median, p90, p95,
max and sum over the setups, the median and quartiles of the per-setup ratio
new / old, the setups where the two disagree on the result (status, turns
and, but for 'turns-only', cards) or on the nodes, and the setups whose time
moved most either way.

Each checkout's ``sensor_ghosts`` package is copied under another name
(``sg_old``, ``sg_new``) into a temporary folder and imported from there: the
package imports itself relatively, so both live in one process (each with its
own compiled kernel, built on first use: the first run takes a minute more).
A checkout is any folder holding a ``sensor_ghosts`` package, e.g. one made by
``git worktree add /tmp/old <commit>``. ``--variant`` takes the setups of
``benchmarks/solve.py``'s variants: solo, 3p or 4p (three or four players), pod (the escape
pod), lowmem (low memory mode), second (the §12 second action) or two (two
samples to win).
"""

from __future__ import annotations

import argparse
import importlib
import shutil
import sys
import tempfile
import time
from pathlib import Path

# The rule options of ``benchmarks/solve.py``'s variants.
VARIANTS = {"solo": {}, "3p": {"players": 3}, "4p": {"players": 4}, "pod": {"escape_pod": True}, "lowmem": {"low_memory": True},
            "second": {"second_action": True}, "two": {"two_samples": True}}


def _load(root: Path, name: str, into: Path, variant: str):
    """(setup of a seed, the solver module) of the checkout at ``root``."""
    shutil.copytree(root / "sensor_ghosts", into / name, ignore=shutil.ignore_patterns("__pycache__"))
    gen = importlib.import_module(f"{name}.generators")
    options = importlib.import_module(f"{name}.rules.options").RuleOptions(**VARIANTS[variant])

    def setup(seed: int):
        return gen.generate_setup(seed=seed, options=options)

    return setup, importlib.import_module(f"{name}.solver")


def _seeds(text: str) -> list[int]:
    lo, _, hi = text.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--mode", default="deal", choices=["deal", "open"])
    ap.add_argument("--seeds", default="0-59", help="a range, e.g. 0-59")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--objective", default="turns", choices=["turns", "cards", "turns-only"])
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--variant", default="solo", choices=sorted(VARIANTS))
    a = ap.parse_args()
    for root in (a.old, a.new):
        if not (root / "sensor_ghosts").is_dir():
            ap.error(f"{root}: no sensor_ghosts package there")
    seeds = _seeds(a.seeds)
    print("command: python " + " ".join(sys.argv))
    with tempfile.TemporaryDirectory() as tmp:
        sys.path.insert(0, tmp)
        versions = {"old": _load(a.old, "sg_old", Path(tmp), a.variant),
                    "new": _load(a.new, "sg_new", Path(tmp), a.variant)}
        for setup_of, sol in versions.values():  # compile or load each kernel before timing
            sol.solve(setup_of(1000), mode=a.mode, objective=a.objective, timeout=60)
        best: dict[str, dict[int, float]] = {v: {} for v in versions}
        result: dict[str, dict[int, tuple]] = {v: {} for v in versions}
        for s in seeds:
            for r in range(a.rounds):
                for v in ("old", "new") if (r + s) % 2 == 0 else ("new", "old"):
                    setup_of, sol = versions[v]
                    setup = setup_of(s)
                    t0 = time.process_time()
                    out = sol.solve(setup, mode=a.mode, objective=a.objective, timeout=a.timeout)
                    dt = time.process_time() - t0
                    best[v][s] = min(best[v].get(s, dt), dt)
                    result[v][s] = (out.status, out.turns, out.cards, out.nodes)
    for v in versions:
        ts = sorted(best[v].values())
        n = len(ts)
        print(f"{v}: median {ts[n // 2] * 1e3:.1f} ms  p90 {ts[int(n * 0.9)] * 1e3:.0f} ms  "
              f"p95 {ts[int(n * 0.95)] * 1e3:.0f} ms  max {ts[-1] * 1e3:.0f} ms  sum {sum(ts):.2f} s")
    ratios = sorted(best["new"][s] / best["old"][s] for s in seeds)
    n = len(ratios)
    print(f"new / old per setup: median {ratios[n // 2]:.3f} (quartiles {ratios[n // 4]:.3f}, {ratios[3 * n // 4]:.3f})")
    same = 2 if a.objective == "turns-only" else 3  # turns-only: any plan of the fewest turns
    differ = [s for s in seeds if result["old"][s][:same] != result["new"][s][:same]]
    nodes = [s for s in seeds if result["old"][s][3] != result["new"][s][3]]
    print(f"results differ on {len(differ)} setups {differ[:10]}; nodes differ on {len(nodes)}")
    # The setups that moved most, in time (a change may leave the median as
    # it was and move a few slow setups; an outlier on one side only, with
    # the same nodes, is the machine: rerun with more rounds).
    moved = sorted(seeds, key=lambda s: best["new"][s] - best["old"][s])
    show = [s for s in moved[:3] + moved[-3:] if abs(best["new"][s] - best["old"][s]) > 0.01]
    print("moved most: " + (", ".join(f"{s} {best['old'][s] * 1e3:.0f} -> {best['new'][s] * 1e3:.0f} ms"
                                      for s in dict.fromkeys(show)) or "none by more than 10 ms"))


if __name__ == "__main__":
    main()
