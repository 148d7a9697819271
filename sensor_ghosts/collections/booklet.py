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
    from ..puzzles import regenerable, solution_line
    from ..render import booklet
    from ..rules.state import initial_state
    from ..solver.plan import OBJECTIVE_NOTES

    chosen = list(rows(db, grade=grade, turns=turns, limit=count))
    if not chosen:
        return 0
    parts = [plan_turns(r) for r in chosen]
    sols = None
    if solutions:
        # The stored proof says what each plan is optimal for ('optimal': turns, then cards).
        notes = [OBJECTIVE_NOTES.get("turns" if r["proof"] == "optimal" else "turns-only", "") for r in chosen]
        sols = [solution_line(initial_state(s, s.deal), t, note=n) for (s, t), n in zip(parts, notes, strict=True)]
    booklet([s for s, _ in parts], pdf, sols, regenerable=[regenerable(s) for s, _ in parts])
    return len(chosen)
