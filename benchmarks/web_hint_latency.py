"""Wall time of a hint through the web app, as a page sees it: start the job
(POST /api/hint), wait for it (GET /api/job/ID?wait=10), over real HTTP on
127.0.0.1, after the workers have warmed up.

    python benchmarks/web_hint_latency.py --budget 0.5 --count 10

Prints each request's wall time, the worker's own time, and the worst
overshoot past the budget.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sensor_ghosts.web.server import BackgroundServer  # noqa: E402


def call(url: str, body: dict | None = None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.load(r)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=float, default=0.5)
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--game-id", default="1p-standard#7")
    args = ap.parse_args()
    with BackgroundServer(workers=2) as url:
        table = call(url + "/api/table/from-id", {"game_id": args.game_id})["table"]
        walls, worker = [], []
        for i in range(args.count):
            t0 = time.perf_counter()
            job = call(url + "/api/hint", {"table": table, "budget": args.budget, "seed": i})["job"]
            status = call(f"{url}/api/job/{job}?wait=10")
            walls.append(time.perf_counter() - t0)
            worker.append(status["result"]["worker_seconds"])
            print(f"hint {i}: wall {walls[-1]:.3f} s, worker {worker[-1]:.3f} s "
                  f"(the hint's own clock {status['result']['seconds']:.3f} s)")
    print(f"budget {args.budget} s, {args.count} hints: wall median {statistics.median(walls):.3f} s, "
          f"max {max(walls):.3f} s (worst overshoot {max(walls) - args.budget:+.3f} s); "
          f"worker max {max(worker):.3f} s")


if __name__ == "__main__":
    main()
