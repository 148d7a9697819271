"""The ``sensor-ghosts`` command. Thin: parse, call the library, print.

Exit statuses: 0 success; 1 a well-formed request whose answer is negative
(e.g. an illegal setup); 2 bad usage, unreadable input, or input no game
reaches (refused before use, "file:line: [rule] ..."); ``verify`` also uses 3
for 'unknown within the limits'.
"""

from __future__ import annotations

import json
import signal
import sys
import threading

import click

from .. import __version__
from .common import (
    fail,
    load_card_sets,
    load_instance,
    load_with_text,
    refuse_unplayable,
    violation_line,
    warn_if_invalid,
)

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class _Terminated(BaseException):
    """SIGTERM, raised where the program is so that every ``finally`` runs:
    a collection build closes its Dask cluster (its worker processes would
    otherwise outlive it) and a half-written output file is removed."""


def _raise_terminated(signum: int, frame: object) -> None:
    raise _Terminated


class _Main(click.Group):
    def invoke(self, ctx: click.Context) -> object:
        main_thread = threading.current_thread() is threading.main_thread()
        before = signal.signal(signal.SIGTERM, _raise_terminated) if main_thread else None
        # Ctrl-C before a command's own handler is in place (while it loads
        # its modules or kernels) exits 130 too, not with Click's "Aborted!"
        # and status 1.
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            click.echo("sensor-ghosts: interrupted", err=True)
            ctx.exit(130)
        except _Terminated:
            click.echo("sensor-ghosts: terminated", err=True)
            ctx.exit(143)
        finally:
            if main_thread:  # as it was: the caller may be a test run, not this program
                signal.signal(signal.SIGTERM, before)


@click.group(cls=_Main, context_settings=CONTEXT)
@click.version_option(__version__, "-V", "--version", prog_name="sensor-ghosts")
def main() -> None:
    """Sensor Ghosts: generate setups, validate them, solve them, get hints, play.

    \b
    Quick start:
      sensor-ghosts generate --seed 7 --out puzzle.txt
      sensor-ghosts show puzzle.txt
      sensor-ghosts solve puzzle.txt --mode open
      sensor-ghosts play --seed 7
    """


cards_option = click.option(
    "--cards", "cards_file", type=click.Path(dir_okay=False), help="Sector card set file (default: built in)."
)
commands_option = click.option(
    "--commands", "commands_file", type=click.Path(dir_okay=False), help="Command card file (default: built in)."
)


@main.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@cards_option
@commands_option
def validate(file: str, as_json: bool, cards_file: str | None, commands_file: str | None) -> None:
    """Check a setup or state FILE (text or JSON) against the setup rules.

    Lists every violated rule, not only the first. Exit 0 valid, 1 invalid,
    2 unreadable.
    """
    from ..rules.setup import Setup
    from ..rules.validation import validate as validate_setup
    from ..rules.validation import validate_state

    sectors, cmds = load_card_sets(cards_file, commands_file, as_json=as_json)
    inst = load_instance(file, as_json=as_json, sector_cards=sectors, command_cards=cmds)
    kind = "setup" if isinstance(inst, Setup) else "state"
    violations = validate_setup(inst) if kind == "setup" else validate_state(inst)
    if as_json:
        click.echo(
            json.dumps(
                {
                    "file": file,
                    "kind": kind,
                    "valid": not violations,
                    "violations": [
                        {"rule": v.rule, "message": v.message, "where": list(v.where) if v.where else None}
                        for v in violations
                    ],
                }
            )
        )
    elif not violations:
        click.echo(f"{file}: valid {kind}")
    else:
        click.echo(f"{file}: invalid {kind}, {len(violations)} problem(s):")
        for v in violations:
            click.echo(f"  [{v.rule}] {v.message}")
    sys.exit(0 if not violations else 1)


@main.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--hide", is_flag=True, help="Show only what a player can see (RULES.md §14).")
@click.option("--color/--no-color", default=None, help="Colours (default: when the terminal has them).")
@cards_option
@commands_option
def show(file: str, hide: bool, color: bool | None, cards_file: str | None, commands_file: str | None) -> None:
    """Draw a setup or state FILE in the terminal.

    A file that breaks a rule is drawn as given, with a warning on standard
    error naming the first broken rule ('validate' lists them all); the
    player's view (--hide) needs a table a game can reach."""
    from ..rules.setup import Setup
    from ..rules.validation import playable_violations
    from .tty import picture, setup_picture

    sectors, cmds = load_card_sets(cards_file, commands_file)
    inst, text = load_with_text(file, sector_cards=sectors, command_cards=cmds)
    kind = "setup" if isinstance(inst, Setup) else "state"
    if hide:
        unplayable = playable_violations(inst)
        if unplayable:
            fail(violation_line(file, text, unplayable, what=f"invalid {kind}, no player's view"))
    warn_if_invalid(file, text, inst)
    use_color = sys.stdout.isatty() if color is None else color
    if isinstance(inst, Setup):
        if hide:
            from ..rules.state import initial_state

            click.echo(picture(initial_state(inst, inst.deal, seed=0), full=False, color=use_color))
        else:
            click.echo(setup_picture(inst, color=use_color))
    else:
        click.echo(picture(inst, full=not hide, color=use_color))


@main.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.argument("depth", type=click.IntRange(0, 6))
@click.option("--seed", type=int, default=0, show_default=True, help="Deal for a setup without one.")
@click.option("--divide", is_flag=True, help="Also print the count below each first turn.")
@click.option("--timeout", type=click.FloatRange(min=0), default=60.0, show_default=True,
              help="Seconds the count may take (0: no limit); past it, exit 3.")
def perft(file: str, depth: int, seed: int, divide: bool, timeout: float) -> None:
    """Count the legal turn sequences of length DEPTH from FILE (a state, or a
    setup at its start). See README: Perft.

    \b
    Exit status: 0 counted; 2 bad input (a file no game reaches);
    3 not finished within --timeout; 130 interrupted (Ctrl-C)."""
    import time

    from ..rules.engine import apply_turn, legal_turns
    from ..rules.engine import perft as count
    from ..rules.errors import TimeLimitError
    from ..rules.setup import Setup
    from ..rules.state import initial_state

    inst, text = load_with_text(file)
    refuse_unplayable(file, text, inst)
    state = initial_state(inst, inst.deal, seed=seed) if isinstance(inst, Setup) else inst
    t0 = time.perf_counter()

    def left() -> float | None:
        return None if not timeout else max(0.0, timeout - (time.perf_counter() - t0))

    try:
        if divide and depth >= 1:
            total = 0
            for t in legal_turns(state, deadline=None if not timeout else t0 + timeout):
                n = count(apply_turn(state, t), depth - 1, timeout=left())
                total += n
                click.echo(f"{t}: {n}")
            click.echo(f"total {total}")
        else:
            click.echo(count(state, depth, timeout=left()))
    except TimeLimitError:
        click.echo(f"{file}: perft {depth} did not finish within {timeout:g} s (raise --timeout)", err=True)
        sys.exit(3)
    except KeyboardInterrupt:
        click.echo(f"interrupted after {time.perf_counter() - t0:.1f}s", err=True)
        sys.exit(130)


# The other commands live beside this module, one file each.
from .collection_cmd import collection  # noqa: E402
from .generate_cmd import generate  # noqa: E402
from .hint_cmd import hint_cmd  # noqa: E402
from .play_cmd import play  # noqa: E402
from .render_cmd import render  # noqa: E402
from .serve_cmd import serve  # noqa: E402
from .solve_cmd import solve, verify  # noqa: E402

for _command in (generate, play, render, solve, verify, hint_cmd, serve, collection):
    main.add_command(_command)
