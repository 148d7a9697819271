"""Bad input to every command that reads a file: exit 2 and a one-line reason,
never a traceback and never a partial output file (issue 2, "What must hold")."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from sensor_ghosts.cli.main import main
from sensor_ghosts.generators import generate_setup
from sensor_ghosts.rules.notation import format_setup, setup_to_json

GOOD = format_setup(generate_setup(11))
GOOD_LINES = GOOD.splitlines()


def _six_rows() -> str:
    lines = [ln for ln in GOOD_LINES if not ln.startswith("1:")]
    return "\n".join(lines) + "\n"


def _sample_on_gap() -> str:
    out = []
    for ln in GOOD_LINES:
        if ln[:2] in ("3:", "4:", "5:", "6:", "7:") and " -" in ln and "*" not in out:
            toks = ln.split()
            for i, t in enumerate(toks[1:], 1):
                if t.startswith("-"):
                    toks[i] = t + "*v"
                    break
            ln = " ".join(toks)
            out.append(ln)
            out.append("*")  # marker: done
            continue
        out.append(ln)
    return "\n".join(x for x in out if x != "*") + "\n"


BAD_FILES = {
    "empty": b"",
    "binary": bytes(range(256)) * 4,
    "truncated-json": json.dumps(setup_to_json(generate_setup(11)))[:-40].encode(),
    "six-rows": _six_rows().encode(),
    "sample-on-gap": _sample_on_gap().encode(),
    "bad-option-value": GOOD.replace("difficulty: standard", "difficulty: nightmare").encode(),
}

# Each command that reads a setup/state file, with the arguments after FILE.
COMMANDS = {
    "validate": [],
    "show": [],
    "perft": ["1"],
    "solve": [],
    "verify": [],
    "render": ["--format", "svg"],
    "hint": [],
}


def _run(args):
    return CliRunner().invoke(main, args, catch_exceptions=False)


@pytest.mark.parametrize("bad", sorted(BAD_FILES))
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_bad_file_exits_2_with_one_line(tmp_path, command, bad):
    path = tmp_path / f"{bad}.txt"
    path.write_bytes(BAD_FILES[bad])
    out = tmp_path / "out.svg"
    extra = ["--out", str(out)] if command == "render" else []
    r = _run([command, str(path), *COMMANDS[command], *extra])
    assert r.exit_code == 2, (command, bad, r.output)
    message = r.stderr.strip()
    assert message.startswith("Error:"), message
    assert len(message.splitlines()) == 1, message
    assert "Traceback" not in r.output
    assert not out.exists(), "no partial output file"


def test_bad_file_messages_name_the_problem(tmp_path):
    cases = {
        "empty": "empty",
        "six-rows": "row",
        "sample-on-gap": "gap",
        "bad-option-value": "nightmare",
        "binary": "",
    }
    for bad, word in cases.items():
        path = tmp_path / f"{bad}.txt"
        path.write_bytes(BAD_FILES[bad])
        r = _run(["validate", str(path)])
        assert r.exit_code == 2
        assert word in r.stderr.lower(), (bad, r.stderr)
        assert str(path) in r.stderr or "<" in r.stderr, r.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["generate", "--difficulty", "nightmare"],
        ["generate", "--players", "7"],
        ["solve", "FILE", "--mode", "psychic"],
        ["render", "FILE", "--format", "gif"],
        ["validate", "FILE", "--frobnicate"],
        ["perft", "FILE", "-1"],
        ["play", "--option", "time-travel"],
    ],
)
def test_unknown_option_values_exit_2(tmp_path, args):
    path = tmp_path / "good.txt"
    path.write_text(GOOD)
    args = [str(path) if a == "FILE" else a for a in args]
    r = _run(args)
    assert r.exit_code == 2, (args, r.output)
    assert "Traceback" not in r.output


def test_json_error_object(tmp_path):
    path = tmp_path / "t.json"
    path.write_bytes(BAD_FILES["truncated-json"])
    r = _run(["validate", str(path), "--json"])
    assert r.exit_code == 2
    err = json.loads(r.stdout)["error"]
    assert err["message"] and err["kind"] == "NotationError"


def test_validate_exit_statuses(tmp_path):
    good = tmp_path / "good.txt"
    good.write_text(GOOD)
    assert _run(["validate", str(good)]).exit_code == 0
    # A well-formed but illegal setup: a fourth gap. Exit 1, every problem listed.
    lines = GOOD.splitlines()
    for i, ln in enumerate(lines):
        if ln.startswith("2:"):
            toks = ln.split()
            toks[3] = "-" + toks[3][0] + toks[3][1].lower()
            lines[i] = " ".join(toks)
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join(lines) + "\n")
    r = _run(["validate", str(bad), "--json"])
    assert r.exit_code == 1, r.output
    report = json.loads(r.stdout)
    assert report["valid"] is False
    assert any(v["rule"] in ("D8", "step 10") for v in report["violations"])


def test_real_process_has_no_traceback(tmp_path):
    path = tmp_path / "garbage.bin"
    path.write_bytes(BAD_FILES["binary"])
    p = subprocess.run(
        [sys.executable, "-m", "sensor_ghosts", "validate", str(path)],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 2
    assert "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1
