"""Deferred Deep Scan shifts (``Model.enter_row``): the row a Deep Scan shifts
is chosen when the ship next enters it. They must change no optimum, and a
plan that uses one must replay with the row shifted on its Deep Scan's turn
(``plan.pending_shift_targets``, ``plan.shift_rotation``)."""

from __future__ import annotations

import pytest
from instances import VARIANTS, near_earth

from sensor_ghosts.generators.generate import generate_setup
from sensor_ghosts.rules.options import RuleOptions
from sensor_ghosts.rules.state import initial_state
from sensor_ghosts.rules.turns import ActionKind
from sensor_ghosts.solver import plan as plan_mod
from sensor_ghosts.solver import solve
from sensor_ghosts.solver.model import ALL_ROWS, ROT, SHIFT, Model
from sensor_ghosts.solver.plan import PlanReplayError


@pytest.fixture
def shifts_explicit(monkeypatch):
    """``use(False)``: every model names a Deep Scan's row at once, as
    before (``Model.pending_shifts`` off); ``use(True)``: deferred again."""
    init = Model.__init__

    def explicit(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.pending_shifts = False

    def use(deferred: bool) -> None:
        monkeypatch.setattr(Model, "__init__", init if deferred else explicit)

    return use


def _figures(result) -> tuple:
    plan = result.plan
    return (result.status, result.turns, result.cards, plan.figures.cards_left if plan else None)


def _shifts(result) -> int:
    return sum(1 for turn in result.plan.turns for c in (turn.command, turn.second)
               if c is not None and c.action.kind is ActionKind.SHIFT)


@pytest.mark.parametrize("mode", ["deal", "open"])
def test_deferred_shifts_change_no_optimum(mode, shifts_explicit):
    used = 0
    for seed in range(8):
        setup = generate_setup(seed=seed)
        shifts_explicit(True)
        deferred = solve(setup, mode=mode, timeout=30)
        shifts_explicit(False)
        explicit = solve(setup, mode=mode, timeout=30)
        assert _figures(deferred) == _figures(explicit), seed
        used += _shifts(deferred)
    assert used  # (some optimum shifts a row: the check is not idle)


@pytest.mark.parametrize("name", ["3p", "4p", "flip-one", "two-samples", "advanced"])
def test_deferred_shifts_change_no_optimum_in_the_variants(name, shifts_explicit):
    # Ships low on the grid, with rows ahead to shift.
    used = 0
    for seed in range(3):
        st = near_earth(seed, VARIANTS[name], rows=(2, 3))
        shifts_explicit(True)
        deferred = solve(st, mode="deal", timeout=30)
        shifts_explicit(False)
        explicit = solve(st, mode="deal", timeout=30)
        assert _figures(deferred) == _figures(explicit), (name, seed)
        used += _shifts(deferred) if deferred.plan else 0
    assert used


def test_deferred_shifts_change_no_fewest_turns(shifts_explicit):
    # 'turns-only' in deal mode: the joint A* (search.astar) on the model.
    for seed in range(4):
        setup = generate_setup(seed=seed)
        shifts_explicit(True)
        deferred = solve(setup, mode="deal", objective="turns-only")
        shifts_explicit(False)
        explicit = solve(setup, mode="deal", objective="turns-only")
        assert deferred.turns == explicit.turns, seed


@pytest.mark.parametrize("options, on", [
    (RuleOptions(), True),
    (RuleOptions(players=4), True),
    (RuleOptions(escape_pod=True), False),  # the pod meets the cards of rows the ship has not entered
    (RuleOptions(low_memory=True), False),  # the token nearest Earth depends on every rotation
    (RuleOptions(second_action=True), False),
    (RuleOptions(reveal_once=True), False),  # no deferred Deep Scan at all there
])
def test_where_shifts_are_deferred(options, on):
    setup = generate_setup(seed=1, options=options)
    assert Model(initial_state(setup, setup.deal), "deal").pending_shifts is on
    assert Model(initial_state(setup, setup.deal), "expected").pending_shifts is False


def _branch_with_shift(blocked: int):
    setup = generate_setup(seed=0)
    model = Model(initial_state(setup, setup.deal), "deal")
    b = model.branch_of(model.root_state())
    b.spend = [blocked]
    return model, b


def test_entering_a_row_may_take_a_pending_shift():
    model, b = _branch_with_shift(0b0000001)  # made at the dock: row 1 never ([D14])
    rot = list(b.rot)
    out = model.enter_row(b, 2)
    assert len(out) == 2
    taken = [x for x in out if not x.spend]
    left = [x for x in out if x.spend]
    assert taken[0].rot[2] == (rot[2] + 1) % 5 and taken[0].rot[:2] == rot[:2]
    assert left[0].rot == rot and left[0].spend == [0b0000101]  # row 3 no more
    # A row the shift may not take: nothing is applied, the row is noted.
    model, b = _branch_with_shift(0b0000101)
    out = model.enter_row(b, 2)
    assert len(out) == 1 and out[0].spend == [0b0000101] and out[0].rot == rot


def test_a_pending_shift_no_row_may_take_is_dropped():
    model, b = _branch_with_shift(ALL_ROWS & ~0b0000100)  # only row 3 left
    out = model.enter_row(b, 2)
    assert len(out) == 1 and not out[0].spend  # only the branch that shifts row 3


def test_two_pending_shifts_may_both_take_a_row():
    model, b = _branch_with_shift(0b0000001)
    b.spend = [0b0000001, 0b0000011]
    rot = b.rot[4]
    out = model.enter_row(b, 4)
    # none, either one (two different shifts left), both
    assert sorted(x.rot[4] for x in out) == sorted([rot, (rot + 1) % 5, (rot + 1) % 5, (rot + 2) % 5])


@pytest.mark.parametrize("seed", [3, 7, 10])
def test_a_deferred_shift_turns_its_row_from_its_deep_scan_on(seed, monkeypatch):
    """On these setups the optimum shifts a row that a re-scan or a Deep Scan
    flip meets before the ship enters it: the plan names those cards by their
    columns then, with the row already shifted."""
    setup = generate_setup(seed=seed)
    result = solve(setup, mode="deal")  # replayed through the engine
    assert _shifts(result)
    # The same plan with the model's rotations (the shift not yet made) fails.
    monkeypatch.setattr(plan_mod, "shift_rotation", lambda path, spans: (
        lambda t, end: tuple(path[t][0][ROT] if end else path[t - 1][0][ROT])))
    with pytest.raises(PlanReplayError):
        solve(setup, mode="deal")


def test_the_model_offers_one_deferred_shift():
    setup = generate_setup(seed=0)
    model = Model(initial_state(setup, setup.deal), "deal")
    b = model.branch_of(model.root_state())
    shifts = [a for a in model.actions(b, frozenset()) if a[0] == SHIFT]
    assert shifts == [(SHIFT, None)]
