"""The hint engine (issue 6): answers from what the player sees, deterministic for
a seed with a fixed amount of work, within its time budget; bad input refused."""

from __future__ import annotations

import json
import time

import pytest
from click.testing import CliRunner

from sensor_ghosts.advisor.legacy import hint, route_cost, value, wilson
from sensor_ghosts.cli.hint_cmd import hint_cmd
from sensor_ghosts.generators import generate_setup
from sensor_ghosts.rules.cards import SectorType
from sensor_ghosts.rules.engine import apply_turn, legal_turns
from sensor_ghosts.rules.geometry import EARTH, Direction
from sensor_ghosts.rules.notation import format_state
from sensor_ghosts.rules.observation import InconsistentObservationError, observe
from sensor_ghosts.rules.observation_notation import format_observation
from sensor_ghosts.rules.options import RuleOptions
from sensor_ghosts.rules.setup import Slot, replace_cell
from sensor_ghosts.rules.state import initial_state
from sensor_ghosts.rules.turns import ActionKind
from sensor_ghosts.solver.worlds import sample_worlds

SMALL = {"budget": None, "worlds": 6, "screen_worlds": 3, "finalists": 2, "rollouts": 2}


def _state(seed: int = 1):
    setup = generate_setup(seed=seed, options=RuleOptions())
    return initial_state(setup, setup.deal)


def _placed(seed: int, ship, held: int, hand: tuple[str, ...]):
    """A start state moved to ``ship`` with ``hand`` (the rest of the first deck
    in the deck, so that the observation is consistent)."""
    s = _state(seed)
    first = [c.id for c in s.setup.command_cards.deck_for(s.options.difficulty, 1)]
    deck = tuple(c for c in first if c not in hand)
    grid = s.grid
    for _ in range(held):  # the held samples come off the board
        pos = next(
            p for p, smp in s.setup.samples() if smp.virus and grid[p[0] - 1][p[1] - 1].sample
        )
        cell = grid[pos[0] - 1][pos[1] - 1]
        grid = replace_cell(grid, pos, Slot(cell.card, cell.up, None))
    return s.evolve(ship=ship, held=held, hands=(hand,), deck=deck, grid=grid)


def test_wilson_interval_known_values():
    lo, hi = wilson(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-3) and hi == pytest.approx(0.7634, abs=1e-3)
    assert wilson(0, 10)[0] == 0.0 and wilson(0, 10)[1] == pytest.approx(0.2775, abs=1e-3)
    assert wilson(0, 0) == (0.0, 1.0)


def test_hint_is_deterministic_for_a_seed_and_legal():
    s = _state(3)
    obs = observe(s, 0)
    a = hint(obs, seed=7, **SMALL)
    b = hint(obs, seed=7, **SMALL)
    assert str(a.best) == str(b.best) and a.win == b.win and a.samples == b.samples
    apply_turn(s, a.best)  # legal in the true state
    assert 0.0 <= a.low <= a.win <= a.high <= 1.0
    assert a.legal == len(legal_turns(s)) and a.candidates < a.legal  # grouped


def test_hint_sees_only_the_observation():
    """Two truths the player cannot tell apart get the same hint."""
    s = _state(4)
    obs = observe(s, 0)
    other = sample_worlds(obs, 1, seed=3)[0]
    assert observe(other, 0) == obs and other.grid != s.grid
    h1 = hint(observe(s, 0), seed=2, **SMALL)
    h2 = hint(observe(other, 0), seed=2, **SMALL)
    assert str(h1.best) == str(h2.best) and h1.win == h2.win


def test_hint_flies_to_earth_when_it_can():
    s = _placed(1, (7, 5), 1, ("F1", "F2", "D1"))
    h = hint(observe(s, 0), seed=0, **SMALL)
    assert h.best.command.action.kind is ActionKind.FLY
    assert h.best.command.action.direction is Direction.RIGHT
    assert h.win == 1.0 and "Earth" in h.reason
    assert apply_turn(s, h.best).ship == EARTH


def _below_seen(down: SectorType):
    """A placed state whose ship stands right below a card the player peeked,
    with ``down`` as that card's down side."""
    for seed in range(1, 40):
        s = _placed(seed, (3, 1), 1, ("F1", "F2", "F3"))
        for c in range(1, 6):
            below, above = s.cell((3, c)), s.cell((4, c))
            if isinstance(below, Slot) and isinstance(above, Slot) and above.down is down:
                return s.evolve(ship=(3, c), seen=s.seen | {above.card.id})
    raise AssertionError("no such setup")


def test_hint_avoids_a_card_peeked_as_obstructed():
    s = _below_seen(SectorType.OBSTRUCTED)
    h = hint(observe(s, 0), seed=0, **SMALL)
    a = h.best.command.action
    assert not (a.kind is ActionKind.FLY and a.direction is Direction.UP)


def test_reason_mentions_what_was_peeked():
    from sensor_ghosts.advisor.legacy import explain
    from sensor_ghosts.rules.turns import Action, Command, PlayedCard, Turn

    s = _below_seen(SectorType.EMPTY)
    fly_up = Turn(Command((PlayedCard("F1"),), Action(ActionKind.FLY, Direction.UP), Direction.UP))
    text = explain(observe(s, 0), fly_up)
    assert text.startswith("flies up onto the card you peeked as Empty"), text


def test_budget_returns_best_so_far_in_time():
    obs = observe(_state(5), 0)
    t0 = time.perf_counter()
    h = hint(obs, budget=0.3, seed=1)
    assert time.perf_counter() - t0 < 1.5
    assert h.best is not None


def test_inconsistent_observation_refused():
    s = _state(6).evolve(held=3, rocks_found=0)  # 3 virus held and 5 face down: impossible
    with pytest.raises(InconsistentObservationError):
        hint(observe(s, 0), seed=0, **SMALL)


def test_value_and_route():
    s = _placed(1, (7, 5), 1, ("F1", "F2", "D1"))
    assert route_cost(s) == 1.0
    assert value(s) > value(_state(1))


# --------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------


def test_cli_hint_on_state_and_observation(tmp_path):
    s = _placed(1, (7, 5), 1, ("F1", "F2", "D1"))
    p = tmp_path / "state.txt"
    p.write_text(format_state(s))
    r = CliRunner().invoke(hint_cmd, [str(p), "--budget", "0.3", "--seed", "1"])
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("best: ") and "fly R" in r.output
    q = tmp_path / "obs.txt"
    q.write_text(format_observation(observe(s, 0)))
    r = CliRunner().invoke(hint_cmd, [str(q), "--budget", "0.3", "--json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert doc["best"].endswith("fly R") and doc["ci95"][1] <= 1.0


@pytest.mark.parametrize(
    "text,needle",
    [
        ("sensor-ghosts observation\n7: E?\n", "row 7 has 1 cells"),
        ("hello\n", "expected the header line"),
        ("", "empty input"),
    ],
)
def test_cli_bad_input_exits_2_with_one_line(tmp_path, text, needle):
    p = tmp_path / "bad.txt"
    p.write_text(text)
    r = CliRunner().invoke(hint_cmd, [str(p)])
    assert r.exit_code == 2
    assert needle in r.output and r.output.strip().count("\n") == 0


def test_cli_inconsistent_and_missing_exit_2(tmp_path):
    text = format_observation(observe(_state(6), 0))
    p = tmp_path / "o.txt"
    p.write_text(text.replace("rocks: 0", "rocks: 2"))  # rocks found, yet 5 face down
    r = CliRunner().invoke(hint_cmd, [str(p)])
    assert r.exit_code == 2 and "inconsistent observation" in r.output
    assert r.output.strip().count("\n") == 0
    r = CliRunner().invoke(hint_cmd, [str(tmp_path / "nope.txt")])
    assert r.exit_code == 2 and "cannot read" in r.output
