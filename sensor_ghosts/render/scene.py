"""A tiny display list: the shapes of one printed page, in millimetres.

Every sheet is built once as a :class:`Page` of primitives (origin top-left, y
down, as in SVG); the back ends (``svg``, ``pdf``, ``png``) only translate
primitives, so the three formats always show the same picture.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

Point = tuple[float, float]

A4 = (210.0, 297.0)
A4_LANDSCAPE = (297.0, 210.0)


@dataclass(frozen=True)
class Style:
    """How a shape is painted. Colours are ``#rrggbb`` or None (not painted);
    ``width`` is the stroke width in mm; ``dash`` is (dash, gap) in mm."""

    stroke: str | None = "#000000"
    fill: str | None = None
    width: float = 0.3
    dash: tuple[float, float] | None = None


@dataclass(frozen=True)
class Line:
    x1: float
    y1: float
    x2: float
    y2: float
    style: Style = Style()


@dataclass(frozen=True)
class Poly:
    """A polyline, or a polygon when ``closed``."""

    points: tuple[Point, ...]
    style: Style = Style()
    closed: bool = True


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float
    style: Style = Style()
    r: float = 0.0  # corner radius


@dataclass(frozen=True)
class Circle:
    cx: float
    cy: float
    r: float
    style: Style = Style()


@dataclass(frozen=True)
class Text:
    """Text whose vertical middle is at ``y``. ``size`` is the cap-to-descender
    font size in mm; ``anchor`` is start, middle or end."""

    x: float
    y: float
    text: str
    size: float = 3.5
    anchor: str = "middle"
    bold: bool = False
    color: str = "#000000"


Shape = Line | Poly | Rect | Circle | Text


@dataclass
class Group:
    """Named shapes: SVG writes a ``<g id=...>`` for it (tests find cells by it)."""

    id: str | None
    items: list[Shape | Group] = field(default_factory=list)
    cls: str | None = None

    def add(self, *items: Shape | Group) -> None:
        self.items.extend(items)


@dataclass
class Page:
    width: float
    height: float
    root: Group = field(default_factory=lambda: Group(None))
    title: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    """Layout facts for callers and tests, e.g. ``meta["grid"]``: the GridBox."""

    def add(self, *items: Shape | Group) -> None:
        self.root.add(*items)

    def shapes(self) -> Iterator[Shape]:
        """Every primitive in paint order (groups flattened)."""
        yield from _walk(self.root)


def _walk(g: Group) -> Iterator[Shape]:
    for it in g.items:
        if isinstance(it, Group):
            yield from _walk(it)
        else:
            yield it


def dash_segments(
    points: list[Point], dash: float, gap: float, closed: bool = False
) -> list[tuple[Point, Point]]:
    """Split a polyline into the drawn pieces of a dash pattern (used by back ends
    that have no dashed lines, and for dashed circles as polygons)."""
    pts = list(points) + ([points[0]] if closed else [])
    out: list[tuple[Point, Point]] = []
    on, left = True, dash
    for (x1, y1), (x2, y2) in zip(pts, pts[1:], strict=False):
        seg = math.hypot(x2 - x1, y2 - y1)
        pos = 0.0
        while seg - pos > 1e-9:
            step = min(left, seg - pos)
            if on:
                t0, t1 = pos / seg, (pos + step) / seg
                out.append(
                    ((x1 + (x2 - x1) * t0, y1 + (y2 - y1) * t0), (x1 + (x2 - x1) * t1, y1 + (y2 - y1) * t1))
                )
            pos += step
            left -= step
            if left <= 1e-9:
                on = not on
                left = dash if on else gap
    return out


def circle_points(cx: float, cy: float, r: float, n: int = 48) -> list[Point]:
    return [(cx + r * math.cos(2 * math.pi * i / n), cy + r * math.sin(2 * math.pi * i / n)) for i in range(n)]


def round_rect_points(x: float, y: float, w: float, h: float, r: float, n: int = 6) -> list[Point]:
    if r <= 0:
        return [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]
    pts: list[Point] = []
    corners = [(x + w - r, y + r, -90), (x + w - r, y + h - r, 0), (x + r, y + h - r, 90), (x + r, y + r, 180)]
    for cx, cy, a0 in corners:
        for i in range(n + 1):
            a = math.radians(a0 + 90 * i / n)
            pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return pts
