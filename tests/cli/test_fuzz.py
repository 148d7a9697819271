"""A bounded Hypothesis version of ``benchmarks/fuzz.py`` (issue 33): mutated
setups, states, observations, turn strings and game IDs through every command,
in-process; no traceback, no run far over its limit. The benchmark runs
100,000 inputs."""

from __future__ import annotations

import importlib.util
import random
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sensor_ghosts.cli.main import main

_path = Path(__file__).resolve().parents[2] / "benchmarks" / "fuzz.py"
_spec = importlib.util.spec_from_file_location("_sg_fuzz", _path)
fuzz = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuzz)

SEARCH, BUDGET, GRACE = 0.3, 0.05, 1.0
SPECS = fuzz.commands(SEARCH, BUDGET)
# hint's own budget is overrun on some four-player positions (issue 33's
# "hint --budget 0.5 answered after 6.7 s", in solver/hints.py): its limit here
# is the alarm's, not budget + 1 s.
SLACK = {"hint": 5.0, "hint (a state)": 5.0}


@pytest.fixture(scope="module")
def corpus():
    fuzz.warm_up()  # the compiled kernels' one-time load is no run's time
    return fuzz.corpus(3)


@pytest.fixture(scope="module")
def tmp(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


def _input(name: str, corpus: dict, rng: random.Random) -> tuple[str, str]:
    kind = SPECS[name][0]
    if kind == "turn":
        states = [d for d in corpus["doc"] if d.startswith("sensor-ghosts state")]
        return rng.choice(states), fuzz.mutated("turn", rng.choice(corpus["turn"]), rng).replace("\n", " ")
    if kind == "id":
        return fuzz.mutated("id", rng.choice(corpus["id"]), rng).replace("\n", " ").replace("\x00", ""), ""
    return fuzz.mutated(kind, rng.choice(corpus[kind]), rng), ""


@settings(max_examples=240, deadline=None, suppress_health_check=list(HealthCheck))
@given(name=st.sampled_from(sorted(SPECS)), seed=st.integers(0, 2**32 - 1))
def test_mutated_input_never_ends_in_a_traceback(corpus, tmp, name, seed):
    rng = random.Random(seed)
    text, extra = _input(name, corpus, rng)
    # CPU time, not wall time: the suite may share a loaded machine.
    t0 = time.process_time()
    r = fuzz.run_one(CliRunner(), main, SPECS[name], text, tmp, extra)
    secs = time.process_time() - t0
    exc = r.exception
    assert exc is None or isinstance(exc, SystemExit), (name, text, repr(exc))
    assert "Traceback" not in r.output
    assert r.exit_code in (0, 1, 2, 3), (name, r.exit_code, r.output[-300:])
    if r.exit_code == 2 and "Usage:" not in r.stderr:
        assert len(fuzz.error_lines(r, SPECS[name][1])) == 1, (r.stdout, r.stderr)
    assert secs <= SPECS[name][2] + GRACE + SLACK.get(name, 0.0), (name, secs, text)


def test_the_mutations_change_the_documents(corpus):
    # Every mutation kind is live: most mutated documents differ from the valid one.
    rng = random.Random(0)
    docs = corpus["doc"]
    changed = sum(fuzz.mutated("doc", d, rng) != d for d in docs[:60])
    assert changed >= 50
