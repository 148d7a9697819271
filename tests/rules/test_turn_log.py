"""``apply_turn(..., log=[])``: the engine's account of a turn agrees with the
states around it, over many random games and every event kind."""

from __future__ import annotations

import random

from sensor_ghosts.generators import generate_setup
from sensor_ghosts.rules.engine import apply_turn, legal_turns
from sensor_ghosts.rules.geometry import EARTH
from sensor_ghosts.rules.log import (
    Drew,
    Entered,
    Flew,
    Flipped,
    GameEnded,
    Peeked,
    PodMoved,
    SampleTaken,
    ShieldsRaised,
    Shifted,
)
from sensor_ghosts.rules.options import RuleOptions
from sensor_ghosts.rules.setup import Slot
from sensor_ghosts.rules.state import initial_state


def _games(n: int, options: RuleOptions):
    for g in range(n):
        setup = generate_setup(seed=700 + g, options=options)
        state = initial_state(setup, setup.deal, seed=g)
        rng = random.Random(g)
        while not state.is_over and state.turn < 40:
            turn = rng.choice(legal_turns(state))
            log: list = []
            after = apply_turn(state, turn, log=log)
            yield state, turn, after, log
            state = after


def _check(before, turn, after, log) -> set[type]:
    kinds = {type(e) for e in log}
    assert (GameEnded in kinds) == after.is_over
    if after.is_over:
        assert log[-1] == GameEnded(after.outcome)
    entered = [e for e in log if isinstance(e, Entered)]
    if entered and not after.is_over:
        last = entered[-1]
        assert last.pos == after.ship
        if last.pos != EARTH:
            cell = after.cell(last.pos)
            assert isinstance(cell, Slot)
    assert (Flew in kinds) >= bool(entered)
    taken = [e for e in log if isinstance(e, SampleTaken)]
    if not any(isinstance(e, Drew) and e.reshuffled for e in log):
        assert sum(e.virus for e in taken) + before.held - turn.bolster >= after.held
    assert sum(not e.virus for e in taken) == after.rocks_found - before.rocks_found
    drew = [e for e in log if isinstance(e, Drew)]
    if drew:
        hand = after.hands[before.active]
        assert hand[len(hand) - len(drew[0].cards):] == drew[0].cards
    for e in log:
        if isinstance(e, Flipped) and e.cause == "re-scan" and not after.is_over:
            assert after.cell(e.pos).face is e.face
        if isinstance(e, ShieldsRaised):
            assert 1 <= e.shields <= 2
    return kinds


def test_log_agrees_with_the_states_solo():
    kinds: set[type] = set()
    for before, turn, after, log in _games(12, RuleOptions()):
        kinds |= _check(before, turn, after, log)
    assert {Flew, Entered, Flipped, Shifted, Peeked, ShieldsRaised, Drew, GameEnded} <= kinds


def test_log_tells_the_pod_moves():
    kinds: set[type] = set()
    for before, turn, after, log in _games(6, RuleOptions(escape_pod=True)):
        kinds |= _check(before, turn, after, log)
        for e in log:
            if isinstance(e, PodMoved) and not after.is_over:
                assert e.start != e.end
    assert PodMoved in kinds


def test_an_illegal_turn_logs_nothing():
    setup = generate_setup(seed=3)
    state = initial_state(setup, setup.deal)
    turn = legal_turns(state)[0]
    bad = type(turn)(turn.command, turn.bolster, turn.second, frozenset({1, 2, 3, 4, 5}))
    log: list = []
    try:
        apply_turn(state, bad, log=log)
    except Exception:
        pass
    assert log == []
