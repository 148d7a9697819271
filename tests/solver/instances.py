"""Seeded mid-game instances near Earth for cross-checking the solver against the
engine-based reference (short optimal plans, and 'none within horizon')."""

from __future__ import annotations

import random

from sensor_ghosts.rules.options import Difficulty, RuleOptions
from sensor_ghosts.rules.setup import Slot
from sensor_ghosts.rules.state import GameState, initial_state, random_deal


def _factories():
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[1] / "factories.py"
    spec = importlib.util.spec_from_file_location("_sg_factories", path)
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(mod)
    return mod


quick_setup = _factories().quick_setup

# Rule variants the cross-checks run (tests/solver/test_solver.py and
# benchmarks/solve.py --cross-check-variants).
VARIANTS = {
    "2p": RuleOptions(players=2),
    "3p": RuleOptions(players=3),
    "4p": RuleOptions(players=4),
    "pod": RuleOptions(escape_pod=True),  # §10
    "low-memory": RuleOptions(low_memory=True),  # §11
    "second-action": RuleOptions(second_action=True),  # §12
    "reveal-once": RuleOptions(reveal_once=True),  # §12
    "flip-one": RuleOptions(flip_one=True),  # §12
    "two-samples": RuleOptions(two_samples=True),  # [D12]
    "advanced": RuleOptions(difficulty=Difficulty.ADVANCED),
    # The other readings of three gaps of RULES.md, each with the rules it
    # changes (tests/solver/test_gap_options.py adds positions where they matter).
    "pod-once-per-turn": RuleOptions(escape_pod=True, second_action=True, pod_once_per_turn=True),
    "helpers-once-per-turn": RuleOptions(players=2, second_action=True, helpers_once_per_turn=True),
    "earth-in-row-7": RuleOptions(escape_pod=True, earth_in_row_7=True),
}


def near_earth(seed: int, options: RuleOptions | None = None, rows: tuple[int, ...] = (5, 6, 7)) -> GameState:
    """The ship on a card of rows 5-7 holding a virus (sometimes none), with
    random shields, a random deal, and a few cards already drawn."""
    rng = random.Random(seed)
    setup = quick_setup(seed, options)
    st = initial_state(setup, random_deal(setup, rng))
    cells = [
        (r, c) for r in rows for c in range(1, 6) if isinstance(setup.grid[r - 1][c - 1], Slot)
    ]
    ship = rng.choice(cells)
    slot = setup.grid[ship[0] - 1][ship[1] - 1]
    grid = setup.grid
    if slot.sample is not None:  # the ship has taken it
        row = list(grid[ship[0] - 1])
        row[ship[1] - 1] = Slot(slot.card, slot.up, None)
        grid = grid[: ship[0] - 1] + (tuple(row),) + grid[ship[0] :]
    # Draw a few cards through: drop some from the deck onto the discard pile.
    drop = rng.randint(0, max(0, len(st.deck) - 2))
    from sensor_ghosts.rules.state import DiscardEntry

    discard = tuple(DiscardEntry(c) for c in st.deck[:drop])
    held = 0 if rng.random() < 0.15 else 1
    if held:
        # The held virus came off the board: take the first virus token left
        # (the token count stays valid, validation.validate_state).
        virus = [
            (r, c)
            for r in range(1, 8)
            for c in range(1, 6)
            if isinstance(cell := grid[r - 1][c - 1], Slot) and cell.sample and cell.sample.virus
        ]
        if virus:
            r, c = virus[0]
            cell = grid[r - 1][c - 1]
            row = list(grid[r - 1])
            row[c - 1] = Slot(cell.card, cell.up, None)
            grid = grid[: r - 1] + (tuple(row),) + grid[r:]
        else:
            held = 0
    changes = dict(
        grid=grid,
        ship=ship,
        held=held,
        shields=rng.choice([0, 0, 1, 2]),
        deck=st.deck[drop:],
        discard=discard,
    )
    if st.pod is not None:
        # The pod stands on a card, never on a gap.
        changes["pod"] = rng.choice(
            [(r, c) for r in (5, 6, 7) for c in range(1, 6) if isinstance(grid[r - 1][c - 1], Slot)]
        )
    return st.evolve(**changes)


def late_endgame(seed: int, keep: int) -> GameState:
    """Near Earth on the second pass with ``keep`` cards left in the deck: a
    game of a few turns at most, where the expectimax finishes."""
    from sensor_ghosts.rules.state import DiscardEntry

    st = near_earth(seed)
    deck = tuple(st.deck)
    # The rest of the deck and the Wild were played: under the pile's top card.
    gone = tuple(DiscardEntry(c) for c in deck[keep:] + (st.setup.command_cards.wild.id,))
    return st.evolve(deck=deck[:keep], discard=gone + st.discard, second_pass=True)
