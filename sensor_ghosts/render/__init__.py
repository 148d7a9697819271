"""Printable puzzles: setup sheets and solution pages as SVG, PDF and PNG.

Every sheet is laid out once as a :class:`~.scene.Page` (shapes in mm) and
written by a back end: ``svg`` (native, no dependency), ``pdf`` (fpdf2) and
``png`` (Pillow, which fpdf2 brings). Quick use::

    from sensor_ghosts.render import setup_svg, render_solution, write_pdf, booklet
    svg = setup_svg(setup, hide_down=True)            # a puzzle to play
    write_pdf([setup_page(setup), render_solution(setup, plan.turns)], "p.pdf")
    booklet(setups, "booklet.pdf", solutions=[p.turns for p in plans])
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from ..fileio import new_file_mode
from ..rules.setup import Deal, Setup
from ..rules.state import GameState
from ..rules.turns import Turn
from .scene import Page
from .sheets import TurnEvents, setup_page, solution_page, turn_events
from .svg import page_svg

__all__ = [
    "Page",
    "SolverUnavailable",
    "TurnEvents",
    "booklet",
    "page_png_bytes",
    "pdf_bytes",
    "render_solution",
    "render_solution_states",
    "replay",
    "setup_page",
    "setup_svg",
    "solution_page",
    "solution_svg",
    "solve_setup",
    "turn_events",
    "write_booklet",
    "write_pdf",
    "write_png",
    "write_svg",
]


class SolverUnavailable(RuntimeError):
    """``sensor_ghosts.solver`` has no ``solve`` function (yet)."""


# ----------------------------------------------------------------------------
# pages
# ----------------------------------------------------------------------------


def setup_svg(setup_or_state: Setup | GameState, hide_down: bool = False, **kw: Any) -> str:
    """The setup sheet as SVG. A :class:`GameState` also shows the ship, the pod
    and the game's status. ``hide_down=True`` gives a puzzle to play."""
    return page_svg(setup_page(setup_or_state, hide_down=hide_down, **kw))


def replay(setup: Setup, turns: Sequence[Turn], *, deal: Deal | None = None,
           seed: int | None = None) -> list[GameState]:
    """The states a plan passes through: ``initial_state(setup)`` then each turn
    applied by the rules engine (raises ``IllegalTurnError`` on a bad plan)."""
    from ..rules.state import initial_state

    return _replay_from(initial_state(setup, deal, seed=seed), turns)


def _plan_parts(plan: Any, deal: Deal | None) -> tuple[list[Turn], Deal | None, GameState | None]:
    """Turns, deal and start state of a list of turns, a ``Plan`` (``.turns``,
    ``.deal``, ``.start``) or a solver result holding one in ``.plan``."""
    if hasattr(plan, "plan"):
        plan = plan.plan
        if plan is None:
            raise ValueError("the solver result holds no plan")
    if hasattr(plan, "turns"):
        start = getattr(plan, "start", None)
        return list(plan.turns), deal or getattr(plan, "deal", None), start if isinstance(start, GameState) else None
    return list(plan), deal, None


def render_solution_states(states: Sequence[GameState], turns: Sequence[Turn], **kw: Any) -> Page:
    """The solution page from the states around each turn (len(turns) + 1)."""
    return solution_page(list(states), list(turns), **kw)


def render_solution(setup: Setup, turns: Any, *, deal: Deal | None = None,
                    seed: int | None = None, **kw: Any) -> Page:
    """The solution page of a plan, replayed through the rules engine from
    ``initial_state(setup)``. ``turns`` is a list of ``Turn``, a ``Plan``
    (``.turns``, ``.deal``, ``.start``) or a solver result with ``.plan``."""
    turn_list, deal, start = _plan_parts(turns, deal)
    objective = getattr(getattr(turns, "plan", turns), "objective", None)
    if objective is not None and "note" not in kw:
        from ..solver.plan import OBJECTIVE_NOTES

        kw["note"] = OBJECTIVE_NOTES.get(objective, "")
    if start is not None:  # a plan knows its own start (a mid-game state, or the dealt setup)
        states = _replay_from(start, turn_list)
    else:
        states = replay(setup, turn_list, deal=deal, seed=seed)
    return render_solution_states(states, turn_list, **kw)


def _replay_from(state: GameState, turns: Sequence[Turn]) -> list[GameState]:
    from ..rules.engine import apply_turn

    states = [state]
    for t in turns:
        state = apply_turn(state, t)
        states.append(state)
    return states


def solution_svg(setup: Setup, turns: Any, **kw: Any) -> str:
    """The solution page as SVG (see :func:`render_solution`)."""
    return page_svg(render_solution(setup, turns, **kw))


def solve_setup(instance: Setup | GameState, timeout: float | None = 30.0) -> Any:
    """The solver's result (``SolveResult``: ``.status``, ``.plan``) for a setup
    (deal mode when it fixes a deal, else open mode) or a state (deal mode: its
    deck is known), within ``timeout`` seconds; :class:`SolverUnavailable` when
    there is no solver."""
    try:
        from ..solver import solve_staged
    except ImportError:
        raise SolverUnavailable("solver not available") from None
    open_mode = isinstance(instance, Setup) and instance.deal is None
    return solve_staged(instance, mode="open" if open_mode else "deal", timeout=timeout)


# ----------------------------------------------------------------------------
# files (written to a temporary file, then renamed: never a partial file)
# ----------------------------------------------------------------------------


def _atomic_write(path: str | Path, make: Callable[[], bytes]) -> None:
    path = Path(path)
    data = make()  # everything that can fail on bad input happens before the file exists
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, new_file_mode())  # mkstemp makes 0600; give a normal file's mode
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _as_page(x: Page | Setup | GameState) -> Page:
    return x if isinstance(x, Page) else setup_page(x)


def write_svg(page: Page | Setup | GameState, path: str | Path) -> None:
    _atomic_write(path, lambda: page_svg(_as_page(page)).encode("utf-8"))


def pdf_bytes(pages: Iterable[Page | Setup | GameState]) -> bytes:
    from .pdf import pdf_bytes as _pdf

    return _pdf(_as_page(p) for p in pages)


def write_pdf(pages: Iterable[Page | Setup | GameState], path: str | Path) -> None:
    """One PDF page per sheet."""
    _atomic_write(path, lambda: pdf_bytes(pages))


def page_png_bytes(page: Page | Setup | GameState, dpi: float = 150) -> bytes:
    import io

    from .png import page_image

    buf = io.BytesIO()
    page_image(_as_page(page), dpi).save(buf, format="PNG")
    return buf.getvalue()


def write_png(page: Page | Setup | GameState, path: str | Path, dpi: float = 150) -> None:
    _atomic_write(path, lambda: page_png_bytes(page, dpi))


def booklet(setups: Sequence[Setup], path: str | Path, solutions: Sequence[Any] | None = None,
            *, hide_down: bool = True) -> int:
    """A PDF of puzzles, one page each, then their solutions (each a list of
    turns or a plan with ``.turns``; None for a puzzle without one). Returns the
    number of pages."""
    pages = [
        setup_page(s, hide_down=hide_down, title=f"Puzzle {i}  -  {s.id or ''}".rstrip(" -"))
        for i, s in enumerate(setups, 1)
    ]
    if solutions is not None:
        if len(solutions) != len(setups):
            raise ValueError(f"{len(setups)} setups but {len(solutions)} solutions")
        for i, (s, sol) in enumerate(zip(setups, solutions, strict=True), 1):
            if sol is not None:
                pages.append(render_solution(s, sol, title=f"Solution {i}  -  {s.id or ''}".rstrip(" -")))
    write_pdf(pages, path)
    return len(pages)


def write_booklet(setups: Sequence[Setup], path: str | Path, solutions: bool = False) -> int:
    """For ``generate --pdf``: a booklet, solved by ``sensor_ghosts.solver.solve``
    when ``solutions`` (raises :class:`SolverUnavailable` if there is none)."""
    sols = [solve_setup(s).plan for s in setups] if solutions else None
    return booklet(setups, path, sols)
