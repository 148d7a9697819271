"""The package is lint-clean (ruff) and type-checks (mypy), as part of the
test command, so CI holds both."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=900)


def test_ruff_is_clean():
    r = _run("ruff", "check", "sensor_ghosts", "tests", "benchmarks")
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_is_clean():
    r = _run("mypy", "--no-incremental", "--config-file", "pyproject.toml")
    assert r.returncode == 0, r.stdout + r.stderr
