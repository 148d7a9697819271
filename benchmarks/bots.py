"""Bot study (issue 6): the same seeded games played by each bot.

    python benchmarks/bots.py --games 200 --budget 2.0            # the full study
    python benchmarks/bots.py --games 40 --bots hint --budget 0.5  # a quicker one

Bots: random (random legal turn), greedy (one guessed world, shortest route),
hint (the hint engine on its observation, ``--budget`` seconds a decision),
hint-screen (the hint engine without playouts: heuristic screening only),
cheat (sees the true state: the solver's fewest-turns plan when found
within 4,000 nodes, else a perfect-information greedy) — the cheating bound.

Games run on Dask distributed: a local cluster of ``--workers`` processes
(one thread each), or the running scheduler at ``--scheduler ADDRESS``. Each
game is one task, seeded by (bot, seed), so the results do not depend on how
games are spread over workers, and a killed worker's games are run again
elsewhere. (The hint bot's *amount of work* depends on its time budget, so a
slower or busier machine may change some of its answers; ``--hint-worlds N``
gives it a fixed amount of work instead, deterministic; every other bot is
bit-for-bit reproducible.) ``--seeds-from DB`` plays the seeds of a
collection's puzzles (``benchmarks/grade_study.py`` tabulates them by grade).

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
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sensor_ghosts.advisor.bots import play_game  # noqa: E402
from sensor_ghosts.advisor.search import wilson  # noqa: E402


def _job(args: tuple[str, str, int, float | None]) -> dict:
    """One game; ``budget`` None plays the hint bot with a fixed number of
    worlds (``HINT_WORLDS``) instead of a time budget."""
    from sensor_ghosts.advisor.bots import HintBot

    bot, difficulty, seed, budget = args
    if bot == "hint" and budget is None:
        game = play_game(HintBot(None, worlds=HINT_WORLDS), seed, difficulty=difficulty).as_dict()
    else:
        game = play_game(bot, seed, difficulty=difficulty, budget=2.0 if budget is None else budget).as_dict()
    return {**game, "budget": str(budget)}


HINT_WORLDS = 24


def run_games(jobs: list[tuple[str, str, int, float | None]], *, workers: int = 2,
              scheduler: str | None = None, show: bool = False,
              on_game: Callable[[dict], None] | None = None) -> list[dict]:
    """Every job's game, in the order of ``jobs``, played on Dask: a local
    cluster of ``workers`` processes, or the scheduler at ``scheduler``.
    One task a game, keyed by the job, so no game is played twice in a run;
    a worker that dies has its games run again on another. ``on_game`` is
    called with each game as it ends (in the order they end)."""
    from distributed import Client, as_completed

    from sensor_ghosts.collections.build import local_cluster

    cluster = None
    if scheduler is None:
        cluster = local_cluster(workers)  # one thread a process; busy workers not taken for dead
    results: list[dict | None] = [None] * len(jobs)
    try:
        with Client(cluster if cluster is not None else scheduler) as client:
            futures, index = [], {}
            for i, job in enumerate(jobs):
                bot, diff, seed, budget = job
                futures.append(client.submit(_job, job, key=f"game-{bot}-{diff}-{seed}-{budget}", pure=False))
                index[futures[-1].key] = i
            done = 0
            for fut in as_completed(futures):
                results[index[fut.key]] = got = fut.result()
                fut.release()
                if on_game is not None:
                    on_game(got)
                done += 1
                if show:
                    print(f"\r{done}/{len(jobs)} games", end="", file=sys.stderr, flush=True)
            if show:
                print(file=sys.stderr)
    finally:
        if cluster is not None:
            cluster.close()
    assert all(r is not None for r in results)
    return [r for r in results if r is not None]


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


def _played(path: str, budget: float | None) -> dict[tuple, dict]:
    """The games a stopped run with the same budget wrote to ``path`` (its
    ``--jsonl``), by (bot, difficulty, seed): a rerun plays only the others."""
    if not Path(path).exists():
        return {}
    games = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    return {(g["bot"], g["difficulty"], g["seed"]): g for g in games if g.get("budget", "none") == str(budget)}


def _collection_seeds(path: str, diffs: list[str]) -> tuple[list[int], list[str]]:
    """The seeds of the collection's puzzles and their one difficulty; the
    bots' games are generated by seed and difficulty alone, so only solo
    collections without other options are accepted."""
    from sensor_ghosts.collections.query import rows

    seeds, kinds = [], set()
    for r in rows(path):
        o = r["options"]
        kinds.add((o["players"], o["difficulty"], tuple(sorted((k, v) for k, v in o.items()
                                                             if k not in ("players", "difficulty")))))
        seeds.append(r["seed"])
    if len(kinds) != 1:
        raise SystemExit(f"{path}: the puzzles have {len(kinds)} kinds of options; the bots need one")
    players, difficulty, rest = kinds.pop()
    if players != 1 or any(v for _, v in rest):
        raise SystemExit(f"{path}: the bots play solo games with default options only")
    return sorted(seeds), [difficulty]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--games", type=int, default=200, help="games per bot and difficulty")
    ap.add_argument("--bots", default="random,greedy,hint,cheat")
    ap.add_argument("--difficulties", default="introductory,standard,advanced")
    ap.add_argument("--budget", type=float, default=2.0, help="hint bot: seconds per decision")
    ap.add_argument("--seed", type=int, default=1000, help="first game seed")
    ap.add_argument("--workers", type=int, default=None, help="local Dask cluster's processes (default: the cores)")
    ap.add_argument("--scheduler", default=None, help="a running Dask scheduler's address instead")
    ap.add_argument("--hint-worlds", action="store_true",
                    help=f"hint bot: a fixed {HINT_WORLDS} worlds a decision instead of --budget (deterministic)")
    ap.add_argument("--seeds-from", metavar="DB", help="play the seeds of this collection's puzzles")
    ap.add_argument("--json", dest="json_out", help="write every game and the summary here")
    ap.add_argument("--jsonl", help="append each game here as it ends (kept if the run is stopped)")
    a = ap.parse_args(argv)
    bots = [b for b in a.bots.split(",") if b]
    diffs = [d for d in a.difficulties.split(",") if d]
    if a.workers is not None and a.scheduler is not None:
        ap.error("--workers starts a local cluster; do not combine it with --scheduler")
    seeds = list(range(a.seed, a.seed + a.games))
    if a.seeds_from:
        seeds, diffs = _collection_seeds(a.seeds_from, diffs)
    budget = None if a.hint_worlds else a.budget
    # Seed by seed, every bot: a run stopped early has played all bots on the same seeds.
    jobs = [(b, d, s, budget) for s in seeds for d in diffs for b in bots]
    done = _played(a.jsonl, budget) if a.jsonl else {}
    t0 = time.perf_counter()
    log = open(a.jsonl, "a") if a.jsonl else None  # noqa: SIM115 - closed below, whatever happens
    try:
        results = [done[j[:3]] for j in jobs if j[:3] in done] + run_games(
            [j for j in jobs if j[:3] not in done], workers=a.workers or os.cpu_count() or 1,
            scheduler=a.scheduler, show=sys.stderr.isatty(),
            on_game=None if log is None else lambda g: (log.write(json.dumps(g) + "\n"), log.flush()))
    finally:
        if log is not None:
            log.close()
    wall = time.perf_counter() - t0
    rows = summarize(results)
    where = a.scheduler or f"{a.workers or os.cpu_count()} local workers"
    print(f"# {len(seeds)} games per bot and difficulty, seeds {seeds[0]}..{seeds[-1]}, hint "
          f"{f'{HINT_WORLDS} worlds' if budget is None else f'budget {budget}s'} per decision, {where}, "
          f"{wall:.0f}s wall")  # fmt: skip
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
