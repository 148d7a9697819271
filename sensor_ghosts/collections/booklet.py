"""A printable booklet from a collection, easy to hard (the renderer's ``booklet``)."""

from __future__ import annotations

from pathlib import Path

from .query import plan_turns, rows


def write_booklet(db: str | Path, pdf: str | Path, *, grade: str | None = None,
                  turns: tuple[int, int] | None = None, count: int = 50,
                  solutions: bool = False) -> int:
    """Up to ``count`` puzzles that match, sorted easy to hard, as a PDF
    (written whole or not at all); returns how many puzzles it holds (0:
    none match, and no file is written)."""
    from ..render import booklet

    chosen = list(rows(db, grade=grade, turns=turns, limit=count))
    if not chosen:
        return 0
    parts = [plan_turns(r) for r in chosen]
    booklet([s for s, _ in parts], pdf, [t for _, t in parts] if solutions else None)
    return len(chosen)
