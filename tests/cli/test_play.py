"""``sensor-ghosts play``: hidden information as at the table, illegal turns
refused with the reason, legal ones applied."""

from __future__ import annotations

from click.testing import CliRunner

from sensor_ghosts.cli.main import main
from sensor_ghosts.generators import generate_setup
from sensor_ghosts.rules.engine import legal_turns
from sensor_ghosts.rules.state import initial_state


def _play(seed: int, lines: list[str]):
    return CliRunner().invoke(main, ["play", "--seed", str(seed), "--no-color"], input="\n".join(lines) + "\n")


def test_play_hides_down_sides_and_deck_order():
    setup = generate_setup(seed=3)
    state = initial_state(setup, setup.deal)
    r = _play(3, ["quit"])
    assert r.exit_code == 0, r.output
    assert f"hand p1: {' '.join(state.hands[0])}" in r.output
    assert "deck order" not in r.output  # the deck order is hidden (§14)
    grid = [ln for ln in r.output.splitlines() if ln[:1] in "1234567" and "|" in ln]
    assert len(grid) == 7
    # Row 3 holds five sector cards; none of their backs has been seen.
    row3 = grid[4]
    assert row3.startswith("3")
    assert row3.count("?") >= 4


def test_play_refuses_illegal_turn_with_reason_then_applies_legal_one():
    setup = generate_setup(seed=3)
    state = initial_state(setup, setup.deal)
    hand = state.hands[0]
    not_held = next(c.id for c in setup.command_cards.cards if c.id not in hand and c.id != "W")
    # Flying right from the dock onto the start card is always safe.
    fly_card = next(c for c in hand if c.startswith("F"))
    r = _play(3, [f"{not_held} fly R; rescan 1,2", f"{fly_card} fly R; rescan 1,2", "quit"])
    assert r.exit_code == 0, r.output
    assert "not understood:" in r.output
    assert not_held in r.output.split("not understood:")[1].splitlines()[0]
    assert "turn 2 " in r.output  # the legal turn was applied


def test_play_refuses_heading_violation_with_rule():
    setup = generate_setup(seed=0)
    state = initial_state(setup, setup.deal)
    flies = [c for c in state.hands[0] if c.startswith("F")]
    assert len(flies) >= 2  # seed 0 deals two Fly cards
    first = next(t for t in legal_turns(state) if str(t).startswith(f"{flies[0]} fly R"))
    # After a single Fly right, one Fly card up breaks the inertia rule [D11].
    r = _play(0, [str(first), f"{flies[1]} peek U; rescan 1,2", "quit"])
    assert "turn 2 " in r.output
    assert "not allowed: the heading is right" in r.output


def test_play_reports_a_loss_with_exit_1():
    setup = generate_setup(seed=3)
    state = initial_state(setup, setup.deal)
    fly_card = next(c for c in state.hands[0] if c.startswith("F"))
    r = _play(3, [f"{fly_card} fly U"])  # from the dock, up leaves the grid [D25]
    assert r.exit_code == 1
    assert "lost: flew off the grid" in r.output


def test_play_saves_what_the_player_sees_for_hint_and_the_whole_game(tmp_path):
    """``save FILE`` writes the active player's observation (``hint`` reads it)
    and the full state beside it (``play`` goes on from it), issue: table companion."""
    from sensor_ghosts.rules.notation import load
    from sensor_ghosts.rules.observation import observe
    from sensor_ghosts.rules.observation_notation import parse_observation

    target = tmp_path / "table.txt"
    r = CliRunner().invoke(main, ["play", "--seed", "7", "--no-color"],
                           input=f"F6 fly R; rescan 2,4\nsave {target}\nsave\nsave {tmp_path / 'no' / 'x.txt'}\nquit\n")
    assert r.exit_code == 0, r.output
    state = load((tmp_path / "table.state.txt").read_text())
    assert state.turn == 2
    assert parse_observation(target.read_text()) == observe(state, state.active)
    assert f"saved what player 1 sees to {target}" in r.output
    assert "save needs a file name" in r.output and "not saved: " in r.output
    assert not (tmp_path / "no").exists() and sorted(p.name for p in tmp_path.iterdir()) == [
        "table.state.txt", "table.txt"]
    h = CliRunner().invoke(main, ["hint", str(target), "--budget", "0.2"])
    assert h.exit_code == 0 and h.stdout.startswith("best: "), h.output
    p = CliRunner().invoke(main, ["play", str(tmp_path / "table.state.txt"), "--no-color"], input="quit\n")
    assert p.exit_code == 0 and "turn 2" in p.output
