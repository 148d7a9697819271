"""SVG back end: a :class:`~.scene.Page` as a standalone SVG document (the native
format; units are mm through the viewBox)."""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from .scene import Circle, Group, Line, Page, Poly, Rect, Shape, Style, Text

FONT = "Helvetica, Arial, sans-serif"


def _n(v: float) -> str:
    s = f"{v:.2f}".rstrip("0").rstrip(".")
    return s if s not in ("-0", "") else "0"


def _style(s: Style) -> str:
    parts = [f'fill="{s.fill or "none"}"']
    if s.stroke:
        parts.append(f'stroke="{s.stroke}" stroke-width="{_n(s.width)}"')
        if s.dash:
            parts.append(f'stroke-dasharray="{_n(s.dash[0])} {_n(s.dash[1])}"')
        parts.append('stroke-linejoin="round" stroke-linecap="round"')
    return " ".join(parts)


def _shape(sh: Shape) -> str:
    if isinstance(sh, Line):
        return f'<line x1="{_n(sh.x1)}" y1="{_n(sh.y1)}" x2="{_n(sh.x2)}" y2="{_n(sh.y2)}" {_style(sh.style)}/>'
    if isinstance(sh, Poly):
        pts = " ".join(f"{_n(x)},{_n(y)}" for x, y in sh.points)
        tag = "polygon" if sh.closed else "polyline"
        return f'<{tag} points="{pts}" {_style(sh.style)}/>'
    if isinstance(sh, Rect):
        rx = f' rx="{_n(sh.r)}"' if sh.r else ""
        return (
            f'<rect x="{_n(sh.x)}" y="{_n(sh.y)}" width="{_n(sh.w)}" height="{_n(sh.h)}"{rx} '
            f"{_style(sh.style)}/>"
        )
    if isinstance(sh, Circle):
        return f'<circle cx="{_n(sh.cx)}" cy="{_n(sh.cy)}" r="{_n(sh.r)}" {_style(sh.style)}/>'
    if isinstance(sh, Text):
        weight = ' font-weight="bold"' if sh.bold else ""
        # The font size is the em; the vertical middle of capitals is ~0.35 em above the baseline.
        return (
            f'<text x="{_n(sh.x)}" y="{_n(sh.y + 0.35 * sh.size)}" font-size="{_n(sh.size)}" '
            f'text-anchor="{sh.anchor}" fill="{sh.color}"{weight}>{escape(sh.text)}</text>'
        )
    raise TypeError(sh)


def _group(g: Group, out: list[str], indent: str) -> None:
    attrs = ""
    if g.id:
        attrs += f" id={quoteattr(g.id)}"
    if g.cls:
        attrs += f" class={quoteattr(g.cls)}"
    out.append(f"{indent}<g{attrs}>")
    for it in g.items:
        if isinstance(it, Group):
            _group(it, out, indent + " ")
        else:
            out.append(indent + " " + _shape(it))
    out.append(f"{indent}</g>")


def page_svg(page: Page) -> str:
    """The page as an SVG document (a string)."""
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(page.width)}mm" '
        f'height="{_n(page.height)}mm" viewBox="0 0 {_n(page.width)} {_n(page.height)}" '
        f'font-family="{FONT}">',
    ]
    if page.title:
        out.append(f"<title>{escape(page.title)}</title>")
    out.append(f'<rect x="0" y="0" width="{_n(page.width)}" height="{_n(page.height)}" fill="#ffffff"/>')
    _group(page.root, out, "")
    out.append("</svg>")
    return "\n".join(out) + "\n"
