"""Setups the solver has checked, and what their pages draw.

As a puzzle collection's generators run their solver and keep only what it
proves, ``generate_solved`` draws setups and keeps those the solver solves
(and, if asked, whose solution has a wanted property, e.g. at least eight
turns). The commands call it (``generate --solved-only``).

The renderer draws what it is given; the work behind a page is here:
``solve_instance`` (what ``render --solution`` solves), ``solution_of`` (a
plan's states and the engine's log of each turn, for ``render.solution_page``)
and ``regenerable`` (whether the footer may say ``generate --id``).

Its own module, above the parts it joins: the generator and the solver are
on one floor (each imports only ``rules``), so neither may import the other,
and the renderer imports neither (rules <- generators, solver <- advisor <-
render, cli). The generator gives the seeded, filtered walk over seeds
(``iter_accepted``); the solver filter is here. Importing this module loads
the solver (Numba), so ``import sensor_ghosts`` does not.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from . import solver
from .generators import is_game_id
from .generators.generate import Filter, SetupFilter, iter_accepted
from .render import Page, Solution, booklet, solution_page
from .rules.engine import apply_turn
from .rules.options import RuleOptions
from .rules.setup import Deal, Setup
from .rules.state import GameState, initial_state
from .rules.turns import Turn
from .solver import SolveResult
from .solver.plan import OBJECTIVE_NOTES, Plan
from .solver.result import Mode, Objective, Status

# Seeds drawn per setup asked for before ``generate_solved`` gives up.
MAX_SEEDS_PER_SETUP = 10


def solve_setup(
    setup: Setup,
    *,
    timeout: float,
    objective: str = Objective.TURNS,
    progress: Callable[[dict], None] | None = None,
) -> SolveResult:
    """The best plan for ``setup`` in deal mode, with its own deal, within
    ``timeout`` seconds: 'turns-only' in one search; 'turns' staged
    (``solve_staged``: the fewest turns first, so a budget too short for the
    cards still gives a plan). ``progress`` as for ``solve`` (None: silent).
    The solver's functions are looked up at each call, so a test can stand
    in for them (``tests/cli/test_progress.py``)."""
    if objective == Objective.TURNS_ONLY:
        return solver.solve(setup, mode=Mode.DEAL, deal=setup.deal, timeout=timeout, objective=Objective.TURNS_ONLY,
                     progress=progress)
    if objective != Objective.TURNS:
        raise ValueError(f"objective {objective!r}: use {Objective.TURNS!r} or {Objective.TURNS_ONLY!r}")
    return solver.solve_staged(setup, mode=Mode.DEAL, deal=setup.deal, timeout=timeout, progress=progress)


class SolvedFilter(SetupFilter):
    """Accepts a setup the solver solves within ``timeout`` (``solve_setup``)
    and whose result ``want`` accepts (any, if None). ``last`` holds the
    latest setup solved and its result, for a caller that keeps both."""

    name = "not solved"

    def __init__(
        self,
        timeout: float,
        objective: str = Objective.TURNS,
        want: Callable[[SolveResult], bool] | None = None,
        progress: Callable[[dict], None] | None = None,
    ) -> None:
        self.timeout = timeout
        self.objective = objective
        self.want = want
        self.progress = progress
        self.last: tuple[Setup, SolveResult] | None = None

    def accept(self, setup: Setup) -> bool:
        result = solve_setup(setup, timeout=self.timeout, objective=self.objective, progress=self.progress)
        self.last = (setup, result)
        return result.status == Status.SOLVED and (self.want is None or self.want(result))


def generate_solved(
    seed: int,
    count: int,
    options: RuleOptions | None = None,
    *,
    timeout: float,
    objective: str = Objective.TURNS,
    want: Callable[[SolveResult], bool] | None = None,
    filters: Sequence[Filter] = (),
    max_seeds: int | None = None,
    skipped: list[int] | None = None,
    progress: Callable[[dict], None] | None = None,
    **kwargs,
) -> Iterator[tuple[Setup, SolveResult]]:
    """``count`` setups, each with its solved result, from the seeds ``seed,
    seed + 1, ...``: those the solver solves within ``timeout`` (and ``want``
    accepts), in seed order. ``filters`` (cheap ones, on the setup alone) run
    before the solver. The seeds passed over are appended to ``skipped``.
    Raises ``GenerationFailedError`` after ``max_seeds`` seeds
    (``MAX_SEEDS_PER_SETUP`` x ``count`` by default). Lazy: each setup is
    solved when the next one is asked for. The same seed gives the same
    setups whenever the solves settle within the budget; a budget that cuts
    them short makes the choice depend on the machine's speed. Other keyword
    arguments go to ``generate_setup`` (constraints, card sets, ...)."""
    solved = SolvedFilter(timeout, objective, want, progress)
    limit = MAX_SEEDS_PER_SETUP * count if max_seeds is None else max_seeds
    for setup in iter_accepted(seed, count, options, filters=[*filters, solved], max_seeds=limit,
                               skipped=skipped, **kwargs):
        # The solver filter runs last, so the setup it accepted is this one.
        assert solved.last is not None and solved.last[0] is setup
        yield setup, solved.last[1]


# ----------------------------------------------------------------------------
# what the pages draw (the renderer takes these; it neither solves nor replays)
# ----------------------------------------------------------------------------


def solve_instance(instance: Setup | GameState, *, timeout: float | None = 30.0) -> SolveResult:
    """The solver's result for a page: a setup in deal mode when it fixes a
    deal, else in open mode; a state in deal mode (its deck is known); staged
    (``solve_staged``), within ``timeout`` seconds."""
    open_mode = isinstance(instance, Setup) and instance.deal is None
    return solver.solve_staged(instance, mode=Mode.OPEN if open_mode else Mode.DEAL, timeout=timeout)


def solution_line(start: GameState, turns: Sequence[Turn], *, note: str = "") -> Solution:
    """What the solution page draws of ``turns`` played from ``start``: one pass
    through the rules engine, keeping each state and each turn's log (raises
    ``IllegalTurnError`` on an illegal turn). The line need not win: the page
    then calls it a plan."""
    states, logs = [start], []
    for turn in turns:
        log: list = []
        states.append(apply_turn(states[-1], turn, log=log))
        logs.append(log)
    return Solution(states, list(turns), logs, note)


def solution_of(plan: Plan | SolveResult) -> Solution:
    """A solver plan (or the result holding it) as the solution page draws it,
    from the plan's own start, with what it is optimal for."""
    if isinstance(plan, SolveResult):
        if plan.plan is None:
            raise ValueError(f"the solver result holds no plan ({plan.status})")
        plan = plan.plan
    return solution_line(plan.start, plan.turns, note=OBJECTIVE_NOTES.get(plan.objective, ""))


def regenerable(setup: Setup) -> bool:
    """Whether ``setup``'s id is a generator's game ID (``generate --id`` gives
    the setup again): the pages' ``regenerable``."""
    return is_game_id(setup.id)


def render_solution(setup: Setup, turns: Any, *, deal: Deal | None = None, seed: int | None = None,
                    **kw: Any) -> Page:
    """The solution page of a line of turns, a ``Plan`` (``.turns``, ``.deal``,
    ``.start``, ``.objective``) or a solver result holding one in ``.plan``:
    played from the plan's start, else from ``initial_state(setup, deal,
    seed=seed)``. Other keywords go to ``render.solution_page`` (``note``, by
    default what the plan is optimal for; ``regenerable``, by default
    :func:`regenerable`)."""
    if hasattr(turns, "plan"):
        turns = turns.plan
        if turns is None:
            raise ValueError("the solver result holds no plan")
    objective = getattr(turns, "objective", None)
    note = kw.pop("note", None)
    if note is None:
        note = OBJECTIVE_NOTES.get(objective, "") if objective is not None else ""
    start = getattr(turns, "start", None)
    if hasattr(turns, "turns"):
        deal = deal or getattr(turns, "deal", None)
        turns = turns.turns
    if not isinstance(start, GameState):  # a plan knows its start (a mid-game state, or the dealt setup)
        start = initial_state(setup, deal, seed=seed)
    kw.setdefault("regenerable", regenerable(start.setup))
    return solution_page(solution_line(start, list(turns), note=note), **kw)


def write_booklet(setups: Sequence[Setup], path: str | Path, solutions: bool = False) -> int:
    """A booklet of ``setups`` (see ``render.booklet``), with their solution
    pages when ``solutions`` (each solved by :func:`solve_instance`; none for
    a setup not solved). Returns the number of pages."""
    sols: list[Solution | None] | None = None
    if solutions:
        results = [solve_instance(s) for s in setups]
        sols = [solution_of(r.plan) if r.plan is not None else None for r in results]
    return booklet(setups, path, sols, regenerable=[regenerable(s) for s in setups])
