"""The compiled grid half of a turn (``grid_kernel``) against the model's own
(``Model.grid_moves``): the same next grids, in the same order, for every
pay class (and, with the escape pod, its moves), on grids the game reaches
and on random ones; and the card search finds the same optimum with the same
nodes either way."""

from __future__ import annotations

import random
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sensor_ghosts.generators.generate import generate_setup
from sensor_ghosts.rules.geometry import DIRECTIONS, DOCK, EARTH
from sensor_ghosts.rules.options import Difficulty, RuleOptions
from sensor_ghosts.rules.state import initial_state
from sensor_ghosts.solver import solve, split
from sensor_ghosts.solver.grid_kernel import MAX_PEND, CompiledGridTurns
from sensor_ghosts.solver.model import ALL_ROWS, FLY, SCAN, SHIELDS, SHIFT_TAG, Model

PAY_CLASSES = [(FLY, d) for d in DIRECTIONS] + [split.ANY_PEEK, SCAN, (SHIELDS, None)]
OPTIONS = {
    "standard": RuleOptions(),
    "flip-one": RuleOptions(flip_one=True),
    "two-samples": RuleOptions(two_samples=True),
    "earth-in-row-7": RuleOptions(earth_in_row_7=True),
    "advanced": RuleOptions(difficulty=Difficulty.ADVANCED),
    "escape-pod": RuleOptions(escape_pod=True),
}
# The escape pod's moves (``Model.pod_move``: direction, steps; None: none).
POD_MOVES = [None] + [(d, n) for d in DIRECTIONS for n in (1, 2, 3)]


def _pod_moves(model: Model) -> list:
    return POD_MOVES if model.pod_variant else [None]


@cache
def _model(seed: int, options: str, mode: str = "deal") -> Model:
    setup = generate_setup(seed=seed, options=OPTIONS[options])
    return Model(initial_state(setup, setup.deal), mode)


@cache
def _python_half(model: Model) -> split.GridHalf:
    half = split.GridHalf(model, 12, None)
    half._compiled = False  # the Python path: ``Model.grid_moves``
    return half


def _python_nexts(model: Model, gk: tuple, pc: tuple, pod: tuple | None = None) -> list:
    """The next grids as ``GridHalf`` works them out without the kernel."""
    return _python_half(model)._next_grids(gk, pod, pc)


def _agrees(compiled: CompiledGridTurns, model: Model, gk: tuple, pc: tuple, pod: tuple | None = None) -> bool:
    """The kernel gives the model's next grids, or passes (None) on a grid
    with more pending entries than its rows hold."""
    got = compiled.nexts(gk, pc, pod)
    if len(gk[-1]) >= MAX_PEND:
        return got is None
    return got == _python_nexts(model, gk, pc, pod)


def _walk(model: Model, rng: random.Random, steps: int) -> list[tuple]:
    """Grids of random turns from the start, Deep Scans favoured (they leave
    pending flips and shifts, where the turn branches most)."""
    gk = split.grid_key(model.root_state())
    seen = [gk]
    for _ in range(steps):
        pc = SCAN if rng.random() < 0.3 else rng.choice(PAY_CLASSES)
        nxt = [g for g in _python_nexts(model, gk, pc, rng.choice(_pod_moves(model))) if g is not None]
        if not nxt:
            gk = seen[0] if rng.random() < 0.3 else gk
            continue
        gk = rng.choice(nxt)
        seen.append(gk)
    return seen


@pytest.mark.parametrize("options", list(OPTIONS))
@pytest.mark.parametrize("seed", [0, 7])
def test_reached_grids_match_the_model(seed: int, options: str) -> None:
    model = _model(seed, options)
    compiled = CompiledGridTurns(model)
    rng = random.Random(seed)
    checked = 0
    for gk in _walk(model, rng, 60):
        for pc in PAY_CLASSES:
            for pod in _pod_moves(model):
                assert _agrees(compiled, model, gk, pc, pod), (gk, pc, pod)
                checked += len(gk[-1]) < MAX_PEND
    assert checked > 100


@pytest.mark.parametrize("options", ["standard", "escape-pod"])
def test_open_mode_grids_match_the_model(options: str) -> None:
    model = _model(3, options, "open")
    compiled = CompiledGridTurns(model)
    for gk in _walk(model, random.Random(3), 40):
        for pc in PAY_CLASSES:
            for pod in _pod_moves(model):
                assert _agrees(compiled, model, gk, pc, pod), (gk, pc, pod)


CELLS = [DOCK, EARTH] + [(r, c) for r in range(1, 8) for c in range(1, 6)]


@st.composite
def _grids(draw):
    """Any grid of the model's form: the ship anywhere (the dock and Earth
    too), any rotations and pattern sets, pending flips and shifts."""
    cells = CELLS
    ship = draw(st.sampled_from(cells))
    shields = draw(st.integers(0, 2))
    held = draw(st.integers(0, 2))
    rot = tuple(draw(st.lists(st.integers(0, 4), min_size=7, max_size=7)))
    masks = tuple(draw(st.lists(st.integers(1, (1 << 32) - 1), min_size=7, max_size=7)))
    samples = draw(st.integers(0, (1 << 35) - 1))  # (cut to the setup's tokens)
    # Pending flips: cards met since their Deep Scans, often alike (the
    # planner then applies the first of equal ones).
    alike = st.sampled_from([0, 0b11111 << 10, 0b11111 << 15, 1 << 7])
    flips = sorted(draw(st.lists(alike | st.integers(0, (1 << 35) - 1), max_size=4)))
    shifts = sorted(SHIFT_TAG | m for m in draw(st.lists(st.integers(0, ALL_ROWS - 1), max_size=3)))
    return (ship, None, shields, held, rot, masks, samples, tuple(flips) + tuple(shifts))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(gk=_grids(), seed=st.sampled_from([0, 7]), options=st.sampled_from(list(OPTIONS)),
       pc=st.sampled_from(PAY_CLASSES))
def test_any_grid_matches_the_model(gk: tuple, seed: int, options: str, pc: tuple) -> None:
    model = _model(seed, options)
    gk = (*gk[:6], gk[6] & model.initial_samples, gk[7])  # tokens lie where the setup put them
    assert CompiledGridTurns(model).nexts(gk, pc) == _python_nexts(model, gk, pc)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(gk=_grids(), seed=st.sampled_from([0, 7]), pod_at=st.sampled_from(CELLS),
       pc=st.sampled_from(PAY_CLASSES), pod=st.sampled_from(POD_MOVES))
def test_any_grid_with_the_escape_pod_matches_the_model(gk: tuple, seed: int, pod_at: tuple, pc: tuple,
                                                        pod: tuple | None) -> None:
    """The pod anywhere (the dock, Earth, any card), any move of it."""
    model = _model(seed, "escape-pod")
    pend = tuple(p for p in gk[7] if p < SHIFT_TAG)  # (no pending shifts with the pod)
    gk = (gk[0], pod_at, *gk[2:6], gk[6] & model.initial_samples, pend)
    assert CompiledGridTurns(model).nexts(gk, pc, pod) == _python_nexts(model, gk, pc, pod)


@pytest.mark.parametrize("seed", [0, 7])
@pytest.mark.parametrize("ship_row", [1, 3, 5])
def test_the_pod_meeting_a_deep_scans_new_flip_in_the_rescan_row(seed: int, ship_row: int) -> None:
    """A Deep Scan's pending flip, then the pod's move onto a card of the row
    two ahead: the flip applied there is one by choice this turn, which the
    re-scan may not flip again ([D23]), and a shift of that row carries the
    pod ([D17]); every column, every step along the row."""
    model = _model(seed, "escape-pod")
    root = split.grid_key(model.root_state())
    compiled = CompiledGridTurns(model)
    moves = [(d, n) for d in DIRECTIONS if d.value[0] == 0 for n in (1, 2, 3)]
    for ship_col in (1, 3):
        for pod_col in range(1, 6):
            gk = ((ship_row, ship_col), (ship_row + 2, pod_col), *root[2:])
            for pod in moves:
                assert _agrees(compiled, model, gk, SCAN, pod), (gk, pod)


def test_too_many_pending_entries_fall_back_to_python() -> None:
    model = _model(0, "standard")
    gk = split.grid_key(model.root_state())
    many = gk[:-1] + (tuple(range(MAX_PEND)),)
    assert CompiledGridTurns(model).nexts(many, SCAN) is None
    half = split.GridHalf(model, 12, None)
    assert half._next_grids(many, None, SCAN) == _python_nexts(model, many, SCAN)


@pytest.mark.parametrize("options", [
    RuleOptions(low_memory=True), RuleOptions(second_action=True), RuleOptions(reveal_once=True),
    RuleOptions(escape_pod=True, low_memory=True),
])
def test_applies_only_with_pending_flips(options: RuleOptions) -> None:
    setup = generate_setup(seed=1, options=options)
    model = Model(initial_state(setup, setup.deal), "deal")
    assert not CompiledGridTurns.applies(model)
    assert CompiledGridTurns.applies(_model(1, "standard"))
    assert CompiledGridTurns.applies(_model(1, "escape-pod"))


@pytest.mark.parametrize("mode", ["deal", "open"])
def test_card_search_is_the_same_without_the_kernel(monkeypatch, mode: str) -> None:
    """Same optimum, plan and nodes with the grid's turns worked out in
    Python (the kernel changes the speed, not the search)."""
    setups = [generate_setup(seed=s) for s in (2, 5)] + [generate_setup(seed=s, options=OPTIONS["escape-pod"])
                                                         for s in (1, 4)]
    compiled = [solve(s, mode=mode) for s in setups]
    monkeypatch.setattr(CompiledGridTurns, "applies", staticmethod(lambda model: False))
    python = [solve(s, mode=mode) for s in setups]
    for a, b in zip(compiled, python, strict=True):
        assert a.status == b.status == "solved"
        assert (a.turns, a.cards, a.nodes) == (b.turns, b.cards, b.nodes)
        assert a.plan.to_text() == b.plan.to_text()


@pytest.mark.parametrize("options", ["standard", "earth-in-row-7"])
@pytest.mark.parametrize("ship", [DOCK, EARTH, (6, 3), (7, 5)])
def test_deep_scans_at_the_ends_of_the_grid(options: str, ship: tuple) -> None:
    """The rows a pending shift may take ([D14], 'earth-in-row-7') and the
    re-scan row ([D23]) where they differ: at the dock, at Earth and near it."""
    model = _model(0, options)
    root = split.grid_key(model.root_state())
    gk = (ship, *root[1:7], (1 << 20, SHIFT_TAG | 0b0000010))
    compiled = CompiledGridTurns(model)
    for pc in PAY_CLASSES:
        assert compiled.nexts(gk, pc) == _python_nexts(model, gk, pc), pc
    at_earth = [g[-1] for g in compiled.nexts(gk, SCAN)] if ship == EARTH else []
    if at_earth:  # the new pending shift: blocked from row 7 only under the option
        blocked = {p ^ SHIFT_TAG for pend in at_earth for p in pend if p >= SHIFT_TAG} - {0b0000010}
        assert blocked == ({1 << 6} if options == "earth-in-row-7" else {0})


def test_a_flight_of_many_branches_grows_the_scratch_rows() -> None:
    """Three pending shifts and three pending flips before a boost run: 261
    branches in one flight, more than the rows the kernel starts with."""
    model = _model(7, "standard")
    gk = ((3, 5), None, 0, 2, (0, 0, 0, 3, 4, 0, 0), (1, 1, 1, 257, 257, 1, 1), 0,
          (0, 0, 31744, SHIFT_TAG, SHIFT_TAG, SHIFT_TAG | 1))
    compiled = CompiledGridTurns(model)
    rows = compiled.work.shape[0]
    pc = (FLY, DIRECTIONS[0])
    got = compiled.nexts(gk, pc)
    assert got == _python_nexts(model, gk, pc) and len(got) > 50
    assert compiled.work.shape[0] > rows
