"""The collection file: an SQLite database (the standard library's ``sqlite3``).

A ``meta`` table says what the file is (``kind`` = ``sensor-ghosts collection``)
and which schema it follows; a file without it, or with another kind or a
newer schema, is refused (``CollectionError``) before anything is written to
it. ``meta`` also names the grade rule (``grade_rule.GRADE_RULE``) its grades
follow: a file graded by another rule is graded again from its stored
features when it is opened, so that one collection never mixes two rules.
``puzzles`` holds one row per puzzle keyed by its game ID (which names the
options and the seed, so the same puzzle can never be stored twice);
``skipped`` one row per seed that gave no puzzle, with the reason, so that a
resumed build does not try it again.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from ..rules.errors import SensorGhostsError
from .grade_rule import GRADE_RULE, GRADES, grade_of

KIND = "sensor-ghosts collection"
SCHEMA_VERSION = 1
__all__ = ["KIND", "SCHEMA_VERSION", "CollectionError", "open_collection"]


class CollectionError(SensorGhostsError):
    """A collection file that cannot be used: unreadable, corrupt, foreign, newer."""


_TABLES = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE puzzles (
    game_id TEXT PRIMARY KEY,
    seed INTEGER NOT NULL,
    options TEXT NOT NULL,          -- JSON: the RuleOptions fields
    setup TEXT NOT NULL,            -- the setup in the text notation, with its deal
    turns INTEGER NOT NULL,         -- fewest turns (proven: the solver's status was 'solved')
    cards INTEGER NOT NULL,         -- cards the stored plan plays
    proof TEXT NOT NULL,            -- 'optimal' (turns, then cards) or 'turns' (cards not minimised)
    plan_text TEXT NOT NULL,
    plan_json TEXT NOT NULL,
    features TEXT NOT NULL,         -- JSON (grades.Features)
    grade TEXT NOT NULL,
    grade_rank INTEGER NOT NULL,    -- 0 easy .. 3 fiendish, for sorting
    score INTEGER NOT NULL,         -- the grade's points (grades.grade)
    version TEXT NOT NULL,          -- sensor_ghosts.__version__ that made the row
    seconds REAL NOT NULL           -- worker time to solve and grade (not compared between builds)
);
CREATE INDEX puzzles_grade ON puzzles (grade_rank, turns);
CREATE TABLE skipped (
    game_id TEXT PRIMARY KEY,
    seed INTEGER NOT NULL,
    reason TEXT NOT NULL,
    version TEXT NOT NULL
);
"""


def _refuse(path: Path, why: str) -> CollectionError:
    return CollectionError(f"{path}: {why}")


def open_collection(path: str | Path, *, create: bool = False) -> sqlite3.Connection:
    """An open connection to the collection at ``path``. ``create``: make an
    empty collection when the file does not exist (or is empty). Raises
    ``CollectionError`` for a file that is not a collection of this schema."""
    path = Path(path)
    if path.is_dir():
        raise _refuse(path, "is a directory, not a collection file")
    new = not path.exists() or path.stat().st_size == 0
    if new and not create:
        raise _refuse(path, "no such collection (make one with 'sensor-ghosts collection build')")
    if not new:
        # SQLite files start with this header; checking it first gives a clear
        # message for a text or binary file of another kind.
        try:
            with open(path, "rb") as f:
                head = f.read(16)
        except OSError as e:
            raise _refuse(path, f"cannot read: {e.strerror or e}") from None
        if head != b"SQLite format 3\x00":
            raise _refuse(path, "not a sensor-ghosts collection (not an SQLite database)")
    try:
        con = sqlite3.connect(str(path), timeout=30)
    except sqlite3.Error as e:
        raise _refuse(path, f"cannot open: {e}") from None
    try:
        if new:
            with con:
                con.executescript(_TABLES)
                con.executemany("INSERT INTO meta VALUES (?, ?)",
                                [("kind", KIND), ("schema_version", str(SCHEMA_VERSION)),
                                 ("grade_rule", str(GRADE_RULE))])
        else:
            _check(con, path)
            _regrade(con, path)
    except sqlite3.DatabaseError as e:
        con.close()
        raise _refuse(path, f"corrupt or not a collection ({e})") from None
    except CollectionError:
        con.close()
        raise
    return con


def _check(con: sqlite3.Connection, path: Path) -> None:
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "meta" not in tables:
        raise _refuse(path, "not a sensor-ghosts collection (an SQLite database without its 'meta' table)")
    meta = dict(con.execute("SELECT key, value FROM meta"))
    if meta.get("kind") != KIND:
        raise _refuse(path, f"not a sensor-ghosts collection (its kind is {meta.get('kind')!r})")
    try:
        version = int(meta.get("schema_version", ""))
    except ValueError:
        raise _refuse(path, f"unreadable schema version {meta.get('schema_version')!r}") from None
    if version > SCHEMA_VERSION:
        raise _refuse(path, f"schema version {version} is newer than this sensor-ghosts reads "
                            f"({SCHEMA_VERSION}): upgrade sensor-ghosts")
    if version < SCHEMA_VERSION or not {"puzzles", "skipped"} <= tables:
        raise _refuse(path, f"schema version {version} is not one this sensor-ghosts reads ({SCHEMA_VERSION})")
    # A damaged page shows here rather than halfway through a query.
    bad = con.execute("PRAGMA quick_check").fetchone()[0]
    if bad != "ok":
        raise _refuse(path, f"corrupt database ({bad})")


def _regrade(con: sqlite3.Connection, path: Path) -> None:
    """Grade every row again from its stored features when the file's grades
    follow another rule than this sensor-ghosts's (one transaction)."""
    rule = dict(con.execute("SELECT key, value FROM meta")).get("grade_rule")
    if rule == str(GRADE_RULE):
        return
    try:
        with con:
            for gid, feats in con.execute("SELECT game_id, features FROM puzzles").fetchall():
                try:
                    name, points = grade_of(json.loads(feats))
                except (ValueError, KeyError, TypeError) as e:
                    raise _refuse(path, f"puzzle {gid}: unreadable features ({e})") from None
                con.execute("UPDATE puzzles SET grade = ?, grade_rank = ?, score = ? WHERE game_id = ?",
                            (name, GRADES.index(name), points, gid))
            con.execute("INSERT OR REPLACE INTO meta VALUES ('grade_rule', ?)", (str(GRADE_RULE),))
    except sqlite3.OperationalError as e:  # e.g. a read-only file
        raise _refuse(path, f"its grades follow grade rule {rule or 1}, this sensor-ghosts grades by rule "
                            f"{GRADE_RULE}, and they cannot be updated ({e})") from None
