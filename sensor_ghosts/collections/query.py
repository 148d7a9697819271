"""Reading a collection: rows by grade and turns, the stats, a plan back as turns."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..rules.errors import InvalidArgumentError
from .grade_rule import GRADES
from .schema import CollectionError, open_collection


def parse_turns(text: str) -> tuple[int, int]:
    """'12' or '12-13' as an inclusive range."""
    lo, _, hi = text.partition("-")
    try:
        a, b = int(lo), int(hi) if hi else int(lo)
    except ValueError:
        raise InvalidArgumentError(f"turns {text!r}: use N or N-M (e.g. 12-13)") from None
    if a < 0 or b < a:
        raise InvalidArgumentError(f"turns {text!r}: the range is empty")
    return a, b


def _where(grade: str | None, turns: tuple[int, int] | None) -> tuple[str, list[Any]]:
    parts: list[str] = []
    args: list[Any] = []
    if grade is not None:
        if grade not in GRADES:
            raise InvalidArgumentError(f"grade {grade!r}: use one of {', '.join(GRADES)}")
        parts.append("grade = ?")
        args.append(grade)
    if turns is not None:
        parts.append("turns BETWEEN ? AND ?")
        args += list(turns)
    return (" WHERE " + " AND ".join(parts)) if parts else "", args


def rows(path: str | Path, *, grade: str | None = None, turns: tuple[int, int] | None = None,
         limit: int | None = None) -> Iterator[dict[str, Any]]:
    """The puzzles that match, easy to hard (then fewer turns, then game ID),
    each a dict of the row with ``features`` and ``options`` decoded."""
    where, args = _where(grade, turns)
    con = open_collection(path)
    con.row_factory = sqlite3.Row
    try:
        sql = f"SELECT * FROM puzzles{where} ORDER BY grade_rank, score, turns, seed, game_id"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        for r in con.execute(sql, args):
            d = dict(r)
            d["features"] = json.loads(d["features"])
            d["options"] = json.loads(d["options"])
            yield d
    finally:
        con.close()


def stats(path: str | Path) -> dict[str, Any]:
    con = open_collection(path)
    try:
        out: dict[str, Any] = {
            "puzzles": con.execute("SELECT COUNT(*) FROM puzzles").fetchone()[0],
            "skipped": con.execute("SELECT COUNT(*) FROM skipped").fetchone()[0],
            "grades": {g: 0 for g in GRADES},
            "turns": {},
            "proof": {},
            "versions": {},
        }
        for g, n in con.execute("SELECT grade, COUNT(*) FROM puzzles GROUP BY grade"):
            out["grades"][g] = n
        for t, n in con.execute("SELECT turns, COUNT(*) FROM puzzles GROUP BY turns ORDER BY turns"):
            out["turns"][str(t)] = n
        for p, n in con.execute("SELECT proof, COUNT(*) FROM puzzles GROUP BY proof"):
            out["proof"][p] = n
        for v, n in con.execute("SELECT version, COUNT(*) FROM puzzles GROUP BY version"):
            out["versions"][v] = n
        out["skip_reasons"] = dict(con.execute(
            "SELECT reason, COUNT(*) FROM skipped GROUP BY reason ORDER BY COUNT(*) DESC").fetchall())
        return out
    finally:
        con.close()


def plan_turns(row: dict[str, Any]) -> tuple[Any, list[Any]]:
    """The stored setup and its plan's turns, read back through the notation
    (each turn parsed in the state before it, so an illegal one raises)."""
    from ..rules.engine import apply_turn
    from ..rules.notation import load, parse_turn
    from ..rules.setup import Setup
    from ..rules.state import initial_state

    setup = load(row["setup"])
    if not isinstance(setup, Setup):
        raise CollectionError(f"{row['game_id']}: the stored setup is a game state, not a setup")
    state = initial_state(setup, setup.deal)
    turns = []
    for t in json.loads(row["plan_json"])["turns"]:
        turn = parse_turn(t["text"], state)
        turns.append(turn)
        state = apply_turn(state, turn)
    return setup, turns
