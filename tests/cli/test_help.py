"""``--help`` works for the program and for every command and subcommand.

The commands are found by walking the Click app, not listed here, so a new
command is covered as soon as it is added (and one whose help fails, e.g. a
bad option default or a docstring Click cannot format, is caught)."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from sensor_ghosts.cli.main import main

PROG = "sensor-ghosts"


def command_paths(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command path under ``group`` (its own included, as ``prefix``),
    depth first, by the names they are invoked with."""
    paths = [prefix]
    ctx = click.Context(group, info_name=prefix[-1] if prefix else PROG)
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        assert cmd is not None, name
        if isinstance(cmd, click.Group):
            paths += command_paths(cmd, (*prefix, name))
        else:
            paths.append((*prefix, name))
    return paths


PATHS = command_paths(main)


def test_the_walk_finds_the_commands() -> None:
    # A guard on the walk itself: an empty or top-level-only walk would make
    # the test below pass while checking nothing.
    found = {" ".join(p) for p in PATHS}
    assert {"", "solve", "verify", "generate", "render", "play"} <= found


@pytest.mark.parametrize("path", PATHS, ids=lambda p: " ".join(p) or "(top)")
def test_help(path: tuple[str, ...]) -> None:
    result = CliRunner().invoke(main, [*path, "--help"], prog_name=PROG)
    assert result.exit_code == 0, result.output
    usage = next(line for line in result.output.splitlines() if line.startswith("Usage:"))
    # The usage line names the program and the command as invoked.
    assert usage.startswith(f"Usage: {' '.join((PROG, *path))} "), usage
