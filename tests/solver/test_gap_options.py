"""The solver's compact model under the three gap options (``pod-once-per-turn``,
``helpers-once-per-turn``, ``earth-in-row-7``; see
tests/rules/test_conformance_gap_options.py for the rules themselves).

Seeded near-Earth positions (``instances.VARIANTS``) seldom reach the places
where the readings part, so the positions here are built by hand so that they
do: a second action paid for with a virus that is not needed for the landing,
helpers with cards for a second action, a ship waiting at Earth beside a pod in
row 7. On each, under both readings:

* the model's successors after one turn agree with the engine's legal turns
  (where the ship and the pod are, how each row is rotated, which turns win);
* the solver's optimum agrees with the engine brute force
  (``solver.reference``), and the two readings have different optima.
"""

from __future__ import annotations

import importlib.util
import pathlib
from dataclasses import replace

import pytest

from sensor_ghosts.rules.engine import apply_turn, legal_turns
from sensor_ghosts.rules.geometry import EARTH, Direction
from sensor_ghosts.rules.state import GameState, Status
from sensor_ghosts.solver import solve
from sensor_ghosts.solver.model import POD, ROT, SHIP, Model
from sensor_ghosts.solver.reference import reference_solve


def _conformance():
    path = pathlib.Path(__file__).resolve().parents[1] / "rules" / "test_conformance.py"
    spec = importlib.util.spec_from_file_location("_sg_conformance", path)
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(mod)
    return mod


make = _conformance().make  # the hand-made position builder of the rules tests
R = Direction.RIGHT
GAPS = ". . . . ."
# Gaps but for the start cards and the cards named: short turn lists (the
# brute force lists every Deep Scan target and, with two players, every
# helper's card and the deck's).
SPARSE = {1: "S S . . .", 2: GAPS, 3: GAPS, 4: GAPS, 5: GAPS, 6: GAPS}


def pod_once(on: bool) -> GameState:
    # The pod on (7,2) is four steps from Earth; the ship on (7,5) flies right
    # into Earth holding two viruses, one to pay a second action. F2 and F5
    # have pod value 2 ([D5]): two actions move the pod 2 + 2 by default, the
    # last action alone moves it 2 with the option.
    return make({**SPARSE, 7: ". E/E E/E E/E E/E"}, hand=("F2", "F5", "S1"), discard=[("F4", R)],
                escape_pod=True,
                second_action=True, ship=(7, 5), pod=(7, 2), held=2, pod_once_per_turn=on)


def helpers_once(on: bool) -> GameState:
    # Two players; the ship two steps from Earth with the heading right. By
    # default the active player flies twice (F1, then F2 for a virus); with the
    # option they play one card a turn and player 2 flies the second step. The
    # Wild on top of the deck (second pass) rules out the two-player wild [D18]
    # this turn, which would multiply the engine's turn list.
    return make({**SPARSE, 7: ". . . E/E E/E"}, hands=(("F1", "F2"), ("F3", "S1")),
                discard=[("F4", R)], deck=("W", "F5", "F6", "F7", "S2"), second_pass=True,
                second_action=True, ship=(7, 4), held=2, helpers_once_per_turn=on)


def earth_row_7(on: bool) -> GameState:
    # The ship waits at Earth, the pod on (7,1). By default a Deep Scan shifts
    # row 7, which carries the pod to (7,5) ([D16], [D17]), and D1's value 1
    # takes it to Earth; with the option row 7 cannot be shifted ([D14]).
    return make({**SPARSE, 7: "E/E E/E E/E . ."}, hand=("D1", "S1", "F1"), escape_pod=True,
                ship=EARTH, pod=(7, 1),
                held=1, earth_in_row_7=on)


POSITIONS = {"pod-once-per-turn": pod_once, "helpers-once-per-turn": helpers_once,
             "earth-in-row-7": earth_row_7}


def _rotations(start: GameState, s: GameState) -> tuple[int, ...]:
    """How many places left each row turned from ``start`` ([D16])."""
    out = []
    for before, after in zip(start.grid, s.grid, strict=True):
        ids = [getattr(c, "card", None) for c in before]
        now = [getattr(c, "card", None) for c in after]
        out.append(next(k for k in range(5) if now == ids[k:] + ids[:k]))
    return tuple(out)


def engine_successors(s: GameState) -> set:
    out = set()
    for t in legal_turns(s):
        s2 = apply_turn(s, t)
        if s2.outcome.status is not Status.LOST:
            out.add((s2.ship, s2.pod, _rotations(s, s2), s2.outcome.status is Status.WON))
    return out


def model_successors(s: GameState) -> set:
    m = Model(s, "deal")
    # Every Deep Scan shift names its row at once, as the engine's turns do
    # (deferred ones change no optimum: tests/solver/test_pending_shifts.py).
    m.pending_shifts = False
    return {(st[SHIP], st[POD], st[ROT], won) for st, _, _, won in m.successors(m.root_state())}


@pytest.mark.parametrize("on", [False, True])
@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_model_successors_match_the_engine(name, on):
    s = POSITIONS[name](on)
    assert model_successors(s) == engine_successors(s)


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_the_two_readings_have_different_successors(name):
    assert model_successors(POSITIONS[name](False)) != model_successors(POSITIONS[name](True))


def test_model_first_of_two_commands_leaves_the_pod_under_pod_once_per_turn():
    firsts = []
    for on in (False, True):
        m = Model(pod_once(on), "deal")
        firsts.append({rec[1][3] for _, rec, _, _ in m.successors(m.root_state()) if rec[2] is not None})
    # By default S1 on top of the three-card wild chooses the pod's direction.
    assert firsts[0] > {None} and firsts[1] == {None}
    s = make({**SPARSE, 7: ". E/E E/E E/E E/E"}, hand=("S2", "F5", "S1"), escape_pod=True,
             second_action=True, ship=(7, 4),
             pod=(7, 2), held=2, pod_once_per_turn=True)
    m = Model(s, "deal")
    recs = [rec for _, rec, _, _ in m.successors(m.root_state())]
    assert {rec[1][3] for rec in recs if rec[2] is not None} == {None}
    assert {rec[1][3] for rec in recs if rec[2] is None} > {None}
    assert model_successors(s) == engine_successors(s)


def test_model_has_no_second_action_for_multiplayer_helpers_once_per_turn():
    m = Model(helpers_once(True), "deal")
    assert not m.second_ok and m.actions_per_turn == 1
    assert all(rec[2] is None for _, rec, _, _ in m.successors(m.root_state()))
    solo = replace(helpers_once(True), hands=(("F1", "F2", "S1"),))
    solo = solo.evolve(setup=replace(solo.setup, options=replace(solo.options, players=1)))
    assert Model(solo, "deal").second_ok


def _agree(state: GameState, horizon: int):
    ref = reference_solve(state, horizon)
    r = solve(state, mode="deal", max_turns=horizon, max_nodes=20000)
    assert r.status != "unknown"
    mine = (r.turns, r.cards, r.plan.figures.cards_left) if r.status == "solved" else None
    assert mine == ref, (mine, ref)
    if r.plan is not None:
        assert r.plan.replay()[-1].outcome.status is Status.WON
    return mine


def _turns_and_cards(state: GameState, horizon: int):
    """The solver's optimum alone (its plan is replayed through the engine)."""
    r = solve(state, mode="deal", max_turns=horizon, max_nodes=20000)
    assert r.status == "solved"
    return r.turns, r.cards


# The brute force of two-turn horizons with a second action takes seconds a
# position; one turn is where these positions part, and the solver's longer
# plans are replayed through the engine.


def test_solver_agrees_with_brute_force_pod_once_per_turn():
    assert _agree(pod_once(False), 1)[:2] == (1, 2)  # F2 then F5: the pod moves 2 + 2
    assert _agree(pod_once(True), 1) is None  # the last action moves it 2 at most
    assert _turns_and_cards(pod_once(True), 3) == (2, 2)


def test_solver_agrees_with_brute_force_helpers_once_per_turn():
    assert _agree(helpers_once(False), 1)[:2] == (1, 2)  # F1 then F2, both of player 1
    assert _agree(helpers_once(True), 1) is None
    assert _turns_and_cards(helpers_once(True), 3) == (2, 2)  # player 2 flies the second step


def test_solver_agrees_with_brute_force_earth_in_row_7():
    assert _agree(earth_row_7(False), 2) == (1, 1, 12)  # D1: shift row 7, pod right
    assert _agree(earth_row_7(True), 2) is None  # the pod is 5 steps away, values 1


# --------------------------------------------------------------------------
# Random small positions: the model and the engine agree on every option
# --------------------------------------------------------------------------

_IDS = ("F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "D1", "D2", "S1", "S2")


def _random_position(seed: int, players: int, at_earth: bool, **opts) -> GameState:
    """A sparse grid (about half gaps, random card sides, a few viruses), the
    ship in rows 5-7 (or at Earth), the pod on a card or at Earth, random hands,
    heading, shields and held viruses (at least one: a second action)."""
    import random

    rng = random.Random(seed)
    rows = {1: "S S . . ."}
    for r in range(2, 8):
        toks = []
        for _ in range(5):
            if rng.random() < 0.5:
                toks.append(".")
                continue
            tok = f"{rng.choice('EEEBBAO')}/{rng.choice('EEBAAO')}" + ("!" if rng.random() < 0.25 else "")
            toks.append(tok + ("+v" if r >= 3 and rng.random() < 0.15 else ""))
        rows[r] = " ".join(toks)
    cards = [(r, c) for r in range(5, 8) for c, t in enumerate(rows[r].split(), 1) if t != "."]
    ids = list(_IDS)
    rng.shuffle(ids)
    size = 3 if players == 1 else 2
    hands = [tuple(ids[i * size:(i + 1) * size]) for i in range(players)]
    deck = ids[players * size:]
    if players == 2:
        # The Wild on top (second pass): no two-player wild [D18], whose helper
        # and deck cards would multiply the engine's turn list beyond a test's time.
        deck = ["W", *deck]
    ship = EARTH if at_earth or not cards else rng.choice(cards)
    pods = [p for p in cards if p != ship and "O" not in rows[p[0]].split()[p[1] - 1][:1]]
    pod = None
    if opts.get("escape_pod"):
        pod = rng.choice(pods + [EARTH])
    heading = rng.choice([None, R, Direction.UP, Direction.LEFT])
    return make(rows, hands=tuple(hands), deck=tuple(deck), second_pass=players == 2,
                discard=[("F10", heading)] if heading else [], ship=ship, pod=pod,
                held=rng.choice([1, 2]), shields=rng.choice([0, 1, 2]), **opts)


CASES = {
    "pod-once-per-turn": (1, False, dict(escape_pod=True, second_action=True, pod_once_per_turn=True)),
    "helpers-once-per-turn 2p": (2, False, dict(second_action=True, helpers_once_per_turn=True)),
    "helpers-once-per-turn 3p": (3, False, dict(second_action=True, helpers_once_per_turn=True)),
    "earth-in-row-7": (1, True, dict(escape_pod=True, earth_in_row_7=True)),
    "all three, solo": (1, False, dict(escape_pod=True, second_action=True, pod_once_per_turn=True,
                                       helpers_once_per_turn=True, earth_in_row_7=True)),
    "all three, 2p at Earth": (2, True, dict(escape_pod=True, second_action=True, pod_once_per_turn=True,
                                             helpers_once_per_turn=True, earth_in_row_7=True)),
}


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("case", sorted(CASES))
def test_model_successors_match_the_engine_random_positions(case, seed):
    players, at_earth, opts = CASES[case]
    s = _random_position(1000 * seed + len(case), players, at_earth, **opts)
    assert model_successors(s) == engine_successors(s), case
