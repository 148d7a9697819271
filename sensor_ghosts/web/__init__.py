"""``sensor-ghosts serve``: the table companion, play and printable puzzles in
a browser (Starlette, served by uvicorn). The pages are plain HTML, CSS and
JavaScript shipped in ``static/``; every rule, hint and drawing comes from the
library through the JSON API in ``app.py`` (see docs/WEB.md)."""

from __future__ import annotations

from typing import Any

__all__ = ["create_app"]


def create_app(workers: int = 2) -> Any:
    """The ASGI app (``app.create_app``); imported late, so that the CLI loads
    Starlette only for ``serve``."""
    from .app import create_app as make

    return make(workers)
