"""``sensor-ghosts play``: a game in the terminal with hidden information as at
the table (RULES.md §14): the picture shows only what the players can see."""

from __future__ import annotations

import sys
import time

import click

from ..rules.errors import NotationError, SensorGhostsError
from .common import options_from, rule_options

HELP = """\
Type a turn, e.g.
  F1 fly U; rescan 2,4          one Fly card up, then flip columns 2 and 4 two rows ahead
  F1+F2 fly R; rescan 1,3       two Fly cards turn the ship
  bolster 1; S1 shields         spend a virus sample, then charge shields
  D1 flip 4,2 / D1 shift 3      Deep Scan: flip a card, or shift a row left
  F1+D1+S1 peek L               three cards as a wild (last card lands on top)
  W fly R pod U                 the Wild; 'pod D' moves the escape pod where you choose
Other commands: turns (list legal commands), hint, save FILE (what you see, for
'sensor-ghosts hint FILE', and the whole game beside it), help, quit."""


@click.command()
@click.argument("file", required=False, type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--seed", type=int, default=None, help="Seed for the setup and the deal (default: random).")
@rule_options
@click.option("--color/--no-color", default=None)
def play(
    file: str | None,
    seed: int | None,
    players: int,
    difficulty: str,
    escape_pod: bool,
    low_memory: bool,
    extra: tuple[str, ...],
    color: bool | None,
) -> None:
    """Play a game turn by turn: a generated setup (from --seed), or FILE."""
    import random

    from ..rules.notation import parse_turn
    from ..rules.setup import Setup
    from ..rules.state import initial_state
    from .common import load_with_text, refuse_unplayable
    from .tty import picture

    if seed is None:
        seed = random.SystemRandom().randrange(10**6)
    if file:
        inst, text = load_with_text(file)
        refuse_unplayable(file, text, inst)
        state = initial_state(inst, inst.deal, seed=seed) if isinstance(inst, Setup) else inst
    else:
        from ..generators import generate_setup

        options = options_from(players, difficulty, escape_pod, low_memory, extra)
        setup = generate_setup(seed=seed, options=options)
        state = initial_state(setup, setup.deal, seed=seed)
        click.echo(f"setup {setup.id}")
    use_color = sys.stdout.isatty() if color is None else color
    click.echo(HELP)
    from ..rules.engine import apply_turn, turn_starts
    from ..rules.errors import TimeLimitError

    while not state.is_over:
        click.echo()
        click.echo(picture(state, full=False, color=use_color))
        try:
            line = click.prompt(f"player {state.active + 1}", prompt_suffix="> ", default="", show_default=False)
        except (click.Abort, EOFError):
            click.echo("\nbye")
            return
        line = line.strip()
        if not line:
            continue
        if line in ("quit", "exit", "q"):
            return
        if line == "help":
            click.echo(HELP)
            continue
        if line == "turns":
            try:
                _list_commands(state, turn_starts(state, deadline=time.perf_counter() + LIST_SECONDS))
            except TimeLimitError:
                click.echo(f"too many turns to list within {LIST_SECONDS:g}s (several players, second "
                           "actions); type a command, or 'hint'")
            continue
        if line == "hint":
            _hint(state)
            continue
        if line == "save" or line.startswith("save "):
            _save(state, line[4:].strip())
            continue
        try:
            turn = parse_turn(line, state)
            state = apply_turn(state, turn)
        except NotationError as e:
            where = f" (at {e.token!r}, column {e.column})" if e.token is not None else ""
            click.echo(f"not understood: {e.reason}{where}")
        except SensorGhostsError as e:
            click.echo(f"not allowed: {getattr(e, 'reason', e)}")
    click.echo()
    click.echo(picture(state, full=True, color=use_color))
    sys.exit(0 if state.outcome.status.value == "won" else 1)


LIST_SECONDS = 5.0
"""How long ``turns`` may take: a four-player state with second actions has
tens of thousands of commands."""


def _list_commands(state, starts) -> None:
    """The distinct commands; the re-scan is chosen after each (``turn_starts``)."""
    click.echo(f"{len(starts)} command(s), each followed by a re-scan choice:")
    for turn in starts[:60]:
        click.echo(f"  {turn}")
    if len(starts) > 60:
        click.echo(f"  ... and {len(starts) - 60} more")


def _save(state, name: str) -> None:
    """``save FILE``: the active player's observation in FILE (what ``hint``
    reads) and the full state beside it (``play``, ``solve`` and ``show`` read
    it), each written all or nothing."""
    from pathlib import Path

    from ..fileio import write_atomic
    from ..rules.notation import format_state
    from ..rules.observation import observe
    from ..rules.observation_notation import format_observation

    if not name:
        click.echo("save needs a file name: save table.txt")
        return
    path = Path(name).expanduser()
    full = path.with_name(f"{path.stem}.state{path.suffix}")
    try:
        write_atomic(path, format_observation(observe(state, state.active)) + "\n")
        write_atomic(full, format_state(state) + "\n")
    except OSError as e:
        click.echo(f"not saved: {path}: {e.strerror or e}")
        return
    click.echo(f"saved what player {state.active + 1} sees to {path} (sensor-ghosts hint {path}) "
               f"and the whole game to {full} (sensor-ghosts play {full})")


def _hint(state) -> None:
    try:
        from ..advisor import hint
        from ..rules.observation import observe
    except ImportError:
        click.echo("hints are not available in this build")
        return
    h = hint(observe(state, state.active), budget=2.0, seed=state.turn)
    click.echo(str(h))
