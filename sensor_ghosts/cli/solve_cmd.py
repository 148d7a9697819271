"""``sensor-ghosts solve`` and ``sensor-ghosts verify`` (RULES.md §15)."""

from __future__ import annotations

import json
import random
import time

import click

from .common import fail, load_with_text, refuse_unplayable

# The solver's modes and objectives (solver.api.MODES / OBJECTIVES; a test keeps
# them equal). Spelled out so that the CLI starts without importing the solver.
_MODES = click.Choice(["deal", "open", "expected"])
OBJECTIVES = ("turns", "cards", "turns-only")
DEFAULT_TIMEOUT = 60.0
"""Seconds a search may take unless --timeout says otherwise: nothing runs
unbounded by default (most setups solve in a few seconds; the answer is
'unknown' with the best bound when the limit is reached)."""


def _run(path: str, mode: str, seed: int | None, objective: str, max_nodes, timeout, as_json: bool):
    from ..rules.errors import SensorGhostsError
    from ..rules.setup import Setup
    from ..rules.state import GameState, random_deal
    from ..solver import solve
    from ..solver.search import tty_progress

    inst, text = load_with_text(path, as_json=as_json)
    deal = None
    if isinstance(inst, Setup) and mode == "deal" and inst.deal is None:
        if seed is None:
            fail(f"{path}: deal mode needs a deal (deck order and ranking): the file has none; "
                 "give --seed N to draw one, or use --mode open", as_json=as_json)
        deal = random_deal(inst, random.Random(seed))
    if isinstance(inst, GameState) and inst.is_over:
        fail(f"{path}: the game is over ({inst.outcome}): nothing to solve", as_json=as_json)
    refuse_unplayable(path, text, inst, deal=deal, as_json=as_json)
    t0 = time.perf_counter()
    try:
        # The library is silent by default; the command shows the search's
        # progress line when stderr is a terminal.
        return solve(inst, mode=mode, deal=deal, objective=objective, max_nodes=max_nodes,
                     timeout=timeout or None, progress=tty_progress())
    except SensorGhostsError as e:
        fail(f"{path}: {e}", as_json=as_json)
    except KeyboardInterrupt as e:
        # Ctrl-C: the best answer so far in one line, no traceback. A search
        # interrupted in its A* says its bound (``search.SearchInterrupted``).
        seconds = time.perf_counter() - t0
        bound = getattr(e, "bound", None)
        if as_json:
            click.echo(json.dumps({"status": "interrupted", "bound": bound, "seconds": round(seconds, 2)}))
        else:
            known = f"at least {bound} turns" if bound else "no bound yet"
            click.echo(f"interrupted after {seconds:.1f}s: unknown, {known} ({mode} mode)", err=True)
        raise SystemExit(130) from None


_common = [
    click.argument("file", type=str),
    click.option("--mode", type=_MODES, default="deal", show_default=True,
                 help="deal: deck order known; open: solver picks it; expected: random draws."),
    click.option("--seed", type=int, default=None, help="Draw a deal with this seed when the file has none."),
    click.option("--json", "as_json", is_flag=True, help="Print JSON."),
    click.option("--max-nodes", type=click.IntRange(min=1), default=None, help="Node budget."),
    click.option("--timeout", type=click.FloatRange(min=0), default=DEFAULT_TIMEOUT, show_default=True,
                 help="Time budget in seconds (0: no limit); past it the answer is 'unknown' with the "
                      "best bound."),
]


def _options(objective: str):
    def wrap(f):
        for opt in reversed(_common):
            f = opt(f)
        return click.option(
            "--objective", type=click.Choice(OBJECTIVES), default=objective, show_default=True,
            help="turns: fewest turns, then fewest cards; cards: fewest cards, then turns; "
                 "turns-only: fewest turns, cards not minimised (much faster).")(f)
    return wrap


@click.command("solve")
@_options("turns")
def solve(file, mode, seed, objective, as_json, max_nodes, timeout):
    """Solve FILE (a setup, possibly with its deal, or a game state) exactly and
    print the plan and its figures.

    \b
    Exit status: 0 a plan (or a win probability) was found; 1 the instance
    cannot be won; 2 bad input (unreadable file, deal mode without a deal);
    3 unknown within --max-nodes / --timeout (the best bound is printed);
    130 interrupted (Ctrl-C).
    """
    r = _run(file, mode, seed, objective, max_nodes, timeout, as_json)
    if as_json:
        click.echo(json.dumps(r.as_dict(), indent=2))
    else:
        click.echo(_summary(r))
        if r.plan is not None:
            click.echo(r.plan.to_text())
        if r.flight:
            click.echo("flight plan (the cards that pay for each turn are chosen as they are drawn):")
            click.echo("\n".join(r.flight))
    raise SystemExit(_exit(r))


@click.command("verify")
@_options("turns-only")
def verify(file, mode, seed, objective, as_json, max_nodes, timeout):
    """Answer whether FILE can be won: solvable / unsolvable / unknown, with the
    optimal number of turns (deal/open) or the win probability (expected).
    The fewest turns need no card proof, so the default objective is
    turns-only; give --objective turns for the fewest cards as well.

    \b
    Exit status: 0 solvable; 1 unsolvable; 2 bad input (unreadable file,
    deal mode without a deal and no --seed); 3 unknown within the limits;
    130 interrupted (Ctrl-C).
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
            return (f"{ans}: win probability {r.win_probability:.6f} ({r.method}; {r.nodes} nodes, "
                    f"{r.seconds:.2f}s)")
        return (f"unknown: win probability between {r.lower:.6f} (lower) and {r.upper:.6f} (upper) "
                f"({r.method}; {r.nodes} nodes, {r.seconds:.2f}s)")
    if r.status == "solved" and r.objective == "turns-only":
        return (f"{ans}: {r.turns} turns, fewest possible (the plan found plays {r.cards} cards; "
                f"not minimised) ({r.mode} mode, {r.nodes} nodes, {r.seconds:.2f}s)")
    if r.status == "solved":
        return f"{ans}: {r.turns} turns, {r.cards} cards ({r.mode} mode, {r.nodes} nodes, {r.seconds:.2f}s)"
    if r.status == "unsolvable":
        why = f": {r.reason}" if r.reason else ""
        return f"{ans}{why} ({r.mode} mode, {r.nodes} nodes, {r.seconds:.2f}s)"
    return (f"unknown: at least {r.bound} turns ({r.stopped}; {r.mode} mode, {r.nodes} nodes, "
            f"{r.seconds:.2f}s)")
