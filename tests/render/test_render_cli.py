"""``sensor-ghosts render``: formats, bad input (exit 2, one line, no file)."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parents[1]))
from factories import quick_setup  # noqa: E402

from sensor_ghosts.cli.render_cmd import render  # noqa: E402


@pytest.fixture()
def setup_file(tmp_path):
    from sensor_ghosts.rules.notation import format_setup

    p = tmp_path / "puzzle.txt"
    p.write_text(format_setup(quick_setup(3)), encoding="utf-8")
    return p


def run(*args):
    return CliRunner().invoke(render, [str(a) for a in args])


def test_svg_default_out(setup_file):
    r = run(setup_file)
    assert r.exit_code == 0, r.output
    out = setup_file.with_suffix(".svg")
    root = ET.parse(out).getroot()
    assert len([g for g in root.iter("{http://www.w3.org/2000/svg}g") if (g.get("id") or "").startswith("cell-")]) == 35


def test_pdf_and_png(setup_file, tmp_path):
    from PIL import Image
    from pypdf import PdfReader

    r = run(setup_file, "--format", "pdf", "--hide", "--out", tmp_path / "p.pdf")
    assert r.exit_code == 0, r.output
    assert len(PdfReader(tmp_path / "p.pdf").pages) == 1
    r = run(setup_file, "--format", "png", "--dpi", "50", "--out", tmp_path / "p.png")
    assert r.exit_code == 0, r.output
    assert Image.open(tmp_path / "p.png").size == (round(210 / 25.4 * 50), round(297 / 25.4 * 50))


def test_format_from_out_suffix(setup_file, tmp_path):
    r = run(setup_file, "--out", tmp_path / "x.pdf")
    assert r.exit_code == 0, r.output
    assert (tmp_path / "x.pdf").read_bytes().startswith(b"%PDF")


@pytest.mark.parametrize(
    "content",
    ["sensor-ghosts setup\n7: nonsense\n", "", "\xff\xfe garbage"],
)
def test_bad_file_exit_2_no_output(tmp_path, content):
    bad = tmp_path / "bad.txt"
    bad.write_text(content, encoding="latin-1")
    out = tmp_path / "bad.pdf"
    r = run(bad, "--format", "pdf", "--out", out)
    assert r.exit_code == 2
    assert "Traceback" not in r.output
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error:")
    assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_missing_file_exit_2(tmp_path):
    r = run(tmp_path / "nope.txt")
    assert r.exit_code == 2
    assert "Traceback" not in r.output


def test_solution_pages_of_a_generated_setup(tmp_path):
    # The command solves and the renderer draws: the sheet, then the solution
    # page, both footers telling how to regenerate the setup from its game ID.
    from pypdf import PdfReader

    from sensor_ghosts.generators import generate_setup
    from sensor_ghosts.rules.notation import format_setup

    setup = generate_setup(1)
    f = tmp_path / "gen.txt"
    f.write_text(format_setup(setup), encoding="utf-8")
    r = run(f, "--solution", "--format", "pdf", "--out", tmp_path / "s.pdf")
    assert r.exit_code == 0, r.output
    pages = PdfReader(tmp_path / "s.pdf").pages
    assert len(pages) == 2
    sheet, solution = (p.extract_text() for p in pages)
    assert "solution" in solution and "result: won" in solution
    assert all(f"generate --id '{setup.id}'" in t for t in (sheet, solution))


def test_a_file_without_a_game_id_says_keep_the_file(setup_file, tmp_path):
    out = tmp_path / "s.svg"
    r = run(setup_file, "--out", out)
    assert r.exit_code == 0, r.output
    text = out.read_text(encoding="utf-8")
    assert "Keep this setup's file" in text and "generate --id" not in text


def test_solution_the_solver_refuses_is_exit_2(setup_file, tmp_path, monkeypatch):
    import sensor_ghosts.solver as solver_pkg
    from sensor_ghosts.rules.errors import SensorGhostsError

    def refuse(instance, **kw):
        raise SensorGhostsError("too many cards for the model")

    monkeypatch.setattr(solver_pkg, "solve_staged", refuse)
    out = tmp_path / "s.svg"
    r = run(setup_file, "--solution", "--out", out)
    assert r.exit_code == 2
    assert "cannot solve: too many cards for the model" in r.output
    assert not out.exists()
