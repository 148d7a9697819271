"""Setups no deal can win, proven at the start (issue 37, "proofs of
unwinnability"): the relaxed game's guide is infinite there, the search
says 'unsolvable' at once, and the result says what shows it. The claim
is checked apart from the solver, through the rules engine's ``fly``."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from click.testing import CliRunner

from sensor_ghosts.cli.main import main
from sensor_ghosts.generators import generate_setup
from sensor_ghosts.rules.cards import SectorType, Side
from sensor_ghosts.rules.geometry import Direction
from sensor_ghosts.rules.movement import fly
from sensor_ghosts.rules.options import RuleOptions
from sensor_ghosts.rules.setup import Setup, Slot, replace_cell
from sensor_ghosts.rules.state import Status, initial_state
from sensor_ghosts.solver import relaxed, solve
from sensor_ghosts.solver.model import Model
from sensor_ghosts.solver.relaxed import (
    CAN_BOOST,
    CAN_STOP,
    DEADLY,
    INF,
    RelaxedBound,
    card_flags,
    takeable_virus_bits,
)

BOOST, OBST, AST, EMPTY = SectorType.BOOST, SectorType.OBSTRUCTED, SectorType.ASTEROID, SectorType.EMPTY
# Standard solo: row 7 holds only cards whose sides are B or O.
SEED = 7919


def _every_entry_into_row_7_loses(seed: int) -> bool:
    """By the rules engine alone: the ship, with full shields, flying up from
    any cell of row 6 into any card of row 7 (each of that row's cards in
    each column, either side up) is lost. Only a Fly up from row 6 enters
    row 7, and only from row 7 is Earth entered, so no game is won."""
    setup = generate_setup(seed, RuleOptions())
    state = initial_state(setup, setup.deal).evolve(shields=2)
    cards = [cell.card for cell in state.grid[6] if isinstance(cell, Slot)]
    for c in range(1, 6):
        for card in cards:
            for up in (Side.FRONT, Side.BACK):
                grid = replace_cell(state.grid, (7, c), Slot(card, up, None))
                after = fly(state.evolve(grid=grid, ship=(6, c)), Direction.UP)
                if after.outcome is None or after.outcome.status != Status.LOST:
                    return False
    return True


def test_the_setup_is_unwinnable_by_the_rules_engine() -> None:
    assert _every_entry_into_row_7_loses(SEED)
    assert not _every_entry_into_row_7_loses(0)  # (the check can fail)


@pytest.mark.parametrize("mode", ["deal", "open"])
def test_unsolvable_at_once_with_a_reason(mode: str) -> None:
    setup = generate_setup(SEED, RuleOptions())
    r = solve(setup, mode=mode, objective="turns-only", timeout=10)
    assert r.status == "unsolvable"
    assert r.nodes == 0  # decided at the start, not by searching
    assert "row 7" in r.reason
    assert r.as_dict()["reason"] == r.reason


def test_relaxed_game_is_infinite_at_the_dock() -> None:
    setup = generate_setup(SEED, RuleOptions())
    m = Model(initial_state(setup, setup.deal), "deal")
    rb = RelaxedBound(m)
    root = m.root_state()
    assert rb.turns(root, 20) >= INF
    # A cached infinity stays infinite whatever the cap asked.
    assert rb.turns(root, 12) >= INF
    assert relaxed.top_row_blocks(m)


def test_verify_says_what_shows_it(tmp_path: Path) -> None:
    runner = CliRunner()
    setup = str(tmp_path / "s.txt")
    assert runner.invoke(main, ["generate", "--seed", str(SEED), "--out", setup]).exit_code == 0
    got = runner.invoke(main, ["verify", setup])
    assert got.exit_code == 1
    assert got.output.startswith("unsolvable: no card of row 7 has a side the ship can stop on")


def test_card_flags_stop_only_on_a_face_that_stops() -> None:
    # B or O: a boost, or death (an O stops the ship only in low memory mode).
    assert card_flags({BOOST, OBST}, False) == CAN_BOOST
    assert card_flags({BOOST, OBST}, True) & CAN_STOP
    assert card_flags({OBST}, False) == DEADLY
    assert card_flags({BOOST}, False) == CAN_BOOST
    assert card_flags({AST, BOOST}, False) & CAN_STOP
    assert card_flags({EMPTY, OBST}, False) & CAN_STOP


def test_render_solution_says_why_and_writes_nothing(tmp_path: Path) -> None:
    runner = CliRunner()
    setup, out = str(tmp_path / "s.txt"), tmp_path / "x.svg"
    assert runner.invoke(main, ["generate", "--seed", str(SEED), "--out", setup]).exit_code == 0
    got = runner.invoke(main, ["render", setup, "--solution", "--format", "svg", "--out", str(out)])
    assert got.exit_code == 1
    assert "cannot be won (no card of row 7" in got.output
    assert not out.exists()


# Two samples: of setup 105's three virus tokens, two lie on cards obstructed
# on both sides, so at most one can be taken (474: two can).
TWO = RuleOptions().with_flags(["two-samples"])


def _virus_tokens_the_engine_lets_the_ship_take(seed: int, options: RuleOptions) -> int:
    return _virus_tokens_the_engine_lets_the_ship_take_of(generate_setup(seed, options))


def _virus_tokens_the_engine_lets_the_ship_take_of(setup: Setup) -> int:
    """By the rules engine alone: the virus tokens some Fly into their card
    (from any neighbouring cell of the grid, with full shields and a held
    virus, the card either side up) takes ([D13]: only a ship that survives
    the card; in low memory mode an O costs a held virus, §11)."""
    state = initial_state(setup, setup.deal).evolve(shields=2, held=1)
    taken = 0
    for r in range(1, 8):
        for c in range(1, 6):
            cell = state.grid[r - 1][c - 1]
            if not isinstance(cell, Slot) or cell.sample is None or not cell.sample.virus:
                continue
            ways = []
            for d in Direction:
                dr, dc = d.value
                src = (r - dr, c - dc)
                if not (1 <= src[0] <= 7 and 1 <= src[1] <= 5):
                    continue
                for up in (Side.FRONT, Side.BACK):
                    grid = replace_cell(state.grid, (r, c), Slot(cell.card, up, cell.sample))
                    after = fly(state.evolve(grid=grid, ship=src), d)
                    survived = after.outcome is None or after.outcome.status != Status.LOST
                    ways.append(survived and after.grid[r - 1][c - 1].sample is None)
            taken += any(ways)
    return taken


def test_two_samples_with_one_takeable_virus_by_the_rules_engine() -> None:
    assert _virus_tokens_the_engine_lets_the_ship_take(105, TWO) == 1
    assert _virus_tokens_the_engine_lets_the_ship_take(474, TWO) == 2  # (the check can fail)


@pytest.mark.parametrize("mode", ["deal", "open", "expected"])
def test_two_samples_with_one_takeable_virus_unsolvable_at_once(mode: str) -> None:
    setup = generate_setup(105, TWO)
    r = solve(setup, mode=mode, objective="turns-only", timeout=10)
    if mode == "expected":
        assert r.win_probability == 0.0
        return
    assert r.status == "unsolvable"
    assert r.nodes == 0  # decided at the start (it searched past 40 s before)
    assert "(4,1), (5,3) lie on cards obstructed on both sides" in r.reason


def test_takeable_tokens_and_low_memory() -> None:
    setup = generate_setup(105, TWO)
    m = Model(initial_state(setup, setup.deal), "deal")
    assert bin(m.virus_bits).count("1") == 3
    assert bin(takeable_virus_bits(m)).count("1") == 1
    # In low memory mode an O is an asteroid that costs a held virus (§11):
    # every token can be taken.
    low = dataclasses.replace(setup, options=dataclasses.replace(setup.options, low_memory=True))
    assert _virus_tokens_the_engine_lets_the_ship_take_of(low) == 3
    m = Model(initial_state(low, low.deal), "deal")
    assert takeable_virus_bits(m) == m.virus_bits
