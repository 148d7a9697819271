"""Page layouts: the setup sheet and the solution page, as :class:`~.scene.Page`.

Geometry (RULES.md §1): rows 1..7 with row 1 at the bottom, columns 1..5 from
the left; the dock [D1] left of (1,1), Earth right of (7,5).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..rules.cards import SectorType, Side
from ..rules.geometry import COLS, DOCK, EARTH, ROWS, Direction, Pos, format_pos
from ..rules.log import Entered, Flew, Flipped, Shifted
from ..rules.setup import Gap, Grid, Setup, Slot
from ..rules.state import GameState
from ..rules.turns import Command, Turn
from . import icons
from .icons import GREY, INK, WHITE
from .scene import A4, A4_LANDSCAPE, Circle, Group, Line, Page, Poly, Rect, Style, Text

TITLE = "Sensor Ghosts"
BOOST_MARK = "#8fd18a"


@dataclass(frozen=True)
class GridBox:
    """Where the grid sits on a page: ``x0``/``y0`` is the top-left of (7,1); ``s``
    the cell size (mm)."""

    x0: float
    y0: float
    s: float

    def cell_xy(self, pos: Pos) -> tuple[float, float]:
        """Top-left corner of a cell (the dock and Earth included)."""
        r, c = pos
        return self.x0 + (c - 1) * self.s, self.y0 + (ROWS - r) * self.s

    def center(self, pos: Pos) -> tuple[float, float]:
        x, y = self.cell_xy(pos)
        return x + self.s / 2, y + self.s / 2

    @property
    def bottom(self) -> float:
        return self.y0 + ROWS * self.s


# ----------------------------------------------------------------------------
# cells
# ----------------------------------------------------------------------------


def _sample_kind(slot: Slot, hide_samples: bool) -> str:
    assert slot.sample is not None
    if hide_samples:
        return "hidden"
    return "virus" if slot.sample.virus else "rock"


def cell_group(pos: Pos, cell: Slot | Gap, box: GridBox, *, hide_down: bool, hide_samples: bool) -> Group:
    """One grid cell as ``<g id="cell-rRcC">``."""
    r, c = pos
    s = box.s
    x, y = box.cell_xy(pos)
    inset = s * 0.045
    g = Group(f"cell-r{r}c{c}")
    if isinstance(cell, Gap):
        g.cls = "gap"
        g.add(Rect(x + inset, y + inset, s - 2 * inset, s - 2 * inset,
                   Style(stroke=GREY, fill=None, width=s * 0.02, dash=(s * 0.06, s * 0.045)), r=s * 0.06))
        g.add(Text(x + s / 2, y + s * 0.45, "gap", s * 0.2, color=GREY, bold=True))
        if not hide_down and cell.card is not None:
            g.add(Text(x + s / 2, y + s * 0.7, f"was {cell.card.pair}", s * 0.12, color=GREY))
        return g
    card = cell.card
    face = cell.face
    cx, cy = x + s / 2, y + s * 0.45
    if card.start:
        g.cls = "start"
        g.add(Rect(x + inset, y + inset, s - 2 * inset, s - 2 * inset,
                   Style(stroke=INK, fill=icons.START_FILL, width=s * 0.025), r=s * 0.06))
        g.add(Circle(cx, cy, s * 0.27, icons.ring_style(False, s * 0.27, WHITE)))
        g.add(Text(cx, cy, "S", s * 0.3, bold=True))
        g.add(Text(x + s / 2, y + s * 0.86, "start - no flip", s * 0.1, color=INK))
    else:
        back = cell.up is Side.BACK
        g.cls = f"card {face.value} {'back' if back else 'front'}"
        g.add(Rect(x + inset, y + inset, s - 2 * inset, s - 2 * inset,
                   Style(stroke=INK, fill=icons.FILL[face], width=s * 0.02), r=s * 0.06))
        g.add(*icons.sector_icon(face, cx, cy, s * 0.27, back=back, fill=WHITE))
        side = "back" if back else "front"
        g.add(Text(x + s * 0.1, y + s * 0.86, f"{face.value} {side}", s * 0.11, anchor="start", color=INK))
        if not hide_down:
            down = cell.down
            g.add(*icons.sector_icon(down, x + s * 0.83, y + s * 0.83, s * 0.11, back=not back, fill=icons.FILL[down]))
            g.add(Text(x + s * 0.93, y + s * 0.12, f"#{card.id}", s * 0.09, anchor="end", color=GREY))
    if cell.sample is not None:
        g.add(*icons.sample_token(x + s * 0.18, y + s * 0.18, s * 0.1, _sample_kind(cell, hide_samples)))
    return g


def draw_grid(page: Page, grid: Grid, box: GridBox, *, hide_down: bool, hide_samples: bool) -> None:
    s = box.s
    cells = Group("grid")
    for r in range(1, ROWS + 1):
        for c in range(1, COLS + 1):
            cells.add(cell_group((r, c), grid[r - 1][c - 1], box, hide_down=hide_down, hide_samples=hide_samples))
    page.add(cells)
    # Dock and Earth
    dx, dy = box.cell_xy(DOCK)
    page.add(Group("dock", [Rect(dx + s * 0.06, dy + s * 0.06, s * 0.88, s * 0.88,
                                 Style(stroke=INK, fill="#eeeeee", width=s * 0.02), r=s * 0.1),
                            *icons.dock_glyph(dx + s / 2, dy + s * 0.42, s * 0.42),
                            Text(dx + s / 2, dy + s * 0.8, "DOCK", s * 0.13, bold=True)]))
    ex, ey = box.cell_xy(EARTH)
    page.add(Group("earth", [*icons.earth_glyph(ex + s / 2, ey + s * 0.42, s * 0.3),
                             Text(ex + s / 2, ey + s * 0.86, "EARTH", s * 0.13, bold=True)]))
    labels = Group("labels")
    for r in range(1, ROWS + 1):
        # row labels sit left of the dock column
        _, y = box.cell_xy((r, 0))
        labels.add(Text(box.x0 - s - s * 0.22, y + s / 2, str(r), s * 0.2, bold=True))
    for c in range(1, COLS + 1):
        x, _ = box.cell_xy((1, c))
        labels.add(Text(x + s / 2, box.bottom + s * 0.17, str(c), s * 0.2, bold=True))
        labels.add(Text(x + s / 2, box.y0 - s * 0.15, str(c), s * 0.16, color=GREY))
    labels.add(Text(box.x0 - s - s * 0.22, box.bottom + s * 0.17, "row", s * 0.11, color=GREY))
    labels.add(Text(box.x0 + 2.5 * s, box.bottom + s * 0.36, "column", s * 0.11, color=GREY))
    page.add(labels)


def draw_tokens(page: Page, state: GameState, box: GridBox) -> None:
    """The ship (and pod) where a state puts them."""
    s = box.s
    g = Group("tokens")
    x, y = box.cell_xy(state.ship)
    g.add(Rect(x + s * 0.02, y + s * 0.02, s * 0.96, s * 0.96, Style(stroke=INK, fill=None, width=s * 0.05), r=s * 0.08))
    g.add(*icons.ship_glyph(x + s * 0.8, y + s * 0.22, s * 0.14))
    if state.pod is not None:
        px, py = box.cell_xy(state.pod)
        g.add(*icons.pod_glyph(px + s * 0.14, py + s * 0.5, s * 0.08))
    page.add(g)


# ----------------------------------------------------------------------------
# text blocks
# ----------------------------------------------------------------------------


def options_text(setup: Setup) -> str:
    o = setup.options
    flags = ", ".join(o.flags()) or "none"
    return f"{o.players} player{'s' if o.players > 1 else ''}, {o.difficulty.value}; options: {flags}"


def footer_text(setup: Setup) -> str:
    deal = "fixed deal" if setup.deal is not None else "deal not fixed"
    return (
        f"id: {setup.id or '(none)'}  |  {options_text(setup)}  |  "
        f"sector cards: {setup.sector_cards.name}, command cards: {setup.command_cards.name}  |  {deal}"
    )


def _regenerate_hint(setup: Setup, regenerable: bool) -> str:
    # Whether the id is a game ID is the generator's to say: the caller asks it.
    if regenerable and setup.id:
        return f"Regenerate: sensor-ghosts generate --id '{setup.id}'."
    return "Keep this setup's file to redraw it (sensor-ghosts render FILE)."


def draw_footer(page: Page, setup: Setup, y: float, regenerable: bool = False) -> None:
    """The setup's id, options and card sets; how to get the setup again
    (``regenerable``: its id is a generator's game ID)."""
    hint = _regenerate_hint(setup, regenerable)
    page.add(Group("footer", [
        Line(12, y - 4, page.width - 12, y - 4, Style(stroke=GREY, width=0.2)),
        Text(page.width / 2, y, footer_text(setup), 2.6, color=INK),
        Text(page.width / 2, y + 4, hint + "  Rules as modelled in RULES.md.", 2.2, color=GREY),
    ]))


def _legend_item(g: Group, x: float, y: float, shapes: list, label: str, size: float = 2.7) -> None:
    g.add(*shapes)
    g.add(Text(x + 5.5, y, label, size, anchor="start"))


def draw_legend(page: Page, x: float, y: float, *, hide_down: bool, col_w: float = 46, solution: bool = False,
                ncols: int = 3, row_h: float = 8.0, text_size: float = 2.7) -> float:
    """The key to the icons; returns the y below it."""
    g = Group("legend")
    g.add(Text(x, y, "Key", 3.6, anchor="start", bold=True))
    y += 5 + row_h / 4
    r = 3.0
    items: list[tuple[list, str]] = []
    for t in SectorType:
        items.append((icons.sector_icon(t, 0, 0, r, back=False, fill=WHITE), f"{icons.NAME[t]} ({t.value})"))
    items.append((icons.sector_icon(SectorType.EMPTY, 0, 0, r, back=True, fill=WHITE), "dashed ring: back side up"))
    items.append(([Rect(-r, -r, 2 * r, 2 * r, Style(stroke=INK, fill=icons.START_FILL, width=0.25), r=0.6),
                   Text(0, 0, "S", 3, bold=True)], "start card, never flips"))
    items.append(([Rect(-r, -r, 2 * r, 2 * r, Style(stroke=GREY, width=0.25, dash=(0.9, 0.7)), r=0.6)],
                  "gap: removed card (fatal)"))
    if hide_down:
        items.append((icons.sample_token(0, 0, 2.2, "hidden"), "sample, face down"))
    items.append((icons.ship_glyph(0, 0, 2.4), "ship"))
    if hide_down:
        pass
    else:
        items.append((icons.sample_token(0, 0, 2.2, "virus"), "virus sample (V)"))
        items.append((icons.sample_token(0, 0, 2.2, "rock"), "rock sample (R)"))
        items.append(([Rect(-r, -r, 2 * r, 2 * r, Style(stroke=INK, fill=icons.FILL[SectorType.ASTEROID], width=0.2), r=0.6),
                       *icons.sector_icon(SectorType.EMPTY, r * 0.45, r * 0.45, 1.3, back=True, fill=WHITE)],
                      "corner: the side face down"))
    if solution:
        items.append(([Line(-r, 0, r, 0, Style(stroke=WHITE, width=1.6)), Line(-r, 0, r, 0, Style(stroke=INK, width=0.8)),
                       *icons.turn_badge(r * 0.3, 0, 1.9, "3")], "path; turn 3 ends here"))
        items.append(([Circle(0, 0, r, Style(stroke=INK, fill=BOOST_MARK, width=0.3)),
                       *icons.boost_glyph(0, 0, r, Direction.RIGHT, 0.3)], "boost carried the ship on"))
        items.append((icons.flip_marker(0, 0, 2.3, "4"), "flipped by choice, turn 4"))
        items.append((icons.shift_marker(-2.5, 0, 2.0, "5"), "row shifted left, turn 5"))
    per_col = (len(items) + ncols - 1) // ncols
    for i, (shapes, label) in enumerate(items):
        col, row = divmod(i, per_col)
        ix, iy = x + 3 + col * col_w, y + row * row_h
        moved = [_translate(sh, ix, iy) for sh in shapes]
        _legend_item(g, ix, iy, moved, label, text_size)
    page.add(g)
    return y + per_col * row_h


def _translate(sh, dx: float, dy: float):
    if isinstance(sh, Line):
        return Line(sh.x1 + dx, sh.y1 + dy, sh.x2 + dx, sh.y2 + dy, sh.style)
    if isinstance(sh, Poly):
        return Poly(tuple((x + dx, y + dy) for x, y in sh.points), sh.style, sh.closed)
    if isinstance(sh, Rect):
        return Rect(sh.x + dx, sh.y + dy, sh.w, sh.h, sh.style, sh.r)
    if isinstance(sh, Circle):
        return Circle(sh.cx + dx, sh.cy + dy, sh.r, sh.style)
    if isinstance(sh, Text):
        return Text(sh.x + dx, sh.y + dy, sh.text, sh.size, sh.anchor, sh.bold, sh.color)
    raise TypeError(sh)


def status_text(state: GameState) -> str:
    held = f"virus held {state.held}/{state.options.samples_to_win}"
    out = f"turn {state.turn}  |  ship {format_pos(state.ship)}  |  shields {state.shields}  |  {held}"
    hands = " / ".join(" ".join(h) or "-" for h in state.hands)
    out += f"  |  hand {hands}  |  deck {len(state.deck)} ({'second' if state.second_pass else 'first'} pass)"
    if state.is_over:
        out += f"  |  {state.outcome}"
    return out


# ----------------------------------------------------------------------------
# the setup sheet
# ----------------------------------------------------------------------------


def setup_page(
    setup_or_state: Setup | GameState,
    *,
    hide_down: bool = False,
    hide_samples: bool | None = None,
    title: str | None = None,
    regenerable: bool = False,
) -> Page:
    """The setup sheet (A4 portrait). With ``hide_down`` it is a puzzle to play:
    only the face-up sides (and front/back rings) show, samples face down unless
    ``hide_samples`` is False. A :class:`GameState` also draws the ship and pod.
    ``regenerable``: the setup's id is a generator's game ID, and the footer
    says how to regenerate it (else: keep the file)."""
    state = setup_or_state if isinstance(setup_or_state, GameState) else None
    setup = state.setup if state is not None else setup_or_state
    assert isinstance(setup, Setup)
    grid = state.grid if state is not None else setup.grid
    hide_samples = hide_down if hide_samples is None else hide_samples
    W, H = A4
    page = Page(W, H, title=title or f"{TITLE} {setup.id or ''}".strip())
    kind = "game in progress" if state is not None else "puzzle" if hide_down else "setup"
    head = title or f"{TITLE}  -  {kind} {setup.id or ''}".rstrip()
    page.add(Group("title", [
        Text(W / 2, 13, head, 6.0, bold=True),
        Text(W / 2, 20.5, status_text(state) if state is not None else
             ("Plan a flight from the dock to Earth. Face-down sides are hidden."
              if hide_down else "Face-up side large; the side face down small, bottom right."), 3.0, color=GREY),
    ]))
    s = 24.0
    box = GridBox(x0=(W - 5 * s) / 2 + 2, y0=32, s=s)
    page.meta["grid"] = box
    draw_grid(page, grid, box, hide_down=hide_down, hide_samples=hide_samples)
    if state is not None:
        draw_tokens(page, state, box)
    else:
        g = Group("tokens")
        x, y = box.cell_xy(DOCK)
        g.add(*icons.ship_glyph(x + s * 0.8, y + s * 0.2, s * 0.12))
        page.add(g)
    y = draw_legend(page, 16, box.bottom + 14, hide_down=hide_down, col_w=62)
    _notes_box(page, 16, y + 2, W - 32, H - 18 - (y + 2))
    draw_footer(page, setup, H - 10, regenerable)
    return page


def _notes_box(page: Page, x: float, y: float, w: float, h: float) -> None:
    """Ruled space for the player's plan."""
    if h < 14:
        return
    g = Group("notes", [Rect(x, y, w, h, Style(stroke=GREY, width=0.25), r=1.5),
                        Text(x + 3, y + 4, "Your plan (turn: cards, action, re-scan)", 2.8, anchor="start", color=GREY)])
    ly = y + 11
    while ly < y + h - 2:
        g.add(Line(x + 3, ly, x + w - 3, ly, Style(stroke="#c8c8c8", width=0.15)))
        ly += 7
    page.add(g)


# ----------------------------------------------------------------------------
# the solution page
# ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Solution:
    """What a solution page draws: ``turns``, the states around them (the
    start, then the state after each turn) and each turn's log as the rules
    engine told it (``apply_turn(..., log=[])``); ``note`` says what the plan
    is optimal for. The page draws these as given: it neither solves nor
    replays (``sensor_ghosts.puzzles.solution_of`` makes one from a plan)."""

    states: Sequence[GameState]
    turns: Sequence[Turn]
    logs: Sequence[Sequence[object]]
    note: str = ""


@dataclass
class TurnEvents:
    """What one turn did, read from the engine's log of it."""

    number: int
    turn: Turn
    before: GameState
    after: GameState
    path: list[Pos] = field(default_factory=list)  # cells entered, in order (ship moves)
    entered: list[SectorType | None] = field(default_factory=list)  # face after entering
    direction: Direction | None = None
    shifts: list[int] = field(default_factory=list)
    flips: list[Pos] = field(default_factory=list)  # flipped by choice (Deep Scan, re-scan)
    rescan_shift: int | None = None  # the row the re-scan shifted
    rescan_flips: list[Pos] = field(default_factory=list)

    @property
    def boosts(self) -> int:
        return sum(1 for t in self.entered if t is SectorType.BOOST)


def turn_events(states: Sequence[GameState], turns: Sequence[Turn],
                logs: Sequence[Sequence[object]]) -> list[TurnEvents]:
    """Per turn: the ship's path, boosts, shifts and chosen flips, as the rules
    engine told them in ``logs`` (one list per turn, as ``apply_turn(...,
    log=...)`` fills it). ``states`` holds the state before each turn and the
    one after the last (len(turns) + 1)."""
    if len(states) != len(turns) + 1:
        raise ValueError(f"need {len(turns) + 1} states for {len(turns)} turns, got {len(states)}")
    if len(logs) != len(turns):
        raise ValueError(f"need one log per turn: {len(turns)} turns, {len(logs)} logs")
    out: list[TurnEvents] = []
    for i, (turn, log) in enumerate(zip(turns, logs, strict=True)):
        ev = TurnEvents(i + 1, turn, states[i], states[i + 1])
        for e in log:
            if isinstance(e, Flew):
                ev.direction = e.direction
            elif isinstance(e, Entered):
                ev.path.append(e.pos)
                ev.entered.append(e.met)
            elif isinstance(e, Flipped):
                ev.flips.append(e.pos)
                if e.cause == "re-scan":
                    ev.rescan_flips.append(e.pos)
            elif isinstance(e, Shifted):
                ev.shifts.append(e.row)
                if e.cause == "re-scan":
                    ev.rescan_shift = e.row
        out.append(ev)
    return out


def _cards_text(cmd: Command | None) -> str:
    if cmd is None:
        return "-"
    return "+".join(("deck:" if pc.player < 0 else "") + pc.card for pc in cmd.cards)


def _action_text(ev: TurnEvents) -> str:
    t = ev.turn
    parts = []
    if t.bolster:
        parts.append(f"bolster {t.bolster}")
    for cmd in (t.command, t.second):
        if cmd is not None:
            parts.append(str(cmd.action))
    if t.command is None:
        parts.append("skip")
    if ev.boosts:
        parts.append(f"boost x{ev.boosts}")
    return ", ".join(parts)


def _ship_text(ev: TurnEvents) -> str:
    if not ev.path:
        return format_pos(ev.after.ship)
    faces = "".join(f.value if f is not None else "" for f in ev.entered)
    return f"{format_pos(ev.after.ship)} {faces}".strip()


def _rescan_text(ev: TurnEvents) -> str:
    parts = [f"shift {ev.rescan_shift}"] if ev.rescan_shift is not None else []
    by_row: dict[int, list[int]] = defaultdict(list)
    for r, c in ev.rescan_flips:
        by_row[r].append(c)
    parts += [f"flip {r}:{','.join(str(c) for c in cs)}" for r, cs in sorted(by_row.items())]
    return "; ".join(parts) or "-"


def _ranges(nums: list[int]) -> str:
    """Turn numbers as a label: ``1-4`` for a run, else ``1,3``; a turn that
    counts twice (a Deep Scan shift and the re-scan of one row) is ``3x2``."""
    counts: dict[int, int] = {}
    for n in nums:
        counts[n] = counts.get(n, 0) + 1
    uniq = sorted(counts)
    if len(uniq) > 2 and uniq == list(range(uniq[0], uniq[-1] + 1)) and all(v == 1 for v in counts.values()):
        return f"{uniq[0]}-{uniq[-1]}"
    return ",".join(f"{n}x{counts[n]}" if counts[n] > 1 else str(n) for n in uniq)


def solution_page(solution: Solution, *, title: str | None = None, hide_down: bool = False,
                  regenerable: bool = False) -> Page:
    """The solution page (A4 landscape): the opening grid with the flight path,
    turn numbers, boosts, chosen flips and row shifts over it, and the plan as a
    table beside it. ``regenerable`` as for :func:`setup_page`."""
    states, turns, note = solution.states, solution.turns, solution.note
    events = turn_events(states, turns, solution.logs)
    first = states[0]
    setup = first.setup
    W, H = A4_LANDSCAPE
    final = states[-1]
    what = "solution" if final.outcome.status.value == "won" else "plan"
    page = Page(W, H, title=f"{TITLE} {what} {setup.id or ''}".strip())
    page.add(Group("title", [
        Text(12, 11, title or f"{TITLE}  -  {what} {setup.id or ''}".rstrip(), 5.2, anchor="start", bold=True),
        Text(12, 17, f"{len(turns)} turns, {sum(len(t.command.cards) if t.command else 0 for t in turns) + sum(len(t.second.cards) for t in turns if t.second)} cards played"
             + (f" ({note})" if note else "")
             + f"  |  result: {final.outcome}  |  "
             + ("" if first.ship == DOCK else f"from a game in progress, ship at {format_pos(first.ship)}  |  ")
             + "marks show grid positions at the time of each turn", 2.7,
             anchor="start", color=GREY),
    ]))
    s = 18.5
    box = GridBox(x0=12 + 5 + s, y0=25, s=s)
    page.meta["grid"] = box
    page.meta["events"] = events
    draw_grid(page, first.grid, box, hide_down=hide_down, hide_samples=hide_down)

    _draw_flight(page, box, first, events)
    # the plan as a table, and the key under the grid (wide when the table is short)
    table_x = box.x0 + 5 * s + s + s * 0.95 + 4
    table_end = _plan_table(page, events, final, table_x, 25, W - 10 - table_x, H - 22 - 25)
    legend_y = box.bottom + 9
    if table_end < legend_y - 3:
        draw_legend(page, 12, legend_y, hide_down=hide_down, col_w=66, solution=True, ncols=4,
                    row_h=6.4, text_size=2.6)
    else:
        draw_legend(page, 12, legend_y, hide_down=hide_down, col_w=38, solution=True, ncols=4,
                    row_h=6.4, text_size=2.1)
    draw_footer(page, setup, H - 6, regenerable)
    return page


def _draw_flight(page: Page, box: GridBox, first: GameState, events: list[TurnEvents]) -> None:
    """The flight path from the first state's ship, and the marks over the grid: turn
    numbers where turns end, boosts, chosen flips and row shifts."""
    s = box.s
    path_g = Group("path")
    pts: list[tuple[float, float]] = [box.center(first.ship)]
    for ev in events:
        pts += [box.center(p) for p in ev.path]
    if len(pts) > 1:
        path_g.add(Poly(tuple(pts), Style(stroke=WHITE, width=s * 0.11), closed=False))
        path_g.add(Poly(tuple(pts), Style(stroke=INK, width=s * 0.05), closed=False))
    marks = Group("marks")
    ends: dict[Pos, list[int]] = defaultdict(list)
    for ev in events:
        if ev.path:
            ends[ev.path[-1]].append(ev.number)
            assert ev.direction is not None or len(ev.path) == 1
            for p, f in zip(ev.path, ev.entered, strict=False):
                if f is SectorType.BOOST and ev.direction is not None:
                    cx, cy = box.center(p)
                    marks.add(Circle(cx, cy, s * 0.16, Style(stroke=INK, fill=BOOST_MARK, width=s * 0.02)))
                    marks.add(*icons.boost_glyph(cx, cy, s * 0.16, ev.direction, s * 0.018))
    flips: dict[Pos, list[int]] = defaultdict(list)
    shifts: dict[int, list[int]] = defaultdict(list)
    for ev in events:
        for p in ev.flips:
            flips[p].append(ev.number)
        for r in ev.shifts:
            shifts[r].append(ev.number)
    for p, nums in flips.items():
        x, y = box.cell_xy(p)
        for k, n in enumerate(nums[:4]):
            marks.add(*icons.flip_marker(x + s * (0.16 + 0.23 * k), y + s * 0.64, s * 0.11, str(n)))
    for r, nums in shifts.items():
        x, y = box.cell_xy((r, COLS + 1))
        if r == ROWS:
            x += s  # right of Earth
        marks.add(*icons.shift_marker(x + s * 0.08, y + s * 0.5, s * 0.12, _ranges(nums)))
    badge_r = s * 0.12
    for p, nums in ends.items():
        cx, cy = box.center(p)
        label = _ranges(nums)
        marks.add(*icons.turn_badge(cx + s * 0.27, cy - s * 0.27, badge_r * (1.25 if len(label) > 2 else 1), label))
    sx, sy = box.center(first.ship)
    marks.add(*icons.ship_glyph(sx + s * 0.3, sy - s * 0.28, s * 0.12))
    page.add(path_g, marks)


def _plan_table(page: Page, events: list[TurnEvents], final: GameState, x: float, y: float, w: float, h: float) -> float:
    """The plan, one row per turn; returns the y below it."""
    g = Group("plan")
    cols = [("#", 0.06), ("cards", 0.16), ("action", 0.27), ("ship", 0.17), ("re-scan", 0.26), ("sh/v", 0.08)]
    n = len(events) + 2
    rh = max(3.2, min(6.0, h / n))
    fs = min(2.8, rh * 0.55)
    g.add(Text(x, y - 0.5, "Plan", 3.6, anchor="start", bold=True))
    y += 3.5
    xs = [x]
    for _, f in cols:
        xs.append(xs[-1] + f * w)
    g.add(Rect(x, y, w, rh, Style(stroke=None, fill="#dddddd")))
    for (name, _), cx in zip(cols, xs, strict=False):
        g.add(Text(cx + 1, y + rh / 2, name, fs, anchor="start", bold=True))
    y += rh
    for i, ev in enumerate(events):
        if i % 2:
            g.add(Rect(x, y, w, rh, Style(stroke=None, fill="#f1f1f1")))
        a = ev.after
        row = [str(ev.number), _cards_text(ev.turn.command) + (f" / {_cards_text(ev.turn.second)}" if ev.turn.second else ""),
               _action_text(ev), _ship_text(ev), _rescan_text(ev), f"{a.shields}/{a.held}"]
        for text, cx, (_, f) in zip(row, xs, cols, strict=False):
            g.add(Text(cx + 1, y + rh / 2, _fit(text, f * w - 1.5, fs), fs, anchor="start"))
        y += rh
    g.add(Line(x, y, x + w, y, Style(stroke=INK, width=0.25)))
    g.add(Text(x + 1, y + rh * 0.6, f"result: {final.outcome}", fs, anchor="start", bold=True))
    g.add(Text(x + 1, y + rh * 1.6, "ship: position after the turn and the sides entered; sh/v: shields / virus held",
               fs * 0.85, anchor="start", color=GREY))
    g.add(Text(x + 1, y + rh * 2.5, "re-scan: the row shifted left; flip row:columns",
               fs * 0.85, anchor="start", color=GREY))
    start = events[0].before if events else final
    hands = " / ".join(" ".join(h) for h in start.hands)
    g.add(Text(x + 1, y + rh * 3.6, _fit(f"deal: hand {hands}; deck {' '.join(start.deck)}", w, fs * 0.85),
               fs * 0.85, anchor="start", color=GREY))
    page.add(g)
    return y + rh * 4.2


def _fit(text: str, width_mm: float, size: float) -> str:
    # Helvetica averages ~0.5 em a character.
    max_chars = max(3, int(width_mm / (size * 0.47)))
    return text if len(text) <= max_chars else text[: max_chars - 1] + "~"
