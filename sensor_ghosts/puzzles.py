"""Setups the solver has checked: the generator's filters, backed by the solver.

As a puzzle collection's generators run their solver and keep only what it
proves, ``generate_solved`` draws setups and keeps those the solver solves
(and, if asked, whose solution has a wanted property, e.g. at least eight
turns). The commands call it (``generate --solved-only``).

Its own module, above both halves it joins: the generator and the solver are
on one floor (each imports only ``rules``), so neither may import the other
(rules <- generators, solver <- advisor <- render, cli). The generator gives
the seeded, filtered walk over seeds (``iter_accepted``); the solver filter
is here. Importing this module loads the solver (Numba), so ``import
sensor_ghosts`` does not.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from . import solver
from .generators.generate import Filter, SetupFilter, iter_accepted
from .rules.options import RuleOptions
from .rules.setup import Setup
from .solver import SolveResult
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
