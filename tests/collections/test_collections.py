"""Collections (issue 35): a real Dask LocalCluster builds, loses a worker,
resumes; the file is refused when foreign; every stored plan wins."""

from __future__ import annotations

import json
import os
import sqlite3

import pytest
from click.testing import CliRunner

from sensor_ghosts.cli.main import main
from sensor_ghosts.collections import CollectionError, open_collection
from sensor_ghosts.collections.build import build
from sensor_ghosts.collections.grades import Features, grade
from sensor_ghosts.collections.query import plan_turns, rows
from sensor_ghosts.rules.engine import apply_turn
from sensor_ghosts.rules.options import RuleOptions
from sensor_ghosts.rules.state import Status, initial_state

# One local cluster for the module, used in order: its tests stay on one xdist worker.
pytestmark = pytest.mark.xdist_group("collections")

SEEDS = range(1, 5)
# Small budgets: the first-move counts and most of the careful solve are left
# out (``test_first_moves_*`` test them apart); every budget is in nodes, so
# the rows stay a function of the seed.
FAST = {"first_moves": False, "careful_nodes": 1}
COMPARED = ("game_id", "seed", "options", "setup", "turns", "cards", "proof", "plan_text", "plan_json",
            "features", "grade", "score", "version")


def _table(path) -> dict[str, tuple]:
    con = sqlite3.connect(path)
    try:
        got = [tuple(r) for r in con.execute(f"SELECT {', '.join(COMPARED)} FROM puzzles")]
    finally:
        con.close()
    return {r[0]: r for r in got}


@pytest.fixture(scope="module")
def cluster():
    """One real local cluster for the module (worker processes, one thread
    each): started with one worker, scaled to two by the killed-worker test."""
    from sensor_ghosts.collections.build import local_cluster

    c = local_cluster(1)
    try:
        yield c
    finally:
        c.close()


@pytest.fixture(scope="module")
def one_worker(cluster, tmp_path_factory):
    path = tmp_path_factory.mktemp("coll") / "one.db"
    summary = build(path, SEEDS, RuleOptions(), scheduler=cluster.scheduler_address, **FAST)
    assert summary.workers == 1
    return path, summary


def test_build_one_worker_stores_every_seed(one_worker):
    path, summary = one_worker
    assert summary.added + len(summary.skipped) == len(SEEDS)
    assert summary.added >= 3  # these seeds solve in milliseconds
    con = sqlite3.connect(path)
    n, distinct = con.execute("SELECT COUNT(*), COUNT(DISTINCT game_id) FROM puzzles").fetchone()
    con.close()
    assert n == distinct == summary.added


def test_bot_study_on_dask_same_games(cluster):
    """``benchmarks/bots.py``'s Dask path: each game is seeded by (bot, seed),
    so games spread over the two workers equal the same games played here in
    one process. (It scales the shared cluster to two workers, before the
    killed-worker test.)"""
    import importlib.util
    import sys
    from pathlib import Path

    from distributed import Client

    from sensor_ghosts.advisor.bots import play_game

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "bots.py"
    spec = importlib.util.spec_from_file_location("_sg_bots_dask", path)
    assert spec is not None and spec.loader is not None
    bots = importlib.util.module_from_spec(spec)
    # Not put in sys.modules: its functions then go to the workers by value
    # (cloudpickle), as they do from the script run as __main__.
    spec.loader.exec_module(bots)
    assert spec.name not in sys.modules
    cluster.scale(2)
    with Client(cluster) as c:
        c.wait_for_workers(2, timeout=120)
    jobs = [(bot, "standard", seed, 0.3) for seed in (1, 2, 3) for bot in ("random", "greedy")]
    games = bots.run_games(jobs, scheduler=cluster.scheduler_address)
    assert [(g["bot"], g["seed"]) for g in games] == [(b, s) for b, _, s, _ in jobs]
    for g in games:
        here = play_game(g["bot"], g["seed"]).as_dict()
        assert (g["won"], g["turns"], g["reason"], g["last"]) == (here["won"], here["turns"], here["reason"],
                                                                 here["last"])


def test_two_workers_one_killed_same_rows(cluster, one_worker, tmp_path):
    """A worker killed after the first result: Dask runs its tasks again; the
    database ends complete, without duplicates, equal to the 1-worker build.
    (It scales the shared cluster to two workers: keep it last of its users.)"""
    from distributed import Client

    path1, _ = one_worker
    cluster.scale(2)
    with Client(cluster) as c:
        c.wait_for_workers(2, timeout=120)
    path2 = tmp_path / "two.db"
    killed = []

    def kill_one(client, row, done, total):
        if killed:
            return
        busy = [w for w, keys in client.processing().items() if keys]
        if busy:
            try:
                client.run(os._exit, 1, workers=[busy[0]])
            except Exception:  # noqa: BLE001 - the worker dies before it answers
                pass
            killed.append(busy[0])

    summary = build(path2, SEEDS, RuleOptions(), scheduler=cluster.scheduler_address, on_result=kill_one, **FAST)
    assert summary.workers == 2
    assert killed, "no worker was busy to be killed"
    assert _table(path2) == _table(path1)
    con = sqlite3.connect(path2)
    n, distinct = con.execute("SELECT COUNT(*), COUNT(DISTINCT game_id) FROM puzzles").fetchone()
    con.close()
    assert n == distinct == len(_table(path1))
    # Resume: every seed is stored, so a second build runs nothing (no cluster is needed).
    again = build(path2, SEEDS, RuleOptions(), scheduler="tcp://127.0.0.1:1", **FAST)
    assert again.already == len(SEEDS) and again.added == 0
    assert summary.added + len(summary.skipped) == len(SEEDS)


def test_every_stored_plan_wins(one_worker):
    path, _ = one_worker
    stored = list(rows(path))
    assert stored
    for r in stored:
        setup, turns = plan_turns(r)
        assert len(turns) == r["turns"]
        state = initial_state(setup, setup.deal)
        for t in turns:
            state = apply_turn(state, t)
        assert state.outcome.status is Status.WON
        assert r["proof"] in ("optimal", "turns")


def test_foreign_and_corrupt_files_refused(tmp_path):
    text = tmp_path / "notes.db"
    text.write_text("hello\n")
    with pytest.raises(CollectionError, match="not an SQLite database"):
        open_collection(text)
    other = tmp_path / "other.db"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    with pytest.raises(CollectionError, match="meta"):
        open_collection(other)
    broken = tmp_path / "broken.db"
    data = bytearray(b"SQLite format 3\x00" + os.urandom(3000))
    broken.write_bytes(bytes(data))
    with pytest.raises(CollectionError):
        open_collection(broken)
    res = CliRunner().invoke(main, ["collection", "stats", str(other)])
    assert res.exit_code == 2 and "not a sensor-ghosts collection" in res.output
    assert "Traceback" not in res.output
    res = CliRunner().invoke(main, ["collection", "build", str(text), "--count", "1"])
    assert res.exit_code == 2 and "not an SQLite database" in res.output
    assert text.read_text() == "hello\n"  # left as it was


def test_query_stats_booklet_cli(one_worker, tmp_path):
    path, summary = one_worker
    runner = CliRunner()
    res = runner.invoke(main, ["collection", "query", str(path), "--format", "jsonl"])
    assert res.exit_code == 0, res.output
    got = [json.loads(line) for line in res.output.splitlines()]
    assert len(got) == summary.added
    ranks = [(g["grade_rank"], g["score"]) for g in got]
    assert ranks == sorted(ranks)  # easy to hard
    t = got[0]["turns"]
    res = runner.invoke(main, ["collection", "query", str(path), "--turns", f"{t}-{t}", "--format", "jsonl"])
    assert all(json.loads(line)["turns"] == t for line in res.output.splitlines()) and res.output
    res = runner.invoke(main, ["collection", "query", str(path), "--turns", "13-12"])
    assert res.exit_code == 2
    res = runner.invoke(main, ["collection", "stats", str(path), "--json"])
    s = json.loads(res.output)
    assert s["puzzles"] == summary.added and sum(s["grades"].values()) == summary.added
    pdf = tmp_path / "book.pdf"
    res = runner.invoke(main, ["collection", "booklet", str(path), "--pdf", str(pdf), "--count", "2",
                               "--solutions"])
    assert res.exit_code == 0, res.output
    from pypdf import PdfReader

    assert len(PdfReader(pdf).pages) == 4  # two puzzles, two solutions
    none = tmp_path / "none.pdf"
    res = runner.invoke(main, ["collection", "booklet", str(path), "--pdf", str(none), "--turns", "99"])
    assert res.exit_code == 2 and not none.exists()


def _features(**kw) -> Features:
    base = {"turns": 10, "cards": 10, "first_moves": 200, "first_moves_optimal": 20, "first_moves_unknown": 0,
            "deep_scan": False, "wild_three": False, "wild_card": False, "bolster": False, "boosts": 0,
            "boost_chain": False, "second_pass": False, "careful_turns": 11, "careful_status": "solved"}
    return Features(**{**base, **kw})


def test_grades_order_by_points():
    assert grade(_features()) == ("easy", 0)
    # Techniques and the first moves earn no points (grade_rule says why).
    assert grade(_features(deep_scan=True, second_pass=True, bolster=True, first_moves_optimal=1)) == ("easy", 0)
    assert grade(_features(turns=11)) == ("medium", 1)
    assert grade(_features(cards=14)) == ("medium", 1)
    assert grade(_features(careful_turns=None, careful_status="unknown")) == ("medium", 1)
    assert grade(_features(turns=11, cards=14)) == ("hard", 2)
    assert grade(_features(turns=12, careful_turns=None, careful_status="unsolvable")) == ("fiendish", 3)
    assert grade(_features(turns=15, cards=20, careful_turns=None, careful_status="unknown")) == ("fiendish", 5)


def test_an_older_rule_is_graded_again_on_open(one_worker, tmp_path):
    """A collection whose grades follow another rule gets this rule's grades
    from its stored features when opened, and its meta says so."""
    import shutil

    from sensor_ghosts.collections.grade_rule import GRADE_RULE, GRADES, grade_of

    path, _ = one_worker
    old = tmp_path / "old.db"
    shutil.copy(path, old)
    con = sqlite3.connect(old)
    with con:
        con.execute("UPDATE puzzles SET grade = 'easy', grade_rank = 0, score = -1")
        con.execute("DELETE FROM meta WHERE key = 'grade_rule'")
    con.close()
    con = open_collection(old)
    got = con.execute("SELECT features, grade, grade_rank, score FROM puzzles").fetchall()
    rule = dict(con.execute("SELECT key, value FROM meta"))["grade_rule"]
    con.close()
    assert got and rule == str(GRADE_RULE)
    for feats, name, rank, score in got:
        assert (name, score) == grade_of(json.loads(feats)) and rank == GRADES.index(name)


@pytest.fixture(scope="module")
def seed1_states():
    """The positions along seed 1's optimal plan (its fewest turns last)."""
    from sensor_ghosts.generators.generate import generate_setup
    from sensor_ghosts.puzzles import solve_setup

    setup = generate_setup(1, RuleOptions())
    res = solve_setup(setup, timeout=60, objective="turns-only")
    return res.plan.replay(), res.turns


def test_first_moves_near_the_end(seed1_states):
    """From two turns before the end of a solved plan, the plan's own move is
    among those that keep the optimum; not every move does."""
    from sensor_ghosts.collections.grades import _first_moves

    states, _ = seed1_states
    moves, keep, unknown = _first_moves(states[-3], 2)
    assert 1 <= keep < moves
    moves1, keep1, _ = _first_moves(states[-2], 1)
    assert 1 <= keep1 < moves1


def test_first_moves_bound_changes_no_count(seed1_states, monkeypatch):
    """The relaxed game's bound only spares solves: with it turned off (every
    position solved) the counts are the same, on the position 2 turns from
    the end; and it did spare some."""
    from sensor_ghosts.collections import grades

    states, _ = seed1_states
    calls = []
    real = grades._may_win_within

    def counted(state, turns):
        calls.append(got := real(state, turns))
        return got

    monkeypatch.setattr(grades, "_may_win_within", counted)
    fast = grades._first_moves(states[-3], 2)
    monkeypatch.setattr(grades, "_may_win_within", lambda state, turns: True)
    assert grades._first_moves(states[-3], 2) == fast
    assert fast[1] >= 1 and calls.count(False) > 0


def test_main_solve_budgets_are_nodes():
    """The stored result is decided by the node budget: too few nodes for the
    card stage leaves the first stage's plan (proof 'turns'), none at all
    skips the seed; only the clock safety net gives 'timeout'."""
    from sensor_ghosts.collections.build import _main_solve
    from sensor_ghosts.generators.generate import generate_setup

    setup = generate_setup(1, RuleOptions())
    full = _main_solve(setup, 60.0, 200_000)
    assert not isinstance(full, str) and full.objective == "turns"
    assert _main_solve(setup, 60.0, 200_000).plan.to_text() == full.plan.to_text()
    part = _main_solve(setup, 60.0, 12)  # the turns-only stage needs 12 nodes on this seed, the card stage more
    assert not isinstance(part, str) and part.objective == "turns-only" and part.turns == full.turns
    assert _main_solve(setup, 60.0, 5) == "not solved within 5 nodes (at least 11 turns)"
    assert _main_solve(setup, 1e-9, 200_000) == "timeout"


def test_sigterm_stops_a_build_and_its_workers(tmp_path):
    """SIGTERM to `collection build` exits 143 with one line, keeps the rows
    finished, and leaves no worker process of its local cluster behind."""
    import signal
    import subprocess
    import sys
    import time

    import psutil

    db = tmp_path / "t.db"
    p = subprocess.Popen([sys.executable, "-m", "sensor_ghosts", "collection", "build", str(db), "--count", "200",
                          "--workers", "2", "--no-first-moves"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 240
        stored = 0
        while stored == 0 and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.5)
            if db.exists():
                try:
                    stored = sqlite3.connect(db).execute("SELECT count(*) FROM puzzles").fetchone()[0]
                except sqlite3.Error:
                    pass
        assert stored > 0 and p.poll() is None, "the build stored nothing, or ended, before the signal"
        workers = psutil.Process(p.pid).children(recursive=True)
        assert workers
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=60)
        assert p.returncode == 143 and "terminated" in err and "Traceback" not in err, err
        gone, alive = psutil.wait_procs(workers, timeout=30)
        assert not alive, [w.cmdline() for w in alive]
        assert len(list(rows(db))) >= stored
    finally:
        if p.poll() is None:
            p.kill()
