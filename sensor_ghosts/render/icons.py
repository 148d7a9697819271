"""The low-ink icon language of the rulebook ("Low Ink Sector Cards Icons
Conversion") as vector shapes: a blank circle (Empty), a boost arrow (Boost), a
warning triangle (Asteroid), a skull and crossbones (Obstructed); a back side is
drawn with a dashed ring. Every icon reads in black and white: shapes carry the
meaning, colour only helps."""

from __future__ import annotations

import math

from ..rules.cards import SectorType
from ..rules.geometry import Direction
from .scene import Circle, Group, Line, Poly, Rect, Shape, Style, Text

INK = "#1f1f1f"
GREY = "#6b6b6b"
WHITE = "#ffffff"

# Light fills, so that black icons stay legible; B/W prints rely on the icons.
FILL = {
    SectorType.EMPTY: "#f4f4f4",
    SectorType.BOOST: "#d5ecd0",
    SectorType.ASTEROID: "#fde3b6",
    SectorType.OBSTRUCTED: "#f3c4bf",
}
START_FILL = "#cfdff4"
EARTH_FILL = "#bcd7f0"
NAME = {
    SectorType.EMPTY: "empty",
    SectorType.BOOST: "boost",
    SectorType.ASTEROID: "asteroid",
    SectorType.OBSTRUCTED: "obstructed",
}


def ring_style(back: bool, r: float, fill: str | None = None) -> Style:
    w = max(0.2, r * 0.08)
    return Style(stroke=INK, fill=fill, width=w, dash=(r * 0.28, r * 0.2) if back else None)


def sector_icon(t: SectorType, cx: float, cy: float, r: float, *, back: bool, fill: str | None = None) -> list[Shape]:
    """One side of a sector card: ring (dashed for a back side) and its glyph."""
    out: list[Shape] = [Circle(cx, cy, r, ring_style(back, r, fill))]
    w = max(0.2, r * 0.11)
    if t is SectorType.BOOST:
        out += boost_glyph(cx, cy, r * 0.62, Direction.UP, w)
    elif t is SectorType.ASTEROID:
        h = r * 1.05
        top = (cx, cy - h * 0.55)
        tri = (top, (cx + h * 0.58, cy + h * 0.42), (cx - h * 0.58, cy + h * 0.42))
        out.append(Poly(tri, Style(stroke=INK, fill=None, width=w)))
        out.append(Line(cx, cy - h * 0.2, cx, cy + h * 0.12, Style(stroke=INK, width=w * 1.1)))
        out.append(Circle(cx, cy + h * 0.27, w * 0.65, Style(stroke=None, fill=INK)))
    elif t is SectorType.OBSTRUCTED:
        out += skull_glyph(cx, cy, r * 0.7)
    return out


def boost_glyph(cx: float, cy: float, size: float, d: Direction, w: float, color: str = INK) -> list[Shape]:
    """Two stacked chevrons pointing along ``d`` (the boost arrow)."""
    dy, dx = -d.value[0], d.value[1]  # screen: row up is y down
    px, py = -dy, dx  # across the arrow
    out: list[Shape] = []
    for off in (-0.32, 0.28):
        tipx, tipy = cx + dx * size * (off + 0.3), cy + dy * size * (off + 0.3)
        bx, by = tipx - dx * size * 0.42, tipy - dy * size * 0.42
        pts = ((bx + px * size * 0.55, by + py * size * 0.55), (tipx, tipy), (bx - px * size * 0.55, by - py * size * 0.55))
        out.append(Poly(pts, Style(stroke=color, width=w * 1.3), closed=False))
    return out


def skull_glyph(cx: float, cy: float, s: float) -> list[Shape]:
    """A skull over crossed bones, ``s`` about the half-size."""
    bone = Style(stroke=INK, width=s * 0.16)
    out: list[Shape] = []
    for sx in (-1, 1):
        x1, y1, x2, y2 = cx - sx * s * 0.85, cy + s * 0.05, cx + sx * s * 0.85, cy + s * 0.9
        out.append(Line(x1, y1, x2, y2, bone))
        for x, y in ((x1, y1), (x2, y2)):
            out.append(Circle(x, y, s * 0.12, Style(stroke=None, fill=INK)))
    head = Style(stroke=None, fill=INK)
    out.append(Circle(cx, cy - s * 0.22, s * 0.55, head))
    out.append(Rect(cx - s * 0.3, cy + s * 0.1, s * 0.6, s * 0.38, head, r=s * 0.08))
    for sx in (-1, 1):
        out.append(Circle(cx + sx * s * 0.22, cy - s * 0.2, s * 0.15, Style(stroke=None, fill=WHITE)))
    out.append(Poly(((cx, cy + s * 0.02), (cx - s * 0.07, cy + s * 0.14), (cx + s * 0.07, cy + s * 0.14)), Style(stroke=None, fill=WHITE)))
    for tx in (-0.15, 0.0, 0.15):
        out.append(Line(cx + s * tx, cy + s * 0.3, cx + s * tx, cy + s * 0.48, Style(stroke=WHITE, width=s * 0.05)))
    return out


def sample_token(cx: float, cy: float, r: float, kind: str) -> list[Shape]:
    """A sample token: ``virus`` (spiky disc, V), ``rock`` (lumpy polygon, R) or
    ``hidden`` (face down: plain disc with ?)."""
    out: list[Shape] = []
    w = max(0.2, r * 0.12)
    if kind == "virus":
        for i in range(8):
            a = 2 * math.pi * i / 8
            out.append(Line(cx + r * 0.7 * math.cos(a), cy + r * 0.7 * math.sin(a),
                            cx + r * 1.12 * math.cos(a), cy + r * 1.12 * math.sin(a), Style(stroke=INK, width=w)))
            out.append(Circle(cx + r * 1.12 * math.cos(a), cy + r * 1.12 * math.sin(a), w * 0.9, Style(stroke=None, fill=INK)))
        out.append(Circle(cx, cy, r * 0.78, Style(stroke=INK, fill="#c9f0c0", width=w)))
        out.append(Text(cx, cy, "V", r * 1.05, bold=True))
    elif kind == "rock":
        pts = []
        for i, k in enumerate((1.0, 0.82, 1.05, 0.9, 1.0, 0.78, 1.02, 0.88)):
            a = 2 * math.pi * i / 8 + 0.3
            pts.append((cx + r * k * math.cos(a), cy + r * k * math.sin(a)))
        out.append(Poly(tuple(pts), Style(stroke=INK, fill="#b8b0a6", width=w)))
        out.append(Text(cx, cy, "R", r * 1.05, bold=True))
    else:
        out.append(Circle(cx, cy, r, Style(stroke=INK, fill="#e2e2e2", width=w)))
        out.append(Circle(cx, cy, r * 0.72, Style(stroke=GREY, fill=None, width=w * 0.6)))
        out.append(Text(cx, cy, "?", r * 1.1, bold=True))
    return out


def ship_glyph(cx: float, cy: float, s: float) -> list[Shape]:
    """The ship: a dart pointing up (towards Earth's row), white-edged."""
    pts = ((cx, cy - s), (cx + s * 0.72, cy + s * 0.8), (cx, cy + s * 0.4), (cx - s * 0.72, cy + s * 0.8))
    return [Poly(pts, Style(stroke=WHITE, fill=INK, width=s * 0.14)), Poly(pts, Style(stroke=INK, fill=None, width=s * 0.05))]


def pod_glyph(cx: float, cy: float, s: float) -> list[Shape]:
    """The escape pod: a small capsule with P."""
    return [Rect(cx - s, cy - s * 0.7, 2 * s, 1.4 * s, Style(stroke=INK, fill=WHITE, width=s * 0.15), r=s * 0.6),
            Text(cx, cy, "P", s * 1.2, bold=True)]


def earth_glyph(cx: float, cy: float, r: float) -> list[Shape]:
    w = max(0.2, r * 0.06)
    out: list[Shape] = [Circle(cx, cy, r, Style(stroke=INK, fill=EARTH_FILL, width=w * 1.5))]
    land = Style(stroke=INK, fill="#9ccf8e", width=w)
    out.append(Poly(((cx - r * 0.6, cy - r * 0.45), (cx - r * 0.1, cy - r * 0.62), (cx + r * 0.05, cy - r * 0.2),
                     (cx - r * 0.25, cy + r * 0.1), (cx - r * 0.35, cy + r * 0.55), (cx - r * 0.72, cy + r * 0.1)), land))
    out.append(Poly(((cx + r * 0.25, cy + r * 0.05), (cx + r * 0.75, cy - r * 0.05), (cx + r * 0.6, cy + r * 0.45),
                     (cx + r * 0.2, cy + r * 0.7)), land))
    return out


def dock_glyph(cx: float, cy: float, s: float) -> list[Shape]:
    """The space station: a hub with two solar panels."""
    st = Style(stroke=INK, fill=WHITE, width=s * 0.06)
    out: list[Shape] = []
    for sx in (-1, 1):
        out.append(Rect(cx + sx * s * 0.55 - s * 0.3, cy - s * 0.22, s * 0.6, s * 0.44, Style(stroke=INK, fill="#d9d9d9", width=s * 0.05)))
        out.append(Line(cx + sx * s * 0.25, cy, cx + sx * s * 0.55 - sx * s * 0.3, cy, st))
    out.append(Circle(cx, cy, s * 0.28, st))
    out.append(Circle(cx, cy, s * 0.1, Style(stroke=None, fill=INK)))
    return out


def flip_marker(cx: float, cy: float, s: float, label: str) -> list[Shape]:
    """A chosen flip (re-scan or Deep Scan): a diamond with the turn number."""
    pts = ((cx, cy - s), (cx + s, cy), (cx, cy + s), (cx - s, cy))
    return [Poly(pts, Style(stroke=INK, fill="#fff7a8", width=s * 0.12)), Text(cx, cy, label, s * 0.95, bold=True)]


def shift_marker(x: float, cy: float, s: float, label: str) -> list[Shape]:
    """A row shift: an arrow pointing left with the turn numbers."""
    pts = ((x, cy), (x + s * 0.9, cy - s * 0.7), (x + s * 0.9, cy + s * 0.7))
    return [Poly(pts, Style(stroke=INK, fill=INK, width=0.2)), Text(x + s * 1.2, cy, label, s * 1.2, anchor="start", bold=True)]


def turn_badge(cx: float, cy: float, r: float, label: str) -> list[Shape]:
    size = r * (1.15 if len(label) <= 2 else 0.85)
    return [Circle(cx, cy, r, Style(stroke=WHITE, fill=INK, width=r * 0.18)), Text(cx, cy, label, size, bold=True, color=WHITE)]


def group(gid: str | None, shapes: list[Shape], cls: str | None = None) -> Group:
    return Group(gid, list(shapes), cls)
