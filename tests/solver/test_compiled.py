"""The compiled kernels are made ready before a caller's clock starts
(``solver/compiled.py``): a first call that compiles for a minute must not
spend a solve's or a hint's time limit."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from sensor_ghosts.advisor import hint
from sensor_ghosts.generators import generate_setup
from sensor_ghosts.rules.observation import observe
from sensor_ghosts.rules.state import initial_state
from sensor_ghosts.solver import compiled, solve
from sensor_ghosts.solver.search import TtyProgress

SLOW = 0.6  # seconds a simulated first call takes (a compile takes a minute)


@pytest.fixture
def slow_first_call(monkeypatch):
    """A process whose kernels were never called, where the first call of
    the grid turns' kernel takes ``SLOW`` seconds; returns the calls made."""
    calls = []

    class SlowGridTurns(compiled.CompiledGridTurns):
        def nexts(self, gk, pc):
            calls.append(pc)
            time.sleep(SLOW)
            return super().nexts(gk, pc)

    monkeypatch.setattr(compiled, "_ready", set())
    monkeypatch.setattr(compiled, "CompiledGridTurns", SlowGridTurns)
    return calls


def test_first_solve_loads_the_kernels_outside_its_time_limit(slow_first_call):
    setup = generate_setup(seed=4)  # a fast solve: well under a tenth of a second
    got = solve(setup, mode="deal", objective="turns-only", timeout=SLOW / 2)
    assert slow_first_call, "the first solve made the kernels' first calls"
    assert got.status == "solved"  # the load did not spend the time limit
    assert got.seconds < SLOW / 2
    again = solve(setup, mode="deal", objective="turns-only", timeout=SLOW / 2)
    assert len(slow_first_call) == 1 and again.status == "solved"  # once a process


def test_load_is_once_a_process_and_says_so_when_slow(slow_first_call, monkeypatch):
    monkeypatch.setattr(compiled, "NOTICE_AFTER", 0.05)
    notices = []
    state = initial_state(generate_setup(seed=4))
    took = compiled.load_for(state, notice=lambda: notices.append(1))
    assert took >= SLOW and notices == [1]
    assert compiled.load_for(state, notice=lambda: notices.append(2)) == 0.0
    # (and the relaxed search it may turn to: ``relaxed.TRACK_AFTER``)
    assert notices == [1] and set(compiled._ready) == {*compiled.KERNELS, "search-track"}


def test_a_fast_load_gives_no_notice(monkeypatch):
    state = initial_state(generate_setup(seed=4))
    compiled.load_for(state, notice=None)  # (compiled here if no test before did)
    monkeypatch.setattr(compiled, "_ready", set())
    notices = []
    compiled.load_for(state, notice=lambda: notices.append(1))
    assert notices == []  # the kernels are in this process already: well under NOTICE_AFTER


def test_hint_budget_leaves_out_the_load(slow_first_call):
    s = initial_state(generate_setup(seed=3))
    # A budget the load alone would use up: no world would be valued.
    got = hint(observe(s, 0), seed=1, budget=SLOW, worlds=4)
    assert slow_first_call
    # The budget was left for the search: it searched about as long as asked.
    assert got.worlds >= 1 and got.seconds >= 0.5 * SLOW


def test_progress_line_is_closed_only_when_shown(capsys):
    p = TtyProgress()
    p.end()
    assert capsys.readouterr().err == ""  # a short solve prints nothing
    p({"nodes": 5, "states": 9, "bound": 11, "seconds": 0.5})
    p.end()
    err = capsys.readouterr().err
    assert err.startswith("\rsolving: 5 nodes") and err.endswith("\n")


@pytest.mark.parametrize(("flag", "search"), [("second_action", "search-second"), ("two_samples", "search-track")])
def test_a_game_loads_the_relaxed_search_compiled_for_it(flag, search, monkeypatch):
    # The relaxed search is compiled apart for the §12 second action, and for
    # two samples to win (tokens tracked): a process that has the plain
    # kernels still loads that one, once.
    from sensor_ghosts.rules.options import RuleOptions

    monkeypatch.setattr(compiled, "_ready", set(compiled.KERNELS))
    state = initial_state(generate_setup(4, RuleOptions(**{flag: True})))
    compiled.load_for(state, notice=None)
    assert search in compiled._ready
    assert compiled.load_for(state, notice=None) == 0.0


def test_a_one_sample_game_loads_the_search_it_may_turn_to(monkeypatch):
    # After ``relaxed.TRACK_AFTER`` searches the plain game tracks the tokens:
    # that search is loaded before the clock too.
    monkeypatch.setattr(compiled, "_ready", set())
    monkeypatch.setattr(compiled, "_search_of", {})
    compiled.load_for(initial_state(generate_setup(4)), notice=None)
    assert {"search", "search-track"} <= compiled._ready


def test_processes_make_the_kernels_one_at_a_time(slow_first_call, monkeypatch, tmp_path):
    # Processes compiling and caching the same kernel at once can crash one
    # another (numba/numba#4807): ``load_for`` makes them holding a lock
    # between processes. Here another process holds it; the kernels are
    # made only once it has let go.
    monkeypatch.setattr(compiled, "LOCK_PATH", tmp_path / "kernels.lock")
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from filelock import FileLock\n"
         "lock = FileLock(sys.argv[1]); lock.acquire(); print('held', flush=True)\n"
         "time.sleep(1.0); print(time.time(), flush=True); lock.release()", str(compiled.LOCK_PATH)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        made = []
        real = compiled.CompiledGridTurns.nexts

        def nexts(self, gk, pc):
            made.append(time.time())
            return real(self, gk, pc)

        monkeypatch.setattr(compiled.CompiledGridTurns, "nexts", nexts)
        setup = generate_setup(seed=4)
        compiled.load_for(initial_state(setup, setup.deal), notice=None)
        let_go = float(holder.stdout.readline())
    finally:
        holder.wait(10)
    assert made and made[0] >= let_go and slow_first_call


def test_the_kernels_are_made_without_the_lock_where_it_cannot_be_had(slow_first_call, monkeypatch, tmp_path):
    (tmp_path / "a file").write_text("")
    monkeypatch.setattr(compiled, "LOCK_PATH", tmp_path / "a file" / "kernels.lock")  # (no lock file can be made)
    setup = generate_setup(seed=4)
    compiled.load_for(initial_state(setup, setup.deal), notice=None)
    assert slow_first_call
