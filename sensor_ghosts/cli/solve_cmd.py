"""``sensor-ghosts solve`` and ``sensor-ghosts verify`` (RULES.md §15)."""

from __future__ import annotations

import json
import random

import click

from .common import fail, load_instance

_MODES = click.Choice(["deal", "open", "expected"])


def _run(path: str, mode: str, seed: int | None, objective: str, max_nodes, timeout, as_json: bool):
    from ..rules.errors import SensorGhostsError
    from ..rules.setup import Setup
    from ..rules.state import random_deal
    from ..solver import solve

    inst = load_instance(path, as_json=as_json)
    deal = None
    if isinstance(inst, Setup) and mode == "deal" and inst.deal is None:
        if seed is None:
            fail(f"{path}: deal mode needs a deal (deck order and ranking): the file has none; "
                 "give --seed N to draw one, or use --mode open", as_json=as_json)
        deal = random_deal(inst, random.Random(seed))
    try:
        return solve(inst, mode=mode, deal=deal, objective=objective, max_nodes=max_nodes, timeout=timeout)
    except SensorGhostsError as e:
        fail(f"{path}: {e}", as_json=as_json)


_common = [
    click.argument("file", type=str),
    click.option("--mode", type=_MODES, default="deal", show_default=True,
                 help="deal: deck order known; open: solver picks it; expected: random draws."),
    click.option("--seed", type=int, default=None, help="Draw a deal with this seed when the file has none."),
    click.option("--objective", type=click.Choice(["turns", "cards"]), default="turns", show_default=True),
    click.option("--json", "as_json", is_flag=True, help="Print JSON."),
    click.option("--max-nodes", type=click.IntRange(min=1), default=None, help="Node budget."),
    click.option("--timeout", type=click.FloatRange(min=0), default=None, help="Time budget in seconds."),
]


def _options(f):
    for opt in reversed(_common):
        f = opt(f)
    return f


@click.command("solve")
@_options
def solve(file, mode, seed, objective, as_json, max_nodes, timeout):
    """Solve FILE (a setup, possibly with its deal, or a game state) exactly and
    print the plan and its figures.

    \b
    Exit status: 0 a plan (or a win probability) was found; 1 the instance
    cannot be won; 2 bad input (unreadable file, deal mode without a deal);
    3 unknown within --max-nodes / --timeout (the best bound is printed).
    """
    r = _run(file, mode, seed, objective, max_nodes, timeout, as_json)
    if as_json:
        click.echo(json.dumps(r.as_dict(), indent=2))
    else:
        click.echo(_summary(r))
        if r.plan is not None:
            click.echo(r.plan.to_text())
    raise SystemExit(_exit(r))


@click.command("verify")
@_options
def verify(file, mode, seed, objective, as_json, max_nodes, timeout):
    """Answer whether FILE can be won: solvable / unsolvable / unknown, with the
    optimal number of turns (deal/open) or the win probability (expected).

    \b
    Exit status: 0 solvable; 1 unsolvable; 2 bad input (unreadable file,
    deal mode without a deal and no --seed); 3 unknown within the limits.
    """
    r = _run(file, mode, seed, objective, max_nodes, timeout, as_json)
    if as_json:
        d = r.as_dict()
        d.pop("plan", None)
        d["answer"] = _answer(r)
        click.echo(json.dumps(d, indent=2))
    else:
        click.echo(_summary(r))
    raise SystemExit(_exit(r))


def _answer(r) -> str:
    return {"solved": "solvable", "unsolvable": "unsolvable"}.get(r.status, "unknown")


def _exit(r) -> int:
    return {"solved": 0, "unsolvable": 1}.get(r.status, 3)


def _summary(r) -> str:
    ans = _answer(r)
    if r.mode == "expected":
        if r.win_probability is not None:
            return f"{ans}: win probability {r.win_probability:.6f} ({r.nodes} nodes, {r.seconds:.2f}s)"
        return (f"unknown: win probability between {r.lower:.6f} (lower) and {r.upper:.6f} (upper) "
                f"({r.nodes} nodes, {r.seconds:.2f}s)")
    if r.status == "solved":
        return f"{ans}: {r.turns} turns, {r.cards} cards ({r.mode} mode, {r.nodes} nodes, {r.seconds:.2f}s)"
    if r.status == "unsolvable":
        return f"{ans} ({r.mode} mode, {r.nodes} nodes, {r.seconds:.2f}s)"
    return (f"unknown: at least {r.bound} turns ({r.stopped}; {r.mode} mode, {r.nodes} nodes, "
            f"{r.seconds:.2f}s)")
