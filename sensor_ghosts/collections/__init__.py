"""Graded puzzle collections in SQLite, built on Dask distributed (issue 35).

    from sensor_ghosts.collections import build, rows, stats
    summary = build("puzzles.db", range(100), RuleOptions(), workers=2)
    hard = list(rows("puzzles.db", grade="hard", turns=(12, 13)))

docs/COLLECTIONS.md describes the schema, the grades and how a
build runs on a cluster. Importing this package loads neither Dask nor the
solver; ``build`` and the grades do.
"""

from __future__ import annotations

from typing import Any

from .schema import KIND, SCHEMA_VERSION, CollectionError, open_collection

__all__ = ["KIND", "SCHEMA_VERSION", "CollectionError", "build", "open_collection", "rows", "stats",
           "write_booklet"]


def __getattr__(name: str) -> Any:
    if name == "build":
        from .build import build

        return build
    if name in ("rows", "stats"):
        from . import query

        return getattr(query, name)
    if name == "write_booklet":
        from .booklet import write_booklet

        return write_booklet
    raise AttributeError(f"module 'sensor_ghosts.collections' has no attribute {name!r}")
