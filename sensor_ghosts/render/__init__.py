"""Printable puzzles: setup sheets and solution pages as SVG, PDF and PNG.

Every sheet is laid out once as a :class:`~.scene.Page` (shapes in mm) and
written by a back end: ``svg`` (native, no dependency), ``pdf`` (fpdf2) and
``png`` (Pillow, which fpdf2 brings). The renderer draws what it is given: a
setup or a state, and for a solution page a :class:`Solution` (the turns, the
states around them and the engine's log of each). Solving and replaying are
the caller's (``sensor_ghosts.puzzles``: ``solve_instance``, ``solution_of``),
so this package imports neither the solver nor the generator. Quick use::

    from sensor_ghosts.puzzles import solution_of
    from sensor_ghosts.render import setup_svg, solution_page, setup_page, write_pdf, booklet
    svg = setup_svg(setup, hide_down=True)            # a puzzle to play
    write_pdf([setup_page(setup), solution_page(solution_of(plan))], "p.pdf")
    booklet(setups, "booklet.pdf", solutions=[solution_of(p) for p in plans])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from ..fileio import write_atomic
from ..rules.setup import Setup
from ..rules.state import GameState
from .scene import Page
from .sheets import Solution, TurnEvents, setup_page, solution_page, turn_events
from .svg import page_svg

__all__ = [
    "Page",
    "Solution",
    "TurnEvents",
    "booklet",
    "page_png_bytes",
    "pdf_bytes",
    "setup_page",
    "setup_svg",
    "solution_page",
    "solution_svg",
    "turn_events",
    "write_pdf",
    "write_png",
    "write_svg",
]


# ----------------------------------------------------------------------------
# pages
# ----------------------------------------------------------------------------


def setup_svg(setup_or_state: Setup | GameState, hide_down: bool = False, **kw: Any) -> str:
    """The setup sheet as SVG. A :class:`GameState` also shows the ship, the pod
    and the game's status. ``hide_down=True`` gives a puzzle to play."""
    return page_svg(setup_page(setup_or_state, hide_down=hide_down, **kw))


def solution_svg(solution: Solution, **kw: Any) -> str:
    """The solution page as SVG (see :func:`solution_page`)."""
    return page_svg(solution_page(solution, **kw))


# ----------------------------------------------------------------------------
# files (written to a temporary file, then renamed: never a partial file)
# ----------------------------------------------------------------------------


def _atomic_write(path: str | Path, make: Callable[[], bytes]) -> None:
    data = make()  # everything that can fail on bad input happens before the file exists
    write_atomic(path, data)


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


def booklet(setups: Sequence[Setup], path: str | Path, solutions: Sequence[Solution | None] | None = None,
            *, hide_down: bool = True, regenerable: bool | Sequence[bool] = False) -> int:
    """A PDF of puzzles, one page each, then their solution pages (None for a
    puzzle without one). ``regenerable``: whether each setup's id is a
    generator's game ID (one for all, or one per setup; see :func:`setup_page`).
    Returns the number of pages."""
    regen = [regenerable] * len(setups) if isinstance(regenerable, bool) else list(regenerable)
    if len(regen) != len(setups):
        raise ValueError(f"{len(setups)} setups but {len(regen)} regenerable flags")
    pages = [
        setup_page(s, hide_down=hide_down, title=f"Puzzle {i}  -  {s.id or ''}".rstrip(" -"), regenerable=r)
        for i, (s, r) in enumerate(zip(setups, regen, strict=True), 1)
    ]
    if solutions is not None:
        if len(solutions) != len(setups):
            raise ValueError(f"{len(setups)} setups but {len(solutions)} solutions")
        for i, (s, sol, r) in enumerate(zip(setups, solutions, regen, strict=True), 1):
            if sol is not None:
                title = f"Solution {i}  -  {s.id or ''}".rstrip(" -")
                pages.append(solution_page(sol, title=title, regenerable=r))
    write_pdf(pages, path)
    return len(pages)
