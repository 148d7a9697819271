"""PNG back end (Pillow, which fpdf2 depends on): rasterises a
:class:`~.scene.Page`, drawn at twice the size and reduced for anti-aliasing."""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from .scene import (
    Circle,
    Line,
    Page,
    Poly,
    Rect,
    Text,
    circle_points,
    dash_segments,
    round_rect_points,
)

SUPERSAMPLE = 2


@lru_cache(maxsize=64)
def _font(px: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=px)


def page_size_px(page: Page, dpi: float) -> tuple[int, int]:
    """The PNG's size in pixels for ``page`` at ``dpi``."""
    return round(page.width / 25.4 * dpi), round(page.height / 25.4 * dpi)


def page_image(page: Page, dpi: float = 150) -> Image.Image:
    """The page as an RGB Pillow image at ``dpi``."""
    w, h = page_size_px(page, dpi)
    ss = SUPERSAMPLE
    k = dpi / 25.4 * ss  # px per mm on the big canvas
    img = Image.new("RGB", (w * ss, h * ss), "#ffffff")
    d = ImageDraw.Draw(img)

    def P(x: float, y: float) -> tuple[float, float]:
        return x * k, y * k

    def lw(width: float) -> int:
        return max(1, round(width * k))

    def dashed(points, closed: bool, s) -> None:
        for a, b in dash_segments(points, s.dash[0], s.dash[1], closed=closed):
            d.line([P(*a), P(*b)], fill=s.stroke, width=lw(s.width))

    for sh in page.shapes():
        if isinstance(sh, Text):
            font = _font(max(4, round(sh.size * k)))
            anchor = {"start": "lm", "middle": "mm", "end": "rm"}[sh.anchor]
            # Bold as an outline in the text's colour (Pillow's defaults, 0 and
            # None, draw none).
            d.text(P(sh.x, sh.y), sh.text, fill=sh.color, font=font, anchor=anchor,
                   stroke_width=max(1, round(sh.size * k / 30)) if sh.bold else 0,
                   stroke_fill=sh.color if sh.bold else None)
            continue
        s = sh.style
        if isinstance(sh, Line):
            if s.stroke:
                if s.dash:
                    dashed([(sh.x1, sh.y1), (sh.x2, sh.y2)], False, s)
                else:
                    d.line([P(sh.x1, sh.y1), P(sh.x2, sh.y2)], fill=s.stroke, width=lw(s.width))
        elif isinstance(sh, Rect):
            box = [P(sh.x, sh.y), P(sh.x + sh.w, sh.y + sh.h)]
            outline = s.stroke if s.stroke and not s.dash else None
            if sh.r:
                d.rounded_rectangle(box, radius=sh.r * k, fill=s.fill, outline=outline, width=lw(s.width))
            else:
                d.rectangle(box, fill=s.fill, outline=outline, width=lw(s.width))
            if s.stroke and s.dash:
                dashed(round_rect_points(sh.x, sh.y, sh.w, sh.h, sh.r), True, s)
        elif isinstance(sh, Circle):
            box = [P(sh.cx - sh.r, sh.cy - sh.r), P(sh.cx + sh.r, sh.cy + sh.r)]
            outline = s.stroke if s.stroke and not s.dash else None
            d.ellipse(box, fill=s.fill, outline=outline, width=lw(s.width))
            if s.stroke and s.dash:
                dashed(circle_points(sh.cx, sh.cy, sh.r, 72), True, s)
        elif isinstance(sh, Poly):
            pts = [P(x, y) for x, y in sh.points]
            if sh.closed:
                if s.fill:
                    d.polygon(pts, fill=s.fill)
                if s.stroke and s.dash:
                    dashed(list(sh.points), True, s)
                elif s.stroke:
                    d.line(pts + [pts[0], pts[1]], fill=s.stroke, width=lw(s.width), joint="curve")
            elif s.stroke:
                if s.dash:
                    dashed(list(sh.points), False, s)
                else:
                    d.line(pts, fill=s.stroke, width=lw(s.width), joint="curve")
    return img.reduce(ss) if ss > 1 else img
