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


def test_solution_without_solver_is_exit_2(setup_file, tmp_path, monkeypatch):
    import sensor_ghosts.solver as solver_pkg

    if hasattr(solver_pkg, "solve_staged"):
        monkeypatch.delattr(solver_pkg, "solve_staged")
    out = tmp_path / "s.svg"
    r = run(setup_file, "--solution", "--out", out)
    assert r.exit_code == 2
    assert "solver not available" in r.output
    assert not out.exists()
