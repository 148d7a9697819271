"""``sensor-ghosts generate`` through Click's test runner: exit 0 / 2."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from sensor_ghosts.cli.generate_cmd import generate
from sensor_ghosts.generators import generate_setup, setup_from_id
from sensor_ghosts.rules.options import RuleOptions

from .helpers import card_set


def run(*args: str):
    return CliRunner().invoke(generate, list(args), catch_exceptions=False)


def test_text_default():
    from sensor_ghosts.rules.notation import format_setup, parse_setup

    r = run("--seed", "12345")
    assert r.exit_code == 0, r.output
    assert r.output == format_setup(generate_setup(12345))
    assert parse_setup(r.output).id == "1p-standard#12345"


def test_options_and_id():
    from sensor_ghosts.rules.notation import format_setup

    r = run("--seed", "3", "--players", "2", "--difficulty", "advanced", "--escape-pod",
            "--low-memory", "--option", "flip-one", "--constraint", "reachable")  # fmt: skip
    assert r.exit_code == 0, r.output
    opts = RuleOptions(
        players=2, difficulty="advanced", escape_pod=True, low_memory=True, flip_one=True
    )
    s = generate_setup(3, opts, constraints=["reachable"])
    assert r.output == format_setup(s)
    r2 = run("--id", s.id)
    assert r2.exit_code == 0 and r2.output == r.output


def test_json_and_jsonl_batches(tmp_path):
    from sensor_ghosts.rules.notation import setup_from_json

    r = run("--seed", "1", "--count", "3", "--format", "jsonl")
    assert r.exit_code == 0
    lines = r.output.splitlines()
    assert len(lines) == 3
    ids = [setup_from_json(json.loads(line)).id for line in lines]
    assert ids == ["1p-standard#1", "1p-standard#2", "1p-standard#3"]
    r = run("--seed", "1", "--count", "2", "--format", "json")
    arr = json.loads(r.output)
    assert [setup_from_json(o).id for o in arr] == ids[:2]
    r = run("--seed", "1", "--format", "json")
    assert setup_from_json(json.loads(r.output)) == generate_setup(1)


def test_out_file_atomic(tmp_path):
    out = tmp_path / "batch.txt"
    r = run("--seed", "5", "--count", "4", "--out", str(out))
    assert r.exit_code == 0 and r.output == ""
    text = out.read_text()
    assert text.count("sensor-ghosts setup") == 4
    assert [p.name for p in tmp_path.iterdir()] == ["batch.txt"]  # no temp file left


@pytest.mark.parametrize("fmt", ["jsonl", "json", "text"])
def test_interrupted_batch_keeps_finished_setups_whole(tmp_path, monkeypatch, fmt):
    import sensor_ghosts.cli.generate_cmd as mod
    from sensor_ghosts.rules.notation import load_text

    calls = {"n": 0}
    real = mod.generate_setup

    def flaky(*a, **k):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(*a, **k)

    monkeypatch.setattr(mod, "generate_setup", flaky)
    out = tmp_path / f"b.{fmt}"
    r = CliRunner().invoke(
        generate, ["--seed", "1", "--count", "5", "--format", fmt, "--out", str(out)]
    )
    assert r.exit_code == 130
    assert calls["n"] == 3
    assert [p.name for p in tmp_path.iterdir()] == [out.name]  # no temporary left
    text = out.read_text()
    if fmt == "jsonl":
        records = [json.loads(line) for line in text.splitlines()]
    elif fmt == "json":
        records = json.loads(text)
    else:
        records = text.split("\n\n")
    assert len(records) == 2  # the two finished setups, each complete
    for rec, seed in zip(records, (1, 2), strict=True):
        src = json.dumps(rec) if fmt != "text" else rec
        assert load_text(src).id.endswith(f"#{seed}")


def test_no_progress_bar_when_piped():
    r = CliRunner().invoke(generate, ["--seed", "1", "--count", "3", "--format", "jsonl"])
    assert r.exit_code == 0
    assert "generating" not in r.output
    assert "generating" not in (r.stderr if hasattr(r, "stderr") else "")


@pytest.mark.parametrize(
    "args",
    [
        ["--players", "5"],
        ["--difficulty", "nightmare"],
        ["--seed", "-1"],
        ["--seed", "x"],
        ["--count", "0"],
        ["--format", "xml"],
        ["--option", "turbo"],
        ["--constraint", "nope"],
        ["--id", "1p-hard#1"],
        ["--id", "1p-standard#1", "--seed", "2"],
        ["--id", "1p-standard#1", "--count", "2"],
        ["--cards", "/nonexistent/cards.txt"],
    ],
)
def test_bad_options_exit_2(args):
    r = CliRunner().invoke(generate, args)
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output
    assert "Error" in r.output


def test_cards_file(tmp_path):
    cs = card_set(8, 4, 11, 10)
    f = tmp_path / "mine.txt"
    f.write_text("\n".join(f"{c.id} {c.pair}" for c in cs.cards) + "\n")
    r = run("--seed", "4", "--cards", str(f), "--format", "json")
    assert r.exit_code == 0, r.output
    obj = json.loads(r.output)
    from sensor_ghosts.rules.cards import SectorCardSet

    loaded = SectorCardSet.load(f)
    gid = obj.get("id")
    assert gid and setup_from_id(gid, sector_cards=loaded).id == gid
    # a set that can never be made safe [D7] is a bad --cards
    bad = card_set(3, 2, 15, 13)
    g = tmp_path / "bad.txt"
    g.write_text("\n".join(f"{c.id} {c.pair}" for c in bad.cards) + "\n")
    r = CliRunner().invoke(generate, ["--cards", str(g)])
    assert r.exit_code == 2 and "E/B" in r.output
