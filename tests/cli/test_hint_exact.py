"""``hint --exact``: the endgame solver's verdict beside the hint."""

from __future__ import annotations

import json

from click.testing import CliRunner

from sensor_ghosts.advisor.bots import play_game
from sensor_ghosts.cli.main import main as cli


def test_exact_on_a_last_turn(tmp_path):
    res = play_game("cheat", 2)
    f = tmp_path / "end.txt"
    f.write_text(res.last[-1][0])
    out = CliRunner().invoke(cli, ["hint", str(f), "--budget", "0.5", "--exact", "20", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["exact"]["status"] == "exact"
    assert data["exact"]["win"] == [1.0, 1.0] and data["exact"]["hinted"] == [1.0, 1.0]
    text = CliRunner().invoke(cli, ["hint", str(f), "--budget", "0.5", "--exact", "20"]).output
    assert "exact: win 100.0% with best play" in text


def test_exact_with_partners_says_it_is_not_available(tmp_path):
    f = tmp_path / "p.txt"
    assert CliRunner().invoke(cli, ["generate", "--seed", "1", "--players", "2", "--out", str(f)]).exit_code == 0
    out = CliRunner().invoke(cli, ["hint", str(f), "--budget", "0.3", "--exact", "1"])
    assert out.exit_code == 0, out.output
    assert "exact: not available" in out.output
