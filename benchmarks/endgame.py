"""Endgame regret (issue: hints that win): how often a bot's turn near the end
of its games was exactly optimal, judged by the exact endgame solver.

    python benchmarks/bots.py --bots hint --games 200 --difficulties standard --json study.json
    python benchmarks/endgame.py study.json --bot hint

Every game of the study keeps its last three positions and the turn played in
each (``GameResult.last``). One position per game is judged, 1, 2 or 3 turns
before the end (by seed, so the mix is fixed; a game with fewer turns gives
its first), up to ``--positions``. For each,
``advisor.endgame.solve_endgame`` works out the exact optimum from the
player's observation and the exact value of the command the bot played (its
re-scan is left out: it was chosen after the outcome was seen). A position is
*settled* when the optimum is exact and the played command is either exact or
shown below the optimum within the budget. Prints the share of settled
positions where the played command was optimal, and the mean regret.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from sensor_ghosts.advisor.endgame import EndgameUnsupported, solve_endgame
from sensor_ghosts.advisor.search import turn_key
from sensor_ghosts.rules.notation import parse_state, parse_turn
from sensor_ghosts.rules.observation import observe


def _job(args: tuple[int, int, str, str, int, float]) -> dict:
    seed, back, state_text, turn_text, max_nodes, timeout = args
    state = parse_state(state_text)
    turn = parse_turn(turn_text, state)
    key = turn_key(state, turn)
    out = {"seed": seed, "back": back, "turn": turn_text}
    try:
        res = solve_endgame(observe(state), focus=[key], max_nodes=max_nodes, timeout=timeout or None)
    except EndgameUnsupported as e:
        return out | {"status": "unsupported", "why": str(e)}
    lo, hi = res.command_value(key)
    exact_cmd = hi - lo < 1e-12
    settled = res.status == "exact" and (exact_cmd or hi < res.low - 1e-12)
    return out | {
        "status": "settled" if settled else "unknown",
        "optimum": [res.low, res.high],
        "played": [lo, hi],
        "optimal": bool(settled and lo >= res.low - 1e-12),
        "regret": res.low - lo if settled and exact_cmd else None,
        "best": str(res.best) if res.best else None,
        "horizon": res.horizon,
        "nodes": res.nodes,
        "seconds": res.seconds,
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("study", help="a JSON file written by benchmarks/bots.py --json")
    ap.add_argument("--bot", default="hint")
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--max-nodes", type=int, default=8_000)
    ap.add_argument("--timeout", type=float, default=0.0, help="seconds per position (0: the node budget only, "
                    "so the answer does not depend on the machine's load)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--json", dest="json_out")
    a = ap.parse_args(argv)
    games = [g for g in json.loads(Path(a.study).read_text())["games"] if g["bot"] == a.bot]
    jobs = []
    for g in sorted(games, key=lambda g: g["seed"]):
        last = g.get("last") or []
        back = min(1 + g["seed"] % 3, len(last))  # a game shorter than its pick: its first position kept
        if back:
            text, turn = last[-back]
            jobs.append((g["seed"], back, text, turn, a.max_nodes, a.timeout))
    jobs = jobs[: a.positions]
    t0 = time.perf_counter()
    with ProcessPoolExecutor(max_workers=a.workers) as ex:
        rows = list(ex.map(_job, jobs, chunksize=1))
    wall = time.perf_counter() - t0
    print(f"# {len(rows)} positions of {a.bot}'s games, 1-3 turns before the end; exact solver "
          f"{a.max_nodes} nodes / {a.timeout}s each; {a.workers} workers, {wall:.0f}s wall")
    print(f"{'turns left':>10} {'positions':>9} {'settled':>8} {'optimal':>8} {'share':>7} {'mean regret':>12}")
    for back in (1, 2, 3, None):
        rs = [r for r in rows if back is None or r["back"] == back]
        st = [r for r in rs if r["status"] == "settled"]
        opt = sum(r["optimal"] for r in st)
        regrets = [r["regret"] for r in st if r["regret"] is not None]
        share = f"{opt / len(st):.1%}" if st else "-"
        mean = f"{statistics.mean(regrets):.4f}" if regrets else "-"
        label = "all" if back is None else str(back)
        print(f"{label:>10} {len(rs):>9} {len(st):>8} {opt:>8} {share:>7} {mean:>12}")
    # Where the optimum is 0 every command is optimal: the share that says
    # something is the one over positions that can still be won.
    live = [r for r in rows if r["status"] == "settled" and r["optimum"][0] > 1e-12]
    if live:
        print(f"# settled and still winnable (optimum > 0): {sum(r['optimal'] for r in live)} optimal of {len(live)}")
    uns = sum(r["status"] == "unsupported" for r in rows)
    if uns:
        print(f"# {uns} positions outside the endgame solver's scope")
    if a.json_out:
        Path(a.json_out).write_text(json.dumps({"args": vars(a), "wall_s": wall, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
