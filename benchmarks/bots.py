"""Bot study (issue 6): the same seeded games played by each bot.

    python benchmarks/bots.py --games 200 --budget 2.0            # the full study
    python benchmarks/bots.py --games 40 --bots hint --budget 0.5  # a quicker one

Bots: random (random legal turn), greedy (one guessed world, shortest route),
hint (the hint engine on its observation, ``--budget`` seconds a decision),
hint-screen (the hint engine without playouts: heuristic screening only),
cheat (sees the true state: the solver's fewest-turns plan when found
within 4,000 nodes, else a perfect-information greedy) — the cheating bound.

Games run in parallel on ``concurrent.futures.ProcessPoolExecutor``; each game is
seeded by (bot, seed), so the results do not depend on how games are spread
over workers. (The hint bot's *amount of work* depends on its time budget, so a
slower or busier machine may change some of its answers; every other bot is
bit-for-bit reproducible.)

Prints, per bot and difficulty: wins/games, the win rate with a Wilson 95%
interval, mean turns, and the mean / median / p95 time per decision.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sensor_ghosts.advisor.bots import play_game  # noqa: E402
from sensor_ghosts.advisor.search import wilson  # noqa: E402


def _job(args: tuple[str, str, int, float]) -> dict:
    bot, difficulty, seed, budget = args
    return play_game(bot, seed, difficulty=difficulty, budget=budget).as_dict()


def _pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    k = min(len(xs) - 1, max(0, int(round(q * (len(xs) - 1)))))
    return xs[k]


def summarize(results: list[dict]) -> list[dict]:
    rows = []
    keys = sorted({(r["bot"], r["difficulty"]) for r in results})
    for bot, diff in keys:
        rs = [r for r in results if r["bot"] == bot and r["difficulty"] == diff]
        wins = sum(r["won"] for r in rs)
        lo, hi = wilson(wins, len(rs))
        times = [t for r in rs for t in r["decision_seconds"]]
        rows.append(
            {
                "bot": bot,
                "difficulty": diff,
                "games": len(rs),
                "wins": wins,
                "win_rate": wins / len(rs),
                "ci95": [lo, hi],
                "mean_turns": statistics.mean(r["turns"] for r in rs),
                "decisions": len(times),
                "mean_decision_s": statistics.mean(times) if times else 0.0,
                "median_decision_s": statistics.median(times) if times else 0.0,
                "p95_decision_s": _pct(times, 0.95),
            }
        )
    return rows


def calibration(results: list[dict]) -> tuple[list[dict], float | None]:
    """Every decision's printed chance against its game's outcome, bucketed in
    tenths (0-10 %, ..., 90-100 %), and the Brier score over all decisions."""
    pairs = [(p, float(r["won"])) for r in results for p in r.get("predictions", [])]
    rows = []
    for k in range(10):
        lo, hi = k / 10, (k + 1) / 10
        ps = [(p, w) for p, w in pairs if lo <= p < hi or (k == 9 and p == 1.0)]
        if ps:
            rows.append({"bucket": f"{k * 10}-{k * 10 + 10}%", "decisions": len(ps),
                         "mean_predicted": statistics.mean(p for p, _ in ps),
                         "observed": statistics.mean(w for _, w in ps)})
    brier = statistics.mean((p - w) ** 2 for p, w in pairs) if pairs else None
    return rows, brier


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--games", type=int, default=200, help="games per bot and difficulty")
    ap.add_argument("--bots", default="random,greedy,hint,cheat")
    ap.add_argument("--difficulties", default="introductory,standard,advanced")
    ap.add_argument("--budget", type=float, default=2.0, help="hint bot: seconds per decision")
    ap.add_argument("--seed", type=int, default=1000, help="first game seed")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--json", dest="json_out", help="write every game and the summary here")
    a = ap.parse_args(argv)
    bots = [b for b in a.bots.split(",") if b]
    diffs = [d for d in a.difficulties.split(",") if d]
    jobs = [(b, d, a.seed + i, a.budget) for b in bots for d in diffs for i in range(a.games)]
    t0 = time.perf_counter()
    with ProcessPoolExecutor(max_workers=a.workers) as ex:
        results = list(ex.map(_job, jobs, chunksize=1))
    wall = time.perf_counter() - t0
    rows = summarize(results)
    print(f"# {a.games} games per bot and difficulty, seeds {a.seed}..{a.seed + a.games - 1}, "
          f"hint budget {a.budget}s per decision, {a.workers} workers, {wall:.0f}s wall")  # fmt: skip
    print(f"{'bot':12} {'difficulty':13} {'wins':>9} {'rate':>6} {'95% CI':>13} {'turns':>6} "
          f"{'mean s':>8} {'median s':>9} {'p95 s':>7}")  # fmt: skip
    for r in rows:
        print(
            f"{r['bot']:12} {r['difficulty']:13} {r['wins']:>4}/{r['games']:<4} "
            f"{r['win_rate']:>6.1%} {r['ci95'][0]:>6.1%}-{r['ci95'][1]:<6.1%} "
            f"{r['mean_turns']:>6.1f} {r['mean_decision_s']:>8.3f} {r['median_decision_s']:>9.3f} "
            f"{r['p95_decision_s']:>7.3f}"
        )
    for bot in bots:
        rows_c, brier = calibration([r for r in results if r["bot"] == bot])
        if brier is None:
            continue
        print(f"\n# calibration of {bot}: each decision's printed chance against its game's outcome"
              f" (Brier score {brier:.3f})")
        print(f"{'chance':>8} {'decisions':>10} {'mean printed':>13} {'won':>7} {'gap':>7}")
        for c in rows_c:
            gap = c["observed"] - c["mean_predicted"]
            print(f"{c['bucket']:>8} {c['decisions']:>10} {c['mean_predicted']:>13.1%} "
                  f"{c['observed']:>7.1%} {gap:>+7.1%}")
    if a.json_out:
        Path(a.json_out).write_text(
            json.dumps(
                {"args": vars(a), "wall_s": wall, "summary": rows, "games": results}, indent=1
            )
        )


if __name__ == "__main__":
    main()
