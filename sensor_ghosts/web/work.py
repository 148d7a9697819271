"""The slow work (hints, solving a puzzle) in a pool of worker processes, off
the server's event loop: one long hint never blocks another browser's
requests, and each job is a ``Job`` the page can poll and cancel.

Cancelling a job that waits in the queue removes it; a job already running
is abandoned (nobody waits for it) and ends by itself within its budget: a
hint keeps to its budget (``advisor.hint``) and a solve to its timeout.
"""

from __future__ import annotations

import asyncio
import itertools
import multiprocessing
import time
from collections import Counter
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from ..rules.observation import Observation

MAX_BUDGET = 30.0
"""The longest hint the page may ask for, seconds."""
KEEP_JOBS = 200
"""Finished jobs kept for their pages to collect, oldest dropped first."""


# ----------------------------------------------------------------------------
# in the worker processes
# ----------------------------------------------------------------------------


def warm_up() -> None:
    """Load the advisor and the solver's compiled kernels once per worker, so
    that the first hint a player asks for is not slowed by them."""
    from .. import advisor
    from ..generators import generate_setup
    from ..rules.observation import observe
    from ..rules.state import initial_state
    from ..solver import compiled

    setup = generate_setup(seed=1)
    state = initial_state(setup, setup.deal)
    compiled.load_for(state, notice=None)  # quietly: the server said it is starting
    advisor.hint(observe(state, 0), budget=0.05, seed=0)


def worker_ready() -> int:
    """A no-op job: it returns once its worker has started and warmed up."""
    import os

    return os.getpid()


def hint_job(obs: Observation, budget: float, seed: int) -> dict[str, Any]:
    """The hint for ``obs`` as the page shows it (``hint_view``), with the
    seconds the worker spent on it."""
    from .. import advisor

    t0, cpu0 = time.perf_counter(), time.process_time()
    h = advisor.hint(obs, budget=budget, seed=seed)
    out = hint_view(obs, h, seed)
    out["worker_seconds"] = round(time.perf_counter() - t0, 3)
    # The processor time it got: on a loaded machine far less than the wall time,
    # and the advisor's budget is wall time (the tests tell the two apart).
    out["worker_cpu_seconds"] = round(time.process_time() - cpu0, 3)
    return out


def hint_view(obs: Observation, h: Any, seed: int) -> dict[str, Any]:
    """The hint's own fields, and where its turn goes on the grid: the turn
    played by the rules engine in worlds sampled from what the player sees
    (the cells the ship enters, peeks at, flips), the likeliest path first."""
    from ..rules.engine import apply_turn
    from ..rules.log import Entered, Flipped, Peeked, Shifted
    from ..solver.worlds import sample_worlds

    out = h.as_dict()
    best = h.best
    cmds = [c for c in (best.command, best.second) if c is not None]
    out["cards"] = [pc.card for c in cmds for pc in c.cards]
    out["actions"] = [str(c.action) for c in cmds]
    out["bolster"] = best.bolster
    out["text"] = str(h)
    paths: Counter[tuple] = Counter()
    marks: dict[tuple, dict[str, Any]] = {}
    worlds = sample_worlds(obs, 16, seed=seed)
    for world in worlds:
        log: list = []
        try:
            apply_turn(world, best, log=log)
        except Exception:  # a world where the turn does not apply tells nothing
            continue
        path = tuple(e.pos for e in log if isinstance(e, Entered))
        paths[path] += 1
        marks.setdefault(path, {
            "peek": [list(p) for e in log if isinstance(e, Peeked) for p in e.cells],
            "flip": [list(e.pos) for e in log if isinstance(e, Flipped) and e.cause != "re-scan"],
            "shift": [e.row for e in log if isinstance(e, Shifted)],
            "rescan": [list(e.pos) for e in log if isinstance(e, Flipped) and e.cause == "re-scan"],
        })
    if paths:
        path, n = paths.most_common(1)[0]
        out["path"] = [list(p) for p in path]
        out["path_share"] = round(n / sum(paths.values()), 3)
        out.update(marks[path])
    else:
        out.update(path=[], path_share=0.0, peek=[], flip=[], shift=[], rescan=[])
    out["start"] = list(obs.ship)
    return out


def puzzle_job(game_id: str, what: str, timeout: float) -> Any:
    """A puzzle's printed pages: 'sheet' (SVG), 'solution' (SVG, solved here)
    or 'pdf' (both pages, as ``generate --pdf --solutions`` prints them)."""
    from .. import render
    from ..generators import setup_from_id

    setup = setup_from_id(game_id)
    if what == "sheet":
        return render.setup_svg(setup, hide_down=True, regenerable=True)
    from ..puzzles import solution_of, solve_setup

    result = solve_setup(setup, timeout=timeout)
    solution = solution_of(result) if result.plan is not None else None
    if what == "solution":
        if solution is None:
            return {"status": str(result.status)}
        return render.solution_svg(solution, regenerable=True)
    pages = [render.setup_page(setup, hide_down=True, regenerable=True)]
    if solution is not None:
        pages.append(render.solution_page(solution, regenerable=True))
    return render.pdf_bytes(pages)


# ----------------------------------------------------------------------------
# in the server
# ----------------------------------------------------------------------------


@dataclass
class Job:
    id: str
    kind: str
    future: Future
    budget: float
    started: float = field(default_factory=time.monotonic)
    cancelled: bool = False


class Workers:
    """The worker pool and the jobs handed to it."""

    def __init__(self, processes: int = 2):
        # 'spawn': a fresh interpreter per worker, safe beside the server's threads.
        self.pool = ProcessPoolExecutor(
            max_workers=processes,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=warm_up,
        )
        self.processes = processes
        self.jobs: dict[str, Job] = {}
        self._ids = itertools.count(1)
        self.ready = [self.pool.submit(worker_ready) for _ in range(processes)]

    def warm(self) -> bool:
        return all(f.done() for f in self.ready)

    def submit(self, kind: str, budget: float, fn: Any, *args: Any) -> Job:
        job = Job(f"{kind}-{next(self._ids)}", kind, self.pool.submit(fn, *args), budget)
        self.jobs[job.id] = job
        while len(self.jobs) > KEEP_JOBS:
            self.jobs.pop(next(iter(self.jobs)))
        return job

    async def wait(self, job: Job, seconds: float) -> bool:
        """Wait up to ``seconds`` for ``job``; whether it is done."""
        if not job.future.done() and seconds > 0:
            try:
                await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(job.future)), seconds)
            except (asyncio.TimeoutError, Exception):
                pass
        return job.future.done()

    def cancel(self, job: Job) -> bool:
        """Stop waiting for ``job``; True if it had not started (it never will)."""
        job.cancelled = True
        self.jobs.pop(job.id, None)
        return job.future.cancel()

    def close(self) -> None:
        for job in list(self.jobs.values()):
            job.future.cancel()
        self.pool.shutdown(wait=True, cancel_futures=True)
