"""The renderer draws what it is given: it imports neither the solver nor the
generator (nor the layers above it), and drawing every kind of page loads
neither."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import sensor_ghosts.render

RENDER = Path(sensor_ghosts.render.__file__).parent
# Packages the renderer must not import (rules <- generators, solver <- advisor <- render, cli).
FORBIDDEN = ("sensor_ghosts.solver", "sensor_ghosts.generators", "sensor_ghosts.advisor",
             "sensor_ghosts.puzzles", "sensor_ghosts.cli")


def _imports(path: Path) -> list[str]:
    """Every module a file imports, lazily or not, as absolute names."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative to the package (one dot), or to its parent (two)
                parts = f"sensor_ghosts.render.{path.stem}".split(".")
                base = ".".join(parts[: len(parts) - node.level])
                mod = f"{base}.{node.module}" if node.module else base
            else:
                mod = node.module or ""
            out += [mod] + [f"{mod}.{a.name}" for a in node.names]
    return out


def test_no_render_module_imports_the_solver_or_the_generator():
    files = sorted(RENDER.glob("*.py"))
    assert len(files) >= 7
    bad = {f.name: [m for m in _imports(f) if m.startswith(FORBIDDEN)] for f in files}
    assert {k: v for k, v in bad.items() if v} == {}
    # the check resolves relative imports, in a module and in the package's __init__
    assert "sensor_ghosts.rules.log" in _imports(RENDER / "sheets.py")
    assert {"sensor_ghosts.fileio", "sensor_ghosts.render.sheets"} <= set(_imports(RENDER / "__init__.py"))


def test_drawing_every_page_loads_neither(tmp_path):
    # In a fresh interpreter: a setup sheet, a state sheet and a solution page
    # (from a line played with the rules engine), written as SVG, PDF and PNG.
    script = f"""
import sys
sys.path.insert(0, {str(Path(__file__).parent)!r})
from demo import boost_plan, boost_setup
from sensor_ghosts.render import Solution, booklet, setup_page, solution_page, write_pdf, write_png, write_svg
from sensor_ghosts.rules.engine import apply_turn
from sensor_ghosts.rules.state import initial_state

states, logs = [initial_state(boost_setup())], []
for t in boost_plan():
    logs.append([])
    states.append(apply_turn(states[-1], t, log=logs[-1]))
sol = Solution(states, boost_plan(), logs)
out = {str(tmp_path)!r}
write_svg(setup_page(boost_setup(), regenerable=True), out + "/a.svg")
write_png(setup_page(states[1]), out + "/b.png", dpi=30)
write_pdf([setup_page(boost_setup()), solution_page(sol)], out + "/c.pdf")
booklet([boost_setup()], out + "/d.pdf", [sol])
print(sorted(m for m in sys.modules if m.startswith({FORBIDDEN!r})))
"""
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"
    assert len(list(tmp_path.iterdir())) == 4
