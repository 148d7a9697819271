"""``sensor-ghosts hint`` on a setup file: the hint for its opening position."""

from __future__ import annotations

import json

from click.testing import CliRunner

from sensor_ghosts.cli.main import main
from sensor_ghosts.generators import generate_setup
from sensor_ghosts.rules.engine import legal_turns
from sensor_ghosts.rules.notation import format_setup
from sensor_ghosts.rules.state import initial_state


def test_hint_on_a_setup_names_a_legal_opening_turn(tmp_path):
    setup = generate_setup(seed=7)
    path = tmp_path / "p.txt"
    path.write_text(format_setup(setup))
    r = CliRunner().invoke(main, ["hint", str(path), "--budget", "0.3", "--json"])
    assert r.exit_code == 0, r.output
    best = json.loads(r.stdout)["best"]
    legal = {str(t) for t in legal_turns(initial_state(setup, setup.deal))}
    assert best in legal
