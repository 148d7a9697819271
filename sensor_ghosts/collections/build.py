"""Building a collection on Dask distributed: one task per seed.

Each task (``analyse_seed``) generates the setup of one seed, solves it and
measures its features on a worker; it returns a plain dict and writes
nothing. Only the client writes, one row per game ID (``INSERT OR IGNORE``),
committed as each result arrives, so an interrupted build keeps every
finished puzzle and a rerun skips the seeds already stored (solved or
skipped). When a worker dies, Dask runs its tasks again on another; a task's
result depends only on its seed and the budgets, so it is the same row.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import __version__
from ..rules.options import RuleOptions
from ..rules.setup import Setup
from .schema import open_collection

if TYPE_CHECKING:  # the solver is loaded on the workers, not by query/stats
    from ..solver.result import SolveResult

MAIN_NODES = 200_000
"""Default node budget of each stage of a seed's main solve (fewest turns,
then fewest cards among them). The stored result is decided by nodes, so it
is a function of the seed: seeds 5000-5039 needed at most 2,000."""
MAIN_TIMEOUT = 60.0
"""Default seconds for a seed's main solve: a safety net only. A seed that
hits it is skipped with reason "timeout" (and may be stored on a faster
machine); the node budget decides everything else."""


def options_json(options: RuleOptions) -> str:
    d = asdict(options)
    d["difficulty"] = options.difficulty.value
    return json.dumps(d, sort_keys=True)


def game_id(seed: int, options: RuleOptions) -> str:
    from ..generators.game_id import format_game_id, make_game_id

    return format_game_id(make_game_id(seed, options))


def analyse_seed(seed: int, options: RuleOptions, timeout: float, first_moves: bool = False,
                 careful_nodes: int | None = None, main_nodes: int = MAIN_NODES) -> dict[str, Any]:
    """One seed's row (``status`` 'ok'), or why it gives none ('skipped' and
    ``reason``). Runs on a worker. Every solve is bounded by nodes, so the
    row depends only on the seed, the options and the budgets; ``timeout``
    (seconds for the main solve) is a safety net whose seeds are skipped
    with reason "timeout", the one result that may differ between machines."""
    from ..generators.generate import generate_setup
    from ..rules import notation
    from ..solver.result import Objective
    from .grade_rule import GRADES
    from .grades import CAREFUL_NODES, grade, measure

    t0 = time.perf_counter()
    setup = generate_setup(seed, options)
    gid = setup.id or game_id(seed, options)
    base = {"game_id": gid, "seed": seed}
    result = _main_solve(setup, timeout, main_nodes)
    if isinstance(result, str):
        return {**base, "status": "skipped", "reason": result}
    plan = result.plan
    assert plan is not None and result.turns is not None
    plan.replay()  # raises if the plan does not win; the logs are kept for the features
    feats = measure(plan, result.turns, first_moves=first_moves,
                    careful_nodes=CAREFUL_NODES if careful_nodes is None else careful_nodes)
    name, points = grade(feats)
    return {
        **base,
        "status": "ok",
        "options": options_json(options),
        "setup": notation.format_setup(setup),
        "turns": result.turns,
        "cards": plan.figures.cards_played,
        "proof": "optimal" if result.objective == Objective.TURNS else "turns",
        "plan_text": plan.to_text(),
        "plan_json": json.dumps(plan.to_json(), sort_keys=True),
        "features": json.dumps(feats.as_dict(), sort_keys=True),
        "grade": name,
        "grade_rank": GRADES.index(name),
        "score": points,
        "version": __version__,
        "seconds": time.perf_counter() - t0,
    }


def _main_solve(setup: Setup, timeout: float, nodes: int) -> SolveResult | str:
    """The fewest turns ('turns-only'), then the fewest cards among them
    ('turns'), each stage within ``nodes``; the SolveResult, or the reason
    the seed is skipped. A second stage out of nodes leaves the first's plan
    (proof 'turns'). Reaching ``timeout`` (the stages' own seconds, without
    the worker's one-off loading of the compiled kernels) gives "timeout":
    a stage cut by the clock would make the row depend on the machine."""
    from ..solver import solve
    from ..solver.result import Mode, Objective, Status

    first = solve(setup, mode=Mode.DEAL, deal=setup.deal, objective=Objective.TURNS_ONLY, max_nodes=nodes,
                  timeout=timeout)
    if first.stopped == "time limit" or first.seconds >= timeout:
        return "timeout"
    if first.status == Status.UNSOLVABLE:
        return "unwinnable"
    if first.status != Status.SOLVED or first.plan is None:
        return f"not solved within {nodes} nodes (at least {first.bound} turns)"
    left = timeout - first.seconds
    full = solve(setup, mode=Mode.DEAL, deal=setup.deal, objective=Objective.TURNS, max_nodes=nodes,
                 timeout=left, max_turns=first.turns)
    if full.stopped == "time limit" or full.seconds >= left:
        return "timeout"
    return full if full.status == Status.SOLVED else first


_COLUMNS = ("game_id", "seed", "options", "setup", "turns", "cards", "proof", "plan_text", "plan_json",
            "features", "grade", "grade_rank", "score", "version", "seconds")


def store(con: sqlite3.Connection, row: dict[str, Any]) -> bool:
    """Write one task's result; False when its game ID was there already."""
    with con:
        if row["status"] == "ok":
            cur = con.execute(f"INSERT OR IGNORE INTO puzzles ({', '.join(_COLUMNS)}) "
                              f"VALUES ({', '.join('?' * len(_COLUMNS))})", [row[c] for c in _COLUMNS])
        else:
            cur = con.execute("INSERT OR IGNORE INTO skipped VALUES (?, ?, ?, ?)",
                              (row["game_id"], row["seed"], row["reason"], __version__))
    return cur.rowcount == 1


@dataclass
class Summary:
    seeds: int = 0
    already: int = 0
    """Seeds stored before this build (solved or skipped): not run again."""
    added: int = 0
    skipped: dict[int, str] = field(default_factory=dict)
    failed: dict[int, str] = field(default_factory=dict)
    """Seeds whose task raised (a worker killed too often: Dask's KilledWorker):
    nothing stored, so a rerun tries them again."""
    grades: Counter = field(default_factory=Counter)
    seconds: float = 0.0
    workers: int = 0

    def lines(self) -> list[str]:
        rate = self.added / self.seconds if self.seconds > 0 else 0.0
        out = [f"{self.added} puzzle(s) added from {self.seeds} seed(s) in {self.seconds:.1f} s "
               f"({rate:.2f} puzzles/s, {self.workers} worker(s)); {self.already} seed(s) already stored"]
        if self.grades:
            from .grade_rule import GRADES

            out.append("grades: " + ", ".join(f"{g} {self.grades[g]}" for g in GRADES))
        for seed, why in sorted(self.skipped.items()):
            out.append(f"skipped seed {seed}: {why}")
        for seed, why in sorted(self.failed.items()):
            out.append(f"failed seed {seed} (not stored; run again to retry): {why}")
        return out


def local_cluster(workers: int) -> Any:
    """A LocalCluster of ``workers`` processes of one thread each (the solver
    is CPU-bound Python and Numba). A worker is not declared dead for missing
    heartbeats (``worker-ttl`` off): a long compiled search holds the
    interpreter lock for minutes, and on a loaded machine the default five
    minutes restarted a busy worker, losing its task, again at every retry."""
    import dask
    from distributed import LocalCluster

    with dask.config.set({"distributed.scheduler.worker-ttl": None}):
        return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                            dashboard_address=":0")  # any free port: never clash with another cluster


def build(
    path: str | Path,
    seeds: Sequence[int],
    options: RuleOptions,
    *,
    timeout: float = MAIN_TIMEOUT,
    workers: int = 2,
    scheduler: str | None = None,
    first_moves: bool = False,
    careful_nodes: int | None = None,
    main_nodes: int = MAIN_NODES,
    on_result: Callable[[Any, dict, int, int], None] | None = None,
) -> Summary:
    """Add the puzzles of ``seeds`` to the collection at ``path`` (made if
    missing), on a LocalCluster of ``workers`` processes, or on the Dask
    scheduler at ``scheduler``. ``first_moves``: measure the first-move
    counts too (``grades.measure``; a feature, not graded, and slow);
    ``careful_nodes``: the careful plan's node budget (``grades.CAREFUL_NODES``
    when None). ``on_result(client, row, done, total)`` is called after each
    row is written (progress, tests)."""
    from distributed import Client, as_completed

    con = open_collection(path, create=True)
    summary = Summary(seeds=len(seeds))
    t0 = time.perf_counter()
    try:
        stored = {r[0] for r in con.execute("SELECT game_id FROM puzzles UNION SELECT game_id FROM skipped")}
        todo = [s for s in dict.fromkeys(seeds) if game_id(s, options) not in stored]
        summary.already = len(set(seeds)) - len(todo)
        if not todo:
            return summary
        cluster = local_cluster(workers) if scheduler is None else None
        try:
            with Client(cluster if cluster is not None else scheduler) as client:
                summary.workers = len(client.scheduler_info().get("workers", {}))
                # One key per game ID: the same seed is never computed twice in a build.
                futures = [client.submit(analyse_seed, s, options, timeout, first_moves, careful_nodes, main_nodes,
                                         key=f"seed-{game_id(s, options)}", pure=False) for s in todo]
                seed_of = {f.key: s for f, s in zip(futures, todo, strict=True)}
                done = 0
                for fut in as_completed(futures):
                    try:
                        row = fut.result()
                    except Exception as e:  # noqa: BLE001 - e.g. KilledWorker: the seed is left for a rerun
                        summary.failed[seed_of[fut.key]] = f"{type(e).__name__}: {e}"
                        continue
                    finally:
                        fut.release()
                    if store(con, row):
                        if row["status"] == "ok":
                            summary.added += 1
                            summary.grades[row["grade"]] += 1
                        else:
                            summary.skipped[row["seed"]] = row["reason"]
                    done += 1
                    if on_result is not None:
                        on_result(client, row, done, len(todo))
        finally:
            if cluster is not None:
                cluster.close()
    finally:
        con.close()
        summary.seconds = time.perf_counter() - t0
    return summary
