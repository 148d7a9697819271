"""The engine checks a replayed command and re-scan directly (``action_allowed``,
``rescan_allowed``) instead of listing every legal one; both must answer
exactly as membership in the lists (``actions_for``, ``rescan_choices``) would,
for legal and illegal arguments alike, on states of random playouts."""

from __future__ import annotations

import importlib.util
import pathlib
import random
from itertools import combinations

from sensor_ghosts.rules.commands import action_allowed, actions_for, card_plays
from sensor_ghosts.rules.geometry import DIRECTIONS
from sensor_ghosts.rules.rescan import rescan_allowed, rescan_choices
from sensor_ghosts.rules.setup import Slot
from sensor_ghosts.rules.state import initial_state
from sensor_ghosts.rules.turns import Action, ActionKind

_spec = importlib.util.spec_from_file_location(
    "_sg_props", pathlib.Path(__file__).resolve().parent / "test_properties.py"
)
_props = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_props)


def _candidate_actions() -> list[Action]:
    """Every action a player might write, legal or not: any kind with any
    direction, target or row (off-grid ones included) and malformed mixes."""
    out = [Action(k, d) for k in ActionKind for d in (*DIRECTIONS, None)]
    cells = [(r, c) for r in range(0, 9) for c in range(0, 7)]
    out += [Action(ActionKind.FLIP, target=p) for p in cells]
    out += [Action(ActionKind.SHIFT, row=r) for r in range(0, 9)]
    out += [Action(ActionKind.FLIP, DIRECTIONS[0], target=(3, 3)), Action(ActionKind.SHIFT, DIRECTIONS[1], row=4),
            Action(ActionKind.FLY, DIRECTIONS[0], row=2), Action(ActionKind.SHIELDS, target=(2, 2))]
    return out


def _states(games: int) -> list:
    out = []
    for seed in range(games):
        rng = random.Random(seed)
        o = _props.random_options(rng)
        s = initial_state(_props.quick_setup(seed, o), seed=seed)
        while not s.is_over:
            out.append((s, rng))
            s = _props.apply_turn(s, _props.random_turn(s, rng))
    return out


def _some_flipped(s, rng: random.Random) -> frozenset:
    """Two cards of the grid taken as flipped by choice this turn [D23]."""
    ids = sorted(c.card.id for row in s.grid for c in row if isinstance(c, Slot))
    return frozenset(rng.sample(ids, 2))


def test_action_allowed_is_membership_in_actions_for():
    actions = _candidate_actions()
    checked = allowed = 0
    for s, rng in _states(40)[::3]:
        flipped = _some_flipped(s, rng)
        for play in card_plays(s):
            legal = set(actions_for(s, play, flipped))
            for a in actions:
                assert action_allowed(s, play, a, flipped) == (a in legal), (play, a)
                checked += 1
                allowed += a in legal
    assert checked > 10_000 and 0 < allowed < checked


def test_rescan_allowed_is_membership_in_rescan_choices():
    checked = allowed = 0
    for s, rng in _states(40):
        flipped = _some_flipped(s, rng)
        legal = set(rescan_choices(s, flipped))
        for k in range(4):
            for cols in combinations(range(0, 7), k):
                cols = frozenset(cols)
                assert rescan_allowed(s, cols, flipped) == (cols in legal), cols
                checked += 1
                allowed += cols in legal
    assert checked > 10_000 and 0 < allowed < checked
