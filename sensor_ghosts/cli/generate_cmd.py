"""``sensor-ghosts generate``: random setups from a seed or a game ID (RULES.md §3).

Exit status 0 on success; 2 with a one-line message for bad options or input;
1 with a one-line message when generation itself fails (e.g. constraints that
leave no legal choice).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from contextlib import ExitStack, contextmanager
from functools import partial
from typing import TYPE_CHECKING

import click

from ..fileio import atomic_file
from ..generators.constraints import NAMED_CONSTRAINTS
from ..generators.errors import GameIdError, GenerationFailedError
from ..generators.game_id import parse_game_id
from ..generators.generate import generate_setup, new_seed, setup_from_id
from ..generators.row_safety import SAFE_ROWS
from ..rules.errors import CardSetError, SensorGhostsError
from .common import options_from, rule_options

if TYPE_CHECKING:  # (the solver loads Numba: only when a command solves)
    from ..rules.setup import Setup
    from ..solver import SolveResult

# A setup to write, with its solver result when it comes solved.
Job = Callable[[], "tuple[Setup, SolveResult | None]"]

_OPTION_LIKE = ("players", "difficulty", "escape_pod", "low_memory", "option", "seed", "constraint")


def _solve(setup, timeout: float, objective: str):
    from ..puzzles import solve_setup
    from ..solver.search import tty_progress

    # The solver's progress line on a terminal, as the command has always
    # shown (the library is silent unless asked).
    return solve_setup(setup, timeout=timeout, objective=objective, progress=tty_progress())


def _unsolved(seed: int, options, sector_cards, constraints) -> tuple[Setup, SolveResult | None]:
    return generate_setup(seed, options, sector_cards=sector_cards, constraints=constraints), None


def _solution_lines(result) -> list[str]:
    head = f"solve (deal mode): {result.status}"
    if result.status == "solved":
        head += f" in {result.turns} turns, {result.cards} cards"
        if result.objective == "turns-only":
            from ..solver.plan import OBJECTIVE_NOTES

            head += f" ({OBJECTIVE_NOTES['turns-only']} within the time budget)"
    elif result.status == "unknown":
        head += f" within {result.seconds:.0f} s (at least {result.bound} turns)"
    lines = [head]
    if result.plan is not None:
        lines += result.plan.to_text().splitlines()[3:]  # the turns; deal is in the setup
    return lines


def _render(setup, fmt: str, result=None) -> str:
    """One setup as one complete record (ending with a newline); with a solver
    result, its plan as comment lines (text) or a "solution" object (JSON)."""
    from ..rules import notation

    if fmt == "text":
        text = notation.format_setup(setup)
        text = text if text.endswith("\n") else text + "\n"
        if result is not None:
            text += "".join(f"# {line}\n" for line in _solution_lines(result))
        return text
    data = notation.setup_to_json(setup)
    obj = json.loads(data) if isinstance(data, str) else data
    if result is not None:
        obj["solution"] = result.as_dict()
    if fmt == "jsonl":
        return json.dumps(obj, separators=(",", ":"), sort_keys=False) + "\n"
    return json.dumps(obj, indent=2) + "\n"


@contextmanager
def _sink(out: str | None, discard: bool = False):
    """Yields ``write(record)``. Records are written whole. With ``out``, they go to
    a temporary file beside it, renamed into place when the batch ends (also when
    it is interrupted): the file holds every finished record and no half one.
    ``discard``: nowhere (a PDF booklet is the output)."""
    if discard:
        yield lambda record: None
        return
    if out is None:

        def write(record: str) -> None:
            click.echo(record, nl=False)

        yield write
        return
    with ExitStack() as stack:
        try:
            f = stack.enter_context(atomic_file(out))
        except OSError as e:
            raise click.BadParameter(f"cannot write there: {e.strerror or e}", param_hint="--out") from None
        yield f.write


def _load_cards(cards_file: str | None):
    """The --cards set (None for the standard one), refused unless a safe deal
    can be made from it."""
    if cards_file is None:
        return None
    from ..rules.cards import SectorCardSet

    try:
        sector_cards = SectorCardSet.load(cards_file)
    except CardSetError as e:
        raise click.BadParameter(str(e), param_hint="--cards") from None
    safe = sum(1 for c in sector_cards.cards if c.front.safe_front)
    if safe < len(SAFE_ROWS):
        raise click.BadParameter(
            f"{cards_file}: only {safe} E/B fronts; rows 2..7 need {len(SAFE_ROWS)}, "
            "so no deal can be made safe [D7]",
            param_hint="--cards",
        )
    return sector_cards


def _id_jobs(ctx: click.Context, game_id: str, count: int, solved_only: bool, sector_cards) -> list[Job]:
    """The one job of --id, refusing the options the ID already fixes."""
    given = [
        "--" + p.replace("_", "-")
        for p in _OPTION_LIKE
        if ctx.get_parameter_source(p)
        in (click.core.ParameterSource.COMMANDLINE, click.core.ParameterSource.ENVIRONMENT)
    ]
    if given:
        raise click.UsageError(
            f"--id fixes seed and options; do not combine it with {', '.join(given)}"
        )
    if count != 1:
        raise click.UsageError("--id names one setup; do not combine it with --count")
    try:
        the_setup = setup_from_id(parse_game_id(game_id), sector_cards=sector_cards)
    except GameIdError as e:
        raise click.BadParameter(str(e), param_hint="--id") from None
    except SensorGhostsError as e:
        raise click.ClickException(str(e).splitlines()[0]) from None
    if solved_only:
        raise click.UsageError("--solved-only draws further seeds; do not combine it with --id")
    return [lambda: (the_setup, None)]


def _solved_jobs(base: int, count: int, options, timeout: float, objective: str,
                 skipped: list[int], sector_cards, cons) -> list[Job]:
    """--solved-only: ``count`` jobs each taking the next setup solved in time."""
    # Like a puzzle collection whose generators emit only what their solver
    # has checked: setups not solved in time give way to the next seeds.
    from ..puzzles import MAX_SEEDS_PER_SETUP, generate_solved
    from ..solver.search import tty_progress

    solved = generate_solved(base, count, options, timeout=timeout, objective=objective,
                             skipped=skipped, progress=tty_progress(), sector_cards=sector_cards,
                             constraints=cons)

    def next_solved() -> tuple[Setup, SolveResult | None]:
        try:
            return next(solved)
        except GenerationFailedError:
            raise click.ClickException(
                f"--solved-only: fewer than {count} of {MAX_SEEDS_PER_SETUP * count} seeds "
                f"solved within {timeout:g} s (raise --timeout)"
            ) from None

    return [next_solved] * count


def _write_records(jobs: list[Job], out: str | None, records_nowhere: bool, fmt: str,
                   solve: bool, show_solution: bool, timeout: float, objective: str
                   ) -> tuple[list, bool]:
    """Run the jobs in order, writing each record as it is made. Returns the
    (setup, result) pairs made and whether an interrupt cut the batch short."""
    batch = len(jobs) > 1
    show_bar = batch and sys.stderr.isatty()
    interrupted = False
    made: list = []
    try:
        with _sink(out, discard=records_nowhere) as write:
            if fmt == "json" and batch:
                write("[\n")
            bar = (
                click.progressbar(length=len(jobs), label="generating", file=sys.stderr)
                if show_bar
                else None
            )
            try:
                for i, job in enumerate(jobs):
                    try:
                        setup, result = job()
                    except KeyboardInterrupt:
                        # Keep every finished setup: stop before the unfinished one.
                        interrupted = True
                        break
                    if result is None and solve:
                        result = _solve(setup, timeout, objective)
                    made.append((setup, result))
                    record = _render(setup, fmt, result if show_solution else None)
                    if fmt == "json" and batch:
                        record = "  " + record.rstrip("\n").replace("\n", "\n  ")
                        record = (",\n" if i > 0 else "") + record
                    elif fmt == "text" and i > 0:
                        record = "\n" + record
                    write(record)
                    if bar is not None:
                        bar.update(1)
            finally:
                if bar is not None:
                    bar.render_finish()
            if fmt == "json" and batch:
                write("\n]\n")
    except SensorGhostsError as e:
        raise click.ClickException(str(e).splitlines()[0]) from None
    return made, interrupted


def _write_booklet(made: list, pdf_path: str, solutions: bool, records_nowhere: bool,
                   timeout: float) -> None:
    """The --pdf booklet of the setups made, and what it says about itself."""
    from ..render import booklet

    sols = None
    if solutions:
        from ..puzzles import solution_of

        sols = [solution_of(r.plan) if r is not None and r.plan is not None else None for _, r in made]
    # Every setup here is the generator's: its id is a game ID.
    booklet([m for m, _ in made], pdf_path, sols, regenerable=True)
    pages = len(made) + (sum(1 for _, r in made if r is not None and r.plan is not None) if solutions else 0)
    said = (f"wrote {pdf_path} ({len(made)} puzzle{'s' if len(made) != 1 else ''}"
            + (f", {pages - len(made)} solution page(s)" if solutions else "") + ")")
    # On standard output when it carries nothing else, else beside it.
    click.echo(said, err=not records_nowhere)
    if solutions:
        # Say which puzzles have no solution page, and why.
        late = [str(i) for i, (_, r) in enumerate(made, 1) if r is None or r.status == "unknown"]
        lost = [str(i) for i, (_, r) in enumerate(made, 1) if r is not None and r.status == "unsolvable"]
        if late:
            click.echo(f"{pdf_path}: no solution page for puzzle {', '.join(late)}: not solved "
                       f"within {timeout:g} s (raise --timeout)", err=True)
        if lost:
            click.echo(f"{pdf_path}: no solution page for puzzle {', '.join(lost)}: it cannot be won",
                       err=True)


@click.command("generate")
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=None,
    help="Seed (a non-negative integer); a fresh one if omitted.",
)
@rule_options
@click.option(
    "--constraint",
    multiple=True,
    type=click.Choice(list(NAMED_CONSTRAINTS)),
    help="A layout constraint on samples/removals; repeatable (goes into the ID).",
)
@click.option(
    "--cards",
    "cards_file",
    type=click.Path(dir_okay=False),
    default=None,
    help="A custom sector card set file (33 'id front/back' lines).",
)
@click.option(
    "--count",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="How many setups (seeds SEED, SEED+1, ...).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "jsonl"]),
    default="text",
    show_default=True,
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, writable=True),
    default=None,
    help="Write here (atomically) instead of standard output.",
)
@click.option(
    "--id", "game_id", default=None, help="Regenerate the setup of a game ID, e.g. 1p-standard#42."
)
@click.option(
    "--solve",
    "solve_each",
    is_flag=True,
    help="Solve each setup (deal mode, its own deal) and add the optimal plan.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0.1),
    default=10.0,
    show_default=True,
    help="Solver time limit per setup, seconds (--solve, --solutions).",
)
@click.option(
    "--pdf",
    "pdf_path",
    type=click.Path(dir_okay=False, writable=True),
    default=None,
    help="Write the setups as a printable PDF booklet of puzzles. The setups go to standard "
    "output too only when --format, --solve or --out asks for them.",
)
@click.option("--solutions", is_flag=True, help="With --pdf: solution pages after the puzzles.")
@click.option(
    "--objective",
    type=click.Choice(["turns", "turns-only"]),
    default="turns",
    show_default=True,
    help="What --solve/--solutions plans are optimal for: fewest turns, then fewest "
    "cards; or fewest turns alone (much faster).",
)
@click.option(
    "--solved-only",
    is_flag=True,
    help="With --solve/--solutions: keep only setups solved within --timeout, drawing "
    "the next seeds instead of the others (their seeds are reported).",
)
@click.pass_context
def generate(
    ctx: click.Context,
    seed,
    players,
    difficulty,
    escape_pod,
    low_memory,
    extra,
    constraint,
    cards_file,
    count,
    fmt,
    out,
    game_id,
    solve_each,
    timeout,
    pdf_path,
    solutions,
    objective,
    solved_only,
) -> None:
    """Generate random setups (RULES.md §3) from a seed or a game ID.

    Text uses the setup notation; json one object (an array for --count > 1);
    jsonl one object per line. The same seed and options always give the same
    setup; each setup carries its game ID."""
    sector_cards = _load_cards(cards_file)
    base, options, cons = 0, None, ()
    if game_id is not None:
        jobs = _id_jobs(ctx, game_id, count, solved_only, sector_cards)
    else:
        options = options_from(players, difficulty, escape_pod, low_memory, extra)
        base = new_seed() if seed is None else seed
        cons = tuple(constraint)
        jobs = [partial(_unsolved, base + i, options, sector_cards, cons) for i in range(count)]
    if solutions and pdf_path is None:
        raise click.UsageError("--solutions goes with --pdf")
    if solved_only and not (solve_each or solutions):
        raise click.UsageError("--solved-only goes with --solve or --solutions")
    skipped: list[int] = []
    if solved_only:
        jobs = _solved_jobs(base, count, options, timeout, objective, skipped, sector_cards, cons)

    # With --pdf the booklet is the output: the setups also go to standard
    # output only when asked for (--format, --solve), or to --out.
    fmt_given = ctx.get_parameter_source("fmt") is click.core.ParameterSource.COMMANDLINE
    records_nowhere = pdf_path is not None and out is None and not (fmt_given or solve_each)
    made, interrupted = _write_records(
        jobs, out, records_nowhere, fmt, solve_each or solutions, solve_each, timeout, objective
    )
    if pdf_path is not None and made:
        _write_booklet(made, pdf_path, solutions, records_nowhere, timeout)
    if skipped:
        click.echo(f"--solved-only: skipped {len(skipped)} setup(s) not solved within {timeout:g} s: "
                   f"seeds {', '.join(map(str, skipped))}", err=True)
    if interrupted:
        click.echo("interrupted: the setups finished so far are complete", err=True)
        sys.exit(130)
