"""The hint engine (``advisor.search``): what it must never do, whatever its budget."""

from __future__ import annotations

import random

import pytest

from sensor_ghosts.advisor import (
    GameOverObservation,
    HintError,
    flipped_positions,
    hint,
    rescan_hint,
)
from sensor_ghosts.advisor.search import after_command, commands, near_careful, surely_lost
from sensor_ghosts.generators import generate_setup, setup_from_id
from sensor_ghosts.rules.cards import SectorType
from sensor_ghosts.rules.engine import apply_turn, legal_turns
from sensor_ghosts.rules.observation import InconsistentObservationError, observe
from sensor_ghosts.rules.options import RuleOptions
from sensor_ghosts.rules.setup import Slot
from sensor_ghosts.rules.state import initial_state


def _positions(n_games: int, seed0: int, options: RuleOptions | None = None, turns: int = 6):
    """States met along random games (random legal turns), the dock included."""
    out = []
    for g in range(n_games):
        setup = generate_setup(seed=seed0 + g, options=options or RuleOptions())
        state = initial_state(setup, setup.deal, seed=seed0 + g)
        rng = random.Random(g)
        for _ in range(turns):
            if state.is_over:
                break
            out.append(state)
            safe = [t for t in legal_turns(state) if not apply_turn(state, t).is_over]
            if not safe:
                break
            state = apply_turn(state, rng.choice(safe))
    return out


def test_near_careful_hides_only_the_near_rows():
    setup = generate_setup(seed=3)
    state = initial_state(setup, setup.deal)
    nc = near_careful(state)
    for r, (row, row0) in enumerate(zip(nc.grid, state.grid, strict=True), 1):
        for cell, cell0 in zip(row, row0, strict=True):
            if not isinstance(cell, Slot) or cell.card.start:
                continue
            assert cell.face is cell0.face  # what the players see never changes
            if r <= 2:
                assert cell.down is SectorType.OBSTRUCTED
            else:
                assert cell.down is cell0.down


def test_tiny_budgets_never_hint_a_turn_that_loses_at_once():
    """Across many positions and tiny budgets: when some command does not lose
    at once whatever is hidden, the hinted one does not either."""
    checked = 0
    for i, state in enumerate(_positions(8, 4100)):
        world = state
        opts = commands(world)
        if all(surely_lost(world, t) for t in opts.values()):
            continue
        h = hint(observe(state, state.active), budget=0.02, seed=i)
        assert not surely_lost(world, h.best), (i, str(h.best))
        checked += 1
    assert checked >= 30


def test_issue_example_does_not_fly_off_the_grid():
    setup = setup_from_id("1p-standard#7770000")
    state = initial_state(setup, setup.deal)
    for budget in (0.05, 0.1, 0.2):
        h = hint(observe(state, 0), budget=budget, seed=777000000)
        after = apply_turn(state, h.best)
        assert not (after.is_over and after.outcome.status.value == "lost"), str(h.best)


def test_every_hinted_turn_is_legal_with_the_rescan_for_its_outcome():
    """The command first, then the re-scan for what happened: always playable."""
    for i, state in enumerate(_positions(4, 4200, turns=4)):
        h = hint(observe(state, state.active), budget=0.05, seed=i)
        mid, flipped = after_command(state, h.best)
        cols = frozenset() if mid.is_over else rescan_hint(observe(mid, state.active),
                                                           flipped_positions(mid, flipped), budget=0.05, seed=i)
        turn = type(h.best)(h.best.command, h.best.bolster, h.best.second, cols)
        apply_turn(state, turn)  # raises IllegalTurnError if not


def test_rescan_after_a_deep_scan_flip_two_rows_ahead_is_legal():
    """A card flipped by choice in the row the re-scan flips may not be flipped
    again [D23]. The sampled worlds give cards of the same pair their ids at
    random, so the flipped card is named by its cell, not its id: by id, the
    hint bot once chose such a card (seed 6124) and the engine refused the turn."""
    from sensor_ghosts.rules.rescan import rescan_choices, rescan_row

    cases = 0
    for seed in range(40):
        setup = generate_setup(seed=seed)
        state = initial_state(setup, setup.deal)
        for t in legal_turns(state):
            if t.command is None or not t.command.action.is_deep_scan:
                continue
            mid, flipped = after_command(state, t)
            at = flipped_positions(mid, flipped)
            if mid.is_over or not at or rescan_row(mid) not in {r for r, _ in at}:
                continue
            legal = rescan_choices(mid, flipped)
            for k in range(4):
                got = rescan_hint(observe(mid, state.active), at, budget=0.01, seed=k, worlds=2)
                assert got in legal, (seed, str(t), sorted(got))
            cases += 1
            break
    assert cases >= 10


def test_chance_and_interval_are_a_probability_with_worlds_behind_them():
    setup = generate_setup(seed=11)
    state = initial_state(setup, setup.deal)
    h = hint(observe(state, 0), budget=0.05, seed=1)
    assert h.worlds >= 1
    assert 0.0 <= h.low <= h.win <= h.high <= 1.0 or h.low <= h.raw_win <= h.high
    text = str(h)
    assert "sampled worlds" in text and "0 sampled" not in text


def test_fixed_work_is_deterministic():
    # Three turns before the end of an optimal plan, where no careful route
    # fits (the one-turn search over worlds runs): a fixed amount of work
    # there takes two seconds, at the dock twenty.
    from sensor_ghosts.solver import solve

    setup = generate_setup(seed=12)
    state = initial_state(setup, setup.deal)
    plan = solve(setup, timeout=30, progress=None).plan
    assert plan is not None
    for turn in plan.turns[:-3]:
        state = apply_turn(state, turn)
    a = hint(observe(state, 0), budget=None, seed=5, worlds=8)
    b = hint(observe(state, 0), budget=None, seed=5, worlds=8)
    assert not a.careful and str(a.best) == str(b.best) and a.win == b.win


def test_refuses_finished_games_and_other_players():
    setup = generate_setup(seed=13, options=RuleOptions(players=2))
    state = initial_state(setup, setup.deal)
    with pytest.raises(HintError):
        hint(observe(state, 1), budget=0.05)
    lost = next(apply_turn(state, t) for t in legal_turns(state) if apply_turn(state, t).is_over)
    with pytest.raises(GameOverObservation):
        hint(observe(lost, lost.active), budget=0.05)


def test_inconsistent_observation_is_refused():
    from dataclasses import replace

    setup = generate_setup(seed=14)
    obs = observe(initial_state(setup, setup.deal), 0)
    bad = replace(obs, virus_face_down=7)
    with pytest.raises(InconsistentObservationError):
        hint(bad, budget=0.05)


VARIANTS = {
    "solo": RuleOptions(),
    "2 players": RuleOptions(players=2),
    "4 players": RuleOptions(players=4),
    "escape pod": RuleOptions(escape_pod=True),
    "low memory": RuleOptions(low_memory=True),
    "second action": RuleOptions(second_action=True),
}


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_budget_holds_in_every_variant(name):
    """A hint answers within its budget + 10 % + 0.2 s (issue: hints budgets)."""
    import gc
    import time

    for i, state in enumerate(_positions(2, 4300, VARIANTS[name], turns=3)[::2]):
        obs = observe(state, state.active)
        hint(obs, budget=0.05, seed=i)  # loads the compiled kernels first
        # The objects earlier tests in this worker left alive (twice a fresh
        # process's) are set apart from the collector: with them a full
        # collection inside the hint took 0.2-0.4 s (a CI run failed so),
        # where in a fresh process, as `sensor-ghosts hint` runs, none came.
        gc.collect()
        gc.freeze()
        try:
            # The process's CPU time, not the wall clock: "on one core" is what
            # the bound is about, and on a loaded machine the wall clock also
            # counts the time other processes had the core.
            t = time.process_time()
            hint(obs, budget=0.5, seed=i)
            took = time.process_time() - t
        finally:
            gc.unfreeze()
        assert took <= 0.5 * 1.1 + 0.2, name


def test_a_sure_win_is_said_to_be_sure():
    """At the last turn of a won game, with the samples held and a route over
    seen cards, the hint says 100 %, and its turn wins."""
    from sensor_ghosts.advisor.bots import play_game
    from sensor_ghosts.rules.notation import parse_state

    checked = 0
    for seed in (2, 3, 4, 5):
        res = play_game("cheat", seed)
        state = parse_state(res.last[-1][0])
        h = hint(observe(state, 0), budget=None, seed=1)
        if h.win == 1.0:
            assert h.low == h.high == 1.0
            after = apply_turn(state, h.best)
            assert after.outcome.status.value == "won"
            checked += 1
    assert checked >= 1
