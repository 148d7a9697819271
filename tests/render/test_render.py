"""Printable sheets: open the produced SVG, PDF and PNG files and check them."""

from __future__ import annotations

import math
import sys
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from demo import boost_plan, boost_setup  # noqa: E402

from sensor_ghosts.puzzles import render_solution, solution_line, solution_of  # noqa: E402
from sensor_ghosts.render import (  # noqa: E402
    Solution,
    booklet,
    setup_page,
    setup_svg,
    solution_page,
    solution_svg,
    turn_events,
    write_pdf,
    write_png,
    write_svg,
)
from sensor_ghosts.render.icons import FILL, START_FILL  # noqa: E402
from sensor_ghosts.rules.cards import SectorType, Side  # noqa: E402
from sensor_ghosts.rules.engine import apply_turn  # noqa: E402
from sensor_ghosts.rules.setup import Slot, replace_cell  # noqa: E402
from sensor_ghosts.rules.state import initial_state  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"


def _flipped_setup():
    """The demo with (2,2) back side up (a dashed ring)."""
    s = boost_setup()
    slot = s.cell((2, 2))
    assert isinstance(slot, Slot)
    return replace(s, grid=replace_cell(s.grid, (2, 2), Slot(slot.card, Side.BACK, slot.sample)))


def _cells(root: ET.Element) -> dict[str, ET.Element]:
    return {g.get("id"): g for g in root.iter(SVG + "g") if (g.get("id") or "").startswith("cell-")}


def _texts(el: ET.Element) -> list[str]:
    return [t.text or "" for t in el.iter(SVG + "text")]


def _boost_solution(note: str = "") -> Solution:
    return solution_line(initial_state(boost_setup()), boost_plan(), note=note)


# ----------------------------------------------------------------------------
# SVG
# ----------------------------------------------------------------------------


def test_svg_parses_with_one_group_per_cell(tmp_path):
    path = tmp_path / "sheet.svg"
    write_svg(setup_page(boost_setup()), path)
    root = ET.parse(path).getroot()
    assert root.tag == SVG + "svg"
    cells = _cells(root)
    assert sorted(cells) == sorted(f"cell-r{r}c{c}" for r in range(1, 8) for c in range(1, 6))
    assert cells["cell-r1c5"].get("class") == "gap"
    assert cells["cell-r1c1"].get("class") == "start"
    assert cells["cell-r1c3"].get("class") == "card O front"
    assert "gap" in _texts(cells["cell-r1c5"])
    assert "S" in _texts(cells["cell-r1c1"])
    ids = {g.get("id") for g in root.iter(SVG + "g")}
    assert {"dock", "earth", "legend", "footer", "labels"} <= ids
    footer = " ".join(_texts(next(g for g in root.iter(SVG + "g") if g.get("id") == "footer")))
    assert "id: boost-demo" in footer and "1 player, standard" in footer


def test_svg_labels_rows_bottom_up_and_columns():
    root = ET.fromstring(setup_svg(boost_setup()))
    labels = next(g for g in root.iter(SVG + "g") if g.get("id") == "labels")
    ys = {t.text: float(t.get("y")) for t in labels.iter(SVG + "text") if t.get("x") and t.text in "1234567"}
    # row labels: the one drawn lowest on the page is the bottom-most; row 1 is at the bottom.
    row_texts = [t for t in labels.iter(SVG + "text") if t.text in list("1234567")]
    rows = [t for t in row_texts if float(t.get("x")) < 40]
    assert [t.text for t in sorted(rows, key=lambda t: -float(t.get("y")))] == list("1234567")
    assert ys  # columns are labelled too
    cols = [t.text for t in row_texts if float(t.get("x")) >= 40]
    assert set(cols) == set("12345")


def test_hide_down_hides_down_sides_and_sample_contents():
    s = boost_setup()
    full = ET.fromstring(setup_svg(s))
    hidden = ET.fromstring(setup_svg(s, hide_down=True))
    fc, hc = _cells(full), _cells(hidden)
    # the virus on (3,1): V in the full sheet, a face-down ? when hidden
    assert "V" in _texts(fc["cell-r3c1"]) and "V" not in _texts(hc["cell-r3c1"])
    assert "?" in _texts(hc["cell-r3c1"])
    # the small down-side ring and the card id are gone
    assert len(list(hc["cell-r2c1"].iter(SVG + "circle"))) < len(list(fc["cell-r2c1"].iter(SVG + "circle")))
    assert not any(t.startswith("#") for t in _texts(hc["cell-r2c1"]))
    assert "was A/E" in _texts(fc["cell-r1c5"]) and "was A/E" not in _texts(hc["cell-r1c5"])


def test_back_side_has_dashed_ring():
    root = ET.fromstring(setup_svg(_flipped_setup(), hide_down=True))
    cells = _cells(root)
    dashed = [c for c in cells["cell-r2c2"].iter(SVG + "circle") if c.get("stroke-dasharray")]
    assert dashed, "a back side is drawn with a dashed ring"
    assert not [c for c in cells["cell-r2c3"].iter(SVG + "circle") if c.get("stroke-dasharray")]
    assert cells["cell-r2c2"].get("class") == "card B back"


def test_state_sheet_draws_ship():
    state = initial_state(boost_setup())
    root = ET.fromstring(setup_svg(state))
    assert any(g.get("id") == "tokens" for g in root.iter(SVG + "g"))
    title = " ".join(_texts(next(g for g in root.iter(SVG + "g") if g.get("id") == "title")))
    assert "ship dock" in title and "shields 0" in title


# ----------------------------------------------------------------------------
# solution page
# ----------------------------------------------------------------------------


def test_turn_events_from_the_engines_log():
    sol = _boost_solution()
    assert sol.states[-1].outcome.status.value == "won"
    ev = turn_events(sol.states, sol.turns, sol.logs)
    assert ev[0].path == [(1, 1)] and ev[0].boosts == 0
    assert ev[0].shifts == [2] and ev[0].flips == [(3, 2), (3, 4)]
    assert ev[1].path == [(r, 1) for r in range(2, 8)] and ev[1].boosts == 5
    assert ev[2].path[-1] == (7, 6) and ev[2].boosts == 4
    assert ev[2].shifts == [] and ev[2].flips == []


def test_solution_svg_has_path_and_table(tmp_path):
    svg = solution_svg(_boost_solution())
    root = ET.fromstring(svg)
    groups = {g.get("id"): g for g in root.iter(SVG + "g") if g.get("id")}
    assert len([k for k in groups if k.startswith("cell-")]) == 35
    assert "path" in groups and "plan" in groups
    table = _texts(groups["plan"])
    assert "fly U, boost x5" in table and "earth BBBB" in table
    assert any(t.startswith("result: won") for t in table)
    assert "shift 2; flip 3:2,4" in table


def test_solution_page_draws_the_log_it_is_given():
    """The page reads what happened from the logs handed to it and replays
    nothing: the same states with each turn's log emptied draw no flight, no
    boost and no re-scan."""
    sol = _boost_solution()
    told = solution_page(sol).meta["events"]
    assert [len(e.path) for e in told] == [1, 6, 5]
    silent = solution_page(Solution(sol.states, sol.turns, [[] for _ in sol.turns])).meta["events"]
    assert all(e.path == [] and e.shifts == [] and e.flips == [] for e in silent)
    with pytest.raises(ValueError, match="states"):
        solution_page(Solution(sol.states[:-1], sol.turns, sol.logs))
    with pytest.raises(ValueError, match="one log per turn"):
        solution_page(Solution(sol.states, sol.turns, sol.logs[:-1]))


def test_solution_line_plays_through_the_engine():
    # One pass through the engine: the states it gives are the engine's, and
    # an illegal turn is refused rather than drawn.
    from sensor_ghosts.rules.errors import IllegalTurnError

    s, plan = boost_setup(), boost_plan()
    sol = solution_line(initial_state(s), plan)
    assert len(sol.states) == 4 and len(sol.logs) == 3
    again = initial_state(s)
    for t, st in zip(plan, sol.states[1:], strict=True):
        again = apply_turn(again, t)
        assert again == st
    with pytest.raises(IllegalTurnError):  # a turn after the game is won
        solution_line(initial_state(s), plan + plan[:1])


def test_render_solution_takes_turns_a_plan_or_a_result():
    # The convenience in puzzles keeps the renderer's old entry point: a list
    # of turns from the setup's start, or anything with .turns (and .deal).
    class Plan:
        def __init__(self, turns, deal):
            self.turns, self.deal = turns, deal

    class Result:
        def __init__(self, plan):
            self.plan = plan

    s = boost_setup()
    for given in (boost_plan(), Plan(boost_plan(), s.deal), Result(Plan(boost_plan(), s.deal))):
        page = render_solution(s, given)
        assert page.meta["events"][-1].after.outcome.status.value == "won"
    with pytest.raises(ValueError, match="no plan"):
        render_solution(s, Result(None))


def test_solution_page_says_what_the_plan_is_optimal_for():
    # A solver plan carries its objective; a fewest-turns plan whose cards were
    # not minimised must not be sold as the full optimum.
    from sensor_ghosts.solver.plan import Plan

    s = boost_setup()
    quick = solution_svg(solution_of(Plan(initial_state(s), boost_plan(), s.deal, objective="turns-only")))
    full = solution_svg(solution_of(Plan(initial_state(s), boost_plan(), s.deal, objective="turns")))
    assert "cards not minimised" in quick and "cards not minimised" not in full
    assert "fewest turns, then fewest cards" in full


def _footer(svg: str) -> str:
    root = ET.fromstring(svg)
    return " ".join(_texts(next(g for g in root.iter(SVG + "g") if g.get("id") == "footer")))


def test_footer_says_regenerate_only_when_told_the_id_is_a_game_id():
    # The renderer does not ask the generator: the caller says whether the id
    # regenerates the setup (puzzles.regenerable asks it).
    from sensor_ghosts.generators import generate_setup
    from sensor_ghosts.puzzles import regenerable

    gen = generate_setup(3)
    assert regenerable(gen) and not regenerable(boost_setup()) and not regenerable(replace(gen, id=None))
    assert f"generate --id '{gen.id}'" in _footer(setup_svg(gen, regenerable=True))
    assert "Keep this setup's file" in _footer(setup_svg(gen))
    # a setup without an id has nothing to regenerate from, whatever it is told
    assert "Keep this setup's file" in _footer(setup_svg(replace(gen, id=None), regenerable=True))
    assert "generate --id" in _footer(solution_svg(_boost_solution(), regenerable=True))
    assert "Keep this setup's file" in _footer(solution_svg(_boost_solution()))


# ----------------------------------------------------------------------------
# PDF and PNG
# ----------------------------------------------------------------------------


def test_pdf_page_count(tmp_path):
    from pypdf import PdfReader

    s = boost_setup()
    one = tmp_path / "one.pdf"
    write_pdf([setup_page(s)], one)
    assert len(PdfReader(one).pages) == 1
    path = tmp_path / "booklet.pdf"
    setups = [replace(s, id=f"p{i}") for i in range(3)]
    n = booklet(setups, path, solutions=[_boost_solution()] * 3)
    reader = PdfReader(path)
    assert n == len(reader.pages) == 6
    w, h = (float(v) for v in reader.pages[0].mediabox.upper_right)
    assert (round(w), round(h)) == (595, 842)  # A4 portrait: puzzle
    w, h = (float(v) for v in reader.pages[3].mediabox.upper_right)
    assert w > h  # landscape: solution
    assert "p0" in reader.pages[0].extract_text()
    assert "Solution 1" in reader.pages[3].extract_text()
    assert not list(tmp_path.glob(".*.tmp"))


def _rgb_close(a, b, tol=40):
    return all(abs(x - y) <= tol for x, y in zip(a, b, strict=False))


def _hex(c: str) -> tuple[int, int, int]:
    return int(c[1:3], 16), int(c[3:5], 16), int(c[5:7], 16)


def test_png_size_and_pixels(tmp_path):
    from PIL import Image

    dpi = 100
    page = setup_page(_flipped_setup(), hide_down=True)
    path = tmp_path / "sheet.png"
    write_png(page, path, dpi=dpi)
    img = Image.open(path).convert("RGB")
    assert img.size == (round(210 / 25.4 * dpi), round(297 / 25.4 * dpi))
    box = page.meta["grid"]
    k = dpi / 25.4

    def px(pos, fx, fy):
        x, y = box.cell_xy(pos)
        return img.getpixel((int((x + fx * box.s) * k), int((y + fy * box.s) * k)))

    # card colours beside the ring
    assert _rgb_close(px((2, 1), 0.12, 0.4), _hex(FILL[SectorType.BOOST]))
    assert _rgb_close(px((1, 3), 0.12, 0.4), _hex(FILL[SectorType.OBSTRUCTED]))
    assert _rgb_close(px((1, 1), 0.12, 0.4), _hex(START_FILL))
    assert _rgb_close(px((1, 5), 0.5, 0.2), (255, 255, 255))  # a gap is blank
    # the skull on the O card is ink above the centre; an E card is white there
    assert sum(px((1, 3), 0.5, 0.45 - 0.27 * 0.45)) < 200
    assert sum(px((1, 4), 0.5, 0.45 - 0.27 * 0.45)) > 700

    # a front ring is solid, a back ring dashed
    def ring_dark_fraction(pos):
        x, y = box.cell_xy(pos)
        cx, cy, r = x + box.s / 2, y + box.s * 0.45, box.s * 0.27
        dark = 0
        for i in range(90):
            a = 2 * math.pi * i / 90
            u, v = round((cx + r * math.cos(a)) * k), round((cy + r * math.sin(a)) * k)
            darkest = min(sum(img.getpixel((u + du, v + dv))) for du in (-1, 0, 1) for dv in (-1, 0, 1))
            dark += darkest < 300
        return dark / 90

    assert ring_dark_fraction((2, 3)) > 0.9
    assert 0.25 < ring_dark_fraction((2, 2)) < 0.8
    # a gap's border is dashed: along its top edge, some dark and some light pixels
    x, y = box.cell_xy((1, 5))
    edge = [sum(img.getpixel((int((x + box.s * f) * k), int((y + box.s * 0.045) * k)))) for f in
            [0.2 + 0.01 * i for i in range(60)]]
    assert min(edge) < 550 and max(edge) > 700


def test_png_solution_page_landscape(tmp_path):
    from PIL import Image

    path = tmp_path / "sol.png"
    write_png(solution_page(_boost_solution()), path, dpi=60)
    assert Image.open(path).size == (round(297 / 25.4 * 60), round(210 / 25.4 * 60))


def test_state_sheet_draws_pod_with_escape_pod_variant():
    from sensor_ghosts.rules.options import RuleOptions

    s = replace(boost_setup(), options=RuleOptions(escape_pod=True))
    root = ET.fromstring(setup_svg(initial_state(s)))
    tokens = next(g for g in root.iter(SVG + "g") if g.get("id") == "tokens")
    assert "P" in _texts(tokens)
    footer = " ".join(_texts(next(g for g in root.iter(SVG + "g") if g.get("id") == "footer")))
    assert "escape-pod" in footer


def test_write_booklet_uses_solver(tmp_path, monkeypatch):
    from pypdf import PdfReader

    import sensor_ghosts.solver as solver_pkg
    from sensor_ghosts.puzzles import write_booklet
    from sensor_ghosts.solver.plan import Plan

    class Result:
        def __init__(self, plan):
            self.plan = plan

    calls = []

    def fake_solve(setup, **kw):
        calls.append(setup.id)
        # the second setup is not solved: it gets no solution page
        return Result(Plan(initial_state(setup), boost_plan(), setup.deal) if setup.id == "b0" else None)

    monkeypatch.setattr(solver_pkg, "solve_staged", fake_solve)
    setups = [replace(boost_setup(), id=f"b{i}") for i in range(2)]
    path = tmp_path / "b.pdf"
    assert write_booklet(setups, path, solutions=True) == 3
    assert calls == ["b0", "b1"]
    assert len(PdfReader(path).pages) == 3
    assert write_booklet(setups, path, solutions=False) == 2
    assert calls == ["b0", "b1"]  # no solving without solutions
    assert len(PdfReader(path).pages) == 2


def test_booklet_footers_follow_each_setups_flag(tmp_path):
    from pypdf import PdfReader

    setups = [replace(boost_setup(), id=f"p{i}") for i in range(2)]
    path = tmp_path / "b.pdf"
    booklet(setups, path, [_boost_solution(), None], regenerable=[True, False])
    texts = [p.extract_text() for p in PdfReader(path).pages]
    assert len(texts) == 3
    assert "generate --id 'p0'" in texts[0] and "Keep this setup" in texts[1]
    assert "generate --id 'boost-demo'" in texts[2]  # the solution's own start
    with pytest.raises(ValueError, match="regenerable"):
        booklet(setups, path, regenerable=[True])


def _with_card_in_hand(state, card: str):
    """``state`` with ``card`` swapped from the deck into the first hand."""
    hand = list(state.hands[0])
    deck = list(state.deck)
    i = deck.index(card)
    deck[i], hand[0] = hand[0], card
    return state.evolve(hands=(tuple(hand),) + state.hands[1:], deck=tuple(deck))


def test_deep_scan_flip_is_marked_but_not_a_rescan():
    """turn_events tells what the engine's log says: a Deep Scan flip is a flip,
    the re-scan's shift and flips are the re-scan's."""
    from sensor_ghosts.render.sheets import _rescan_text
    from sensor_ghosts.rules.turns import Action, ActionKind, Command, PlayedCard, Turn

    st = _with_card_in_hand(initial_state(boost_setup()), "D1")
    turn = Turn(Command((PlayedCard("D1"),), Action(ActionKind.FLIP, target=(5, 2))), rescan=frozenset({1, 3}))
    sol = solution_line(st, [turn])
    (ev,) = turn_events(sol.states, sol.turns, sol.logs)
    assert ev.path == [] and ev.flips == [(5, 2), (3, 1), (3, 3)]
    assert ev.rescan_flips == [(3, 1), (3, 3)] and ev.shifts == [2]
    assert _rescan_text(ev) == "shift 2; flip 3:1,3"
    shift = Turn(Command((PlayedCard("D1"),), Action(ActionKind.SHIFT, row=6)), rescan=frozenset({1, 3}))
    sol = solution_line(st, [shift])
    (ev,) = turn_events(sol.states, sol.turns, sol.logs)
    assert ev.shifts == [6, 2] and ev.rescan_shift == 2


def test_turn_number_labels():
    from sensor_ghosts.render.sheets import _ranges

    assert _ranges([1, 2, 3, 4]) == "1-4"
    assert _ranges([2, 5]) == "2,5"
    assert _ranges([1, 2, 3, 3]) == "1,2,3x2"
