"""Shared CLI plumbing: reading files, one-line errors, JSON error objects.

Exit statuses (Click's conventions): 0 success; 1 a well-formed request whose
answer is negative (an illegal setup, an unsolvable instance); 2 bad usage,
unreadable input, or input no game reaches (``refuse_unplayable``: one line,
"file:line: invalid state: [rule] ..."); 130 interrupted.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

from ..rules.errors import SensorGhostsError
from ..rules.options import RuleOptions

if TYPE_CHECKING:
    from ..rules.setup import Deal, Setup
    from ..rules.state import GameState
    from ..rules.validation import Violation


class InputError(click.ClickException):
    """Bad input: exit status 2 with a one-line message (JSON under --json)."""

    exit_code = 2

    def __init__(self, message: str, *, as_json: bool = False, kind: str = "input"):
        super().__init__(message.splitlines()[0] if message else "bad input")
        self.as_json = as_json
        self.kind = kind

    def show(self, file=None) -> None:  # noqa: D102 - Click API
        if self.as_json:
            click.echo(json.dumps({"error": {"kind": self.kind, "message": self.message}}))
        else:
            click.echo(f"Error: {self.message}", err=True)


def fail(message: str, *, as_json: bool = False, kind: str = "input") -> NoReturn:
    raise InputError(message, as_json=as_json, kind=kind)


def load_instance(path: str, *, as_json: bool = False, sector_cards=None, command_cards=None):
    """Read a setup or state file (text or JSON) or '-' for standard input."""
    return load_with_text(path, as_json=as_json, sector_cards=sector_cards, command_cards=command_cards)[0]


def load_with_text(
    path: str, *, as_json: bool = False, sector_cards=None, command_cards=None
) -> tuple[Setup | GameState, str]:
    """``load_instance`` and the text it was read from (for messages that name a line)."""
    from ..rules import notation

    try:
        if path == "-":
            data = sys.stdin.buffer.read()
            source = "<stdin>"
        else:
            data = Path(path).read_bytes()
            source = path
    except OSError as e:
        fail(f"{path}: cannot read: {e.strerror or e}", as_json=as_json)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        fail(f"{source}: not a text file (byte {e.start} is not UTF-8)", as_json=as_json)
    try:
        inst = notation.load_text(text, source=source, sector_cards=sector_cards, command_cards=command_cards)
    except SensorGhostsError as e:
        fail(str(e), as_json=as_json, kind=type(e).__name__)
    return inst, text


def violation_line(path: str, text: str, violations: list[Violation], *, what: str) -> str:
    """One line for a list of violations: the first, where it is in the file
    ("file:line: [D22] ..."), and how many more there are."""
    from ..rules.notation import locate

    first = violations[0]
    line = None
    if first.key is not None:
        line = locate(text, key=first.key)
    if line is None and first.where is not None:
        line = locate(text, row=first.where[0])
    where = f"{path}:{line}" if line is not None else path
    more = ""
    if len(violations) > 1:
        more = f" (+{len(violations) - 1} more; 'sensor-ghosts validate {path}' lists them)"
    return f"{where}: {what}: {first}{more}"


def refuse_unplayable(
    path: str, text: str, inst: Setup | GameState, *, deal: Deal | None = None, as_json: bool = False
) -> None:
    """Exit 2 with one line when ``inst`` is no game the engine can play
    (``validation.playable_violations``); a setup that breaks only the layout
    rules (``validation.LAYOUT_RULES``) is answered, with a warning."""
    from ..rules.setup import Setup
    from ..rules.validation import layout_violations, playable_violations

    bad = playable_violations(inst, deal)
    kind = "setup" if isinstance(inst, Setup) else "state"
    if bad:
        fail(violation_line(path, text, bad, what=f"invalid {kind}"), as_json=as_json, kind="InvalidInput")
    if isinstance(inst, Setup):
        layout = layout_violations(inst)
        if layout:
            click.echo("warning: " + violation_line(path, text, layout, what="not a legal setup, answered as given"),
                       err=True)


def warn_if_invalid(path: str, text: str, inst: Setup | GameState) -> list[Violation]:
    """For commands that draw (show, render): one line on standard error when
    ``inst`` breaks a rule; returns the playable violations (what drawing the
    player's view or solving cannot get past)."""
    from ..rules.setup import Setup
    from ..rules.validation import playable_violations, validate, validate_state

    kind = "setup" if isinstance(inst, Setup) else "state"
    every = validate(inst) if isinstance(inst, Setup) else validate_state(inst)
    if every:
        click.echo("warning: " + violation_line(path, text, every, what=f"invalid {kind}, drawn as given"),
                   err=True)
    return playable_violations(inst)


def load_card_sets(cards: str | None, commands: str | None, *, as_json: bool = False):
    from ..rules.cards import CommandCardSet, SectorCardSet

    try:
        sectors = SectorCardSet.load(cards) if cards else None
        cmds = CommandCardSet.load(commands) if commands else None
    except SensorGhostsError as e:
        fail(str(e), as_json=as_json, kind=type(e).__name__)
    return sectors, cmds


def rule_options(command):
    """The rule-option switches shared by ``generate`` and ``play``: players,
    difficulty, the two variants and the other §12 adjustments (``--option``)."""
    from ..rules.options import FLAG_NAMES, Difficulty

    others = [f for f in FLAG_NAMES if f not in ("escape-pod", "low-memory")]
    for option in reversed(
        [
            click.option("--players", type=click.IntRange(1, 4), default=1, show_default=True),
            click.option(
                "--difficulty",
                type=click.Choice([d.value for d in Difficulty]),
                default=Difficulty.STANDARD.value,
                show_default=True,
            ),
            click.option("--escape-pod", is_flag=True, help="Escape pod variant (§10)."),
            click.option("--low-memory", is_flag=True, help="Low memory mode (§11)."),
            click.option(
                "--option",
                "extra",
                multiple=True,
                type=click.Choice(others),
                help="Another §12 rule option; repeatable.",
            ),
        ]
    ):
        command = option(command)
    return command


def options_from(players: int, difficulty: str, escape_pod: bool, low_memory: bool, extra) -> RuleOptions:
    """The RuleOptions the switches of :func:`rule_options` describe."""
    from ..rules.options import Difficulty, RuleOptions

    flags = [f for f, on in (("escape-pod", escape_pod), ("low-memory", low_memory)) if on]
    return RuleOptions(players=players, difficulty=Difficulty(difficulty)).with_flags(flags + list(extra))
