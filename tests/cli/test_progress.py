"""The solver is silent unless asked (``progress=None``); the commands that
show its progress line on a terminal ask for it (``search.tty_progress``)."""

from __future__ import annotations

import io

import pytest
from click.testing import CliRunner

from sensor_ghosts import solver
from sensor_ghosts.cli.main import main
from sensor_ghosts.generators import generate_setup
from sensor_ghosts.rules.errors import SensorGhostsError
from sensor_ghosts.rules.notation import format_setup
from sensor_ghosts.solver import search


class _Stop(SensorGhostsError):
    """Ends the command right after the call under test (no search is run)."""


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    """The keyword arguments of each ``solve``/``solve_staged`` call a command
    makes; ``tty_progress`` returns a marker to find in them."""
    seen: list[dict] = []

    def spy(_instance: object, **kw: object) -> None:
        seen.append(kw)
        raise _Stop("stopped by the test")

    monkeypatch.setattr(search, "tty_progress", lambda: "tty")
    monkeypatch.setattr(solver, "solve", spy)
    monkeypatch.setattr(solver, "solve_staged", spy)
    return seen


@pytest.mark.parametrize("command", ["solve", "verify"])
def test_solve_and_verify_ask_for_the_progress_line(calls: list[dict], tmp_path, command: str) -> None:
    path = tmp_path / "s.txt"
    path.write_text(format_setup(generate_setup(7)))
    CliRunner().invoke(main, [command, str(path)])
    assert [kw.get("progress") for kw in calls] == ["tty"]


@pytest.mark.parametrize("objective", ["turns", "turns-only"])
def test_generate_solve_asks_for_the_progress_line(calls: list[dict], objective: str) -> None:
    CliRunner().invoke(main, ["generate", "--seed", "7", "--solve", "--objective", objective])
    assert [kw.get("progress") for kw in calls] == ["tty"]


def test_the_library_is_silent_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    err = Tty()
    monkeypatch.setattr("sys.stderr", err)
    # A progress printer made at all would show the line on a long search;
    # counting them makes the test independent of how fast this one is.
    made: list[object] = []
    monkeypatch.setattr(search.TtyProgress, "__init__", lambda self: made.append(self))
    solver.solve(generate_setup(7), mode="open", timeout=1.5)
    solver.solve_staged(generate_setup(7), mode="open", timeout=1.5)
    assert made == []
    # (``compiled.load_for`` may still say, once, that it is compiling: a
    # separate notice, not the search's progress line.)
    assert "solving:" not in err.getvalue()


@pytest.mark.parametrize("args", [["generate", "--seed", "7", "--solve"],
                                  ["generate", "--seed", "7", "--solve", "--solved-only"]])
def test_a_first_solve_says_it_is_compiling(monkeypatch: pytest.MonkeyPatch, args: list[str]) -> None:
    # The commands leave ``compiled.load_for``'s notice on (standard error,
    # terminal or not): a first solve after an install compiles for a minute.
    # Here the kernels count as not yet loaded and the notice is due at once.
    from sensor_ghosts.solver import compiled

    monkeypatch.setattr(compiled, "_ready", set())
    monkeypatch.setattr(compiled, "NOTICE_AFTER", 0.0)
    r = CliRunner().invoke(main, [*args, "--objective", "turns-only", "--timeout", "5"])
    assert r.exit_code == 0, r.output
    assert r.stderr.startswith("sensor-ghosts: compiling the solver's kernels")
    assert "id: 1p-standard#7" in r.stdout.splitlines()
