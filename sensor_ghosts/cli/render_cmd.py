"""``sensor-ghosts render``: printable setup sheets and solution pages.

Exit statuses: 0 written; 2 bad input (unreadable file, bad format, a setup
the solver cannot take); 1 no solution to draw. Output is written to a
temporary file and renamed, so a failed run never leaves a partial file. The
command solves (``puzzles``) and the renderer draws what it is handed.
"""

from __future__ import annotations

from pathlib import Path

import click

from ..rules.errors import SensorGhostsError
from .common import violation_line, warn_if_invalid

FORMATS = ("svg", "pdf", "png")


class RenderInputError(click.ClickException):
    """Exit status 2 with a one-line reason."""

    exit_code = 2

    def __init__(self, message: str):
        super().__init__((message.splitlines() or ["bad input"])[0])


def _load(file: str):
    from .common import load_with_text

    return load_with_text(file)


def _regenerable(setup) -> bool:
    """The footer's ``regenerable`` (``puzzles.regenerable``, whose import
    would load the solver, which a plain sheet does not need)."""
    from ..generators import is_game_id

    return is_game_id(setup.id)


@click.command("render")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
              help="Output format (default: from --out's suffix, else svg).")
@click.option("--solution", is_flag=True, help="Add the solution page (solves the setup; PDF: both pages).")
@click.option("--hide", is_flag=True, help="A puzzle to play: hide the down sides and the samples' contents.")
@click.option("--out", "out", type=click.Path(dir_okay=False), default=None,
              help="Output file (default: FILE with the format's suffix).")
@click.option("--dpi", type=click.IntRange(30, 600), default=150, show_default=True, help="PNG resolution.")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=30.0, show_default=True,
              help="With --solution: the solver's time limit, seconds.")
def render(file: str, fmt: str | None, solution: bool, hide: bool, out: str | None, dpi: int,
           timeout: float) -> None:
    """Draw the setup or state in FILE as a printable sheet (SVG, PDF or PNG).

    \b
    With --solution the setup (or the state, from where it stands) is solved and
    its solution page is drawn: for PDF after the sheet, for SVG and PNG instead.
    \b
    Examples:
      sensor-ghosts render puzzle.txt --format pdf --hide --out puzzle.pdf
      sensor-ghosts render puzzle.txt --format png --solution --out solution.png
    """
    from .. import render as R
    from ..rules.state import GameState

    if fmt is None:
        suffix = Path(out).suffix.lower().lstrip(".") if out else ""
        fmt = suffix if suffix in FORMATS else "svg"
    target = Path(out) if out else Path(file).with_suffix("." + fmt)
    if not target.parent.is_dir():
        raise RenderInputError(f"{target}: no such directory {str(target.parent)!r}")

    inst, text = _load(file)
    # An invalid table is drawn as given, with a warning; its solution is not.
    unplayable = warn_if_invalid(file, text, inst)
    setup = inst.setup if isinstance(inst, GameState) else inst
    regen = _regenerable(setup)
    pages = []
    if solution:
        if unplayable:
            kind = "state" if isinstance(inst, GameState) else "setup"
            raise RenderInputError(violation_line(file, text, unplayable, what=f"invalid {kind}, no solution"))
        from ..puzzles import solution_of, solve_instance

        try:
            result = solve_instance(inst, timeout=timeout)
        except SensorGhostsError as e:
            raise RenderInputError(f"cannot solve: {e}") from None
        if result.status == "unsolvable":
            why = f" ({result.reason})" if result.reason else ""
            raise click.ClickException(f"this setup cannot be won{why}: there is no solution page to draw")
        if result.status != "solved":
            raise click.ClickException(
                f"no solution found within {timeout:g} s (the optimum is at least {result.bound} "
                "turns); a longer --timeout may find one"
            )
        if fmt == "pdf":
            pages.append(R.setup_page(inst, hide_down=hide, regenerable=regen))
        pages.append(R.solution_page(solution_of(result), regenerable=regen))
    else:
        pages.append(R.setup_page(inst, hide_down=hide, regenerable=regen))

    try:
        if fmt == "pdf":
            R.write_pdf(pages, target)
        elif fmt == "png":
            R.write_png(pages[-1], target, dpi=dpi)
        else:
            R.write_svg(pages[-1], target)
    except OSError as e:
        raise RenderInputError(f"{target}: cannot write: {e.strerror or e}") from None
    click.echo(f"wrote {target} ({fmt}, {len(pages) if fmt == 'pdf' else 1} page{'s' if len(pages) > 1 and fmt == 'pdf' else ''})")
