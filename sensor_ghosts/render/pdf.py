"""PDF back end (fpdf2): one PDF page per :class:`~.scene.Page`, vector shapes."""

from __future__ import annotations

from collections.abc import Iterable

from fpdf import FPDF

from .scene import Circle, Line, Page, Poly, Rect, Style, Text

PT_PER_MM = 72 / 25.4


def _rgb(c: str) -> tuple[int, int, int]:
    return int(c[1:3], 16), int(c[3:5], 16), int(c[5:7], 16)


def _latin1(s: str) -> str:
    # The PDF core fonts cover Latin-1 only; sheets use ASCII, but stay safe.
    return s.encode("latin-1", "replace").decode("latin-1")


class _Painter:
    def __init__(self, pdf: FPDF):
        self.pdf = pdf
        self._state: dict[str, object] = {}

    def _set(self, key: str, value: object, fn) -> None:
        if self._state.get(key) != value:
            self._state[key] = value
            fn(value)

    def reset(self) -> None:
        self._state.clear()

    def style(self, s: Style) -> str | None:
        """Set colours, width and dash for ``s``; the fpdf2 style letter, or None
        if nothing is painted."""
        pdf = self.pdf
        if s.stroke:
            self._set("stroke", s.stroke, lambda c: pdf.set_draw_color(*_rgb(c)))
            self._set("width", s.width, pdf.set_line_width)
            self._set("dash", s.dash, lambda d: pdf.set_dash_pattern(*(d or (0, 0))))
        if s.fill:
            self._set("fill", s.fill, lambda c: pdf.set_fill_color(*_rgb(c)))
        if s.stroke and s.fill:
            return "DF"
        if s.fill:
            return "F"
        if s.stroke:
            return "D"
        return None

    def paint(self, page: Page) -> None:
        pdf = self.pdf
        for sh in page.shapes():
            if isinstance(sh, Text):
                self._set("text", sh.color, lambda c: pdf.set_text_color(*_rgb(c)))
                self._set("font", (sh.bold, sh.size), lambda f: pdf.set_font("helvetica", "B" if f[0] else "", f[1] * PT_PER_MM))
                text = _latin1(sh.text)
                w = pdf.get_string_width(text)
                x = sh.x - (w / 2 if sh.anchor == "middle" else w if sh.anchor == "end" else 0)
                pdf.text(x, sh.y + 0.35 * sh.size, text)
                continue
            st = self.style(sh.style)
            if st is None:
                continue
            if isinstance(sh, Line):
                if sh.style.stroke:
                    pdf.line(sh.x1, sh.y1, sh.x2, sh.y2)
            elif isinstance(sh, Rect):
                if sh.r:
                    pdf.rect(sh.x, sh.y, sh.w, sh.h, style=st, round_corners=True, corner_radius=sh.r)
                else:
                    pdf.rect(sh.x, sh.y, sh.w, sh.h, style=st)
            elif isinstance(sh, Circle):
                pdf.ellipse(sh.cx - sh.r, sh.cy - sh.r, 2 * sh.r, 2 * sh.r, style=st)
            elif isinstance(sh, Poly):
                if sh.closed:
                    pdf.polygon(list(sh.points), style=st)
                elif sh.style.stroke:
                    pdf.polyline(list(sh.points), style="D")


def pdf_bytes(pages: Iterable[Page], *, title: str = "Sensor Ghosts") -> bytes:
    """Every page as one PDF document (bytes)."""
    pdf = FPDF(unit="mm", format="A4")
    pdf.set_auto_page_break(False)
    pdf.set_margins(0, 0, 0)
    pdf.set_title(title)
    pdf.set_creator("sensor-ghosts")
    painter = _Painter(pdf)
    n = 0
    for page in pages:
        pdf.add_page(format=(page.width, page.height) if page.width <= page.height else (page.height, page.width),
                     orientation="P" if page.width <= page.height else "L")
        painter.reset()  # a new page starts a fresh graphics state
        painter.paint(page)
        n += 1
    if n == 0:
        raise ValueError("a PDF needs at least one page")
    return bytes(pdf.output())
