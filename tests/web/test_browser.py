"""The pages in a real headless browser: enter a table by tapping, get a hint,
import an exported table, see an impossible table refused next to its cell,
play a game to its end, see a puzzle's pages."""

from __future__ import annotations

import re

import pytest

from .conftest import need_browser

need_browser()  # skip (or, under CI, fail) before importing playwright
from playwright.sync_api import expect  # noqa: E402

# One server and one browser for the module: its tests stay on one xdist worker.
pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"), pytest.mark.xdist_group("web-browser")]


def open_table(page, url: str) -> None:
    page.goto(url + "/#table")
    expect(page.locator("#t-status")).to_have_text("A table a game can show.")


def test_enter_a_table_by_tapping_and_see_an_impossible_one_refused(page, live_url):
    open_table(page, live_url)
    page.click("#t-cell-4-2")
    expect(page.locator("#t-editor")).to_contain_text("Cell 4,2")
    page.click("#ed-up-B")  # one Boost front too many for the card set
    expect(page.locator("#t-status")).to_contain_text("Impossible table")
    expect(page.locator("#t-cell-4-2")).to_have_class(re.compile(r"\bfault\b"))
    expect(page.locator(".fault-note")).to_contain_text("Row 4, column 2")
    page.click("#ed-up-A")  # back as it was
    expect(page.locator("#t-status")).to_have_text("A table a game can show.")
    # The ship flies onto the start card; it enters it and sees it (Empty both sides).
    page.click("#t-cell-1-1")
    page.click("#ed-ship")
    page.click("#hand-F6")  # F6 played ...
    page.click("#disc-add-F6")  # ... onto the discard pile, heading right
    page.click("#disc-0")
    page.click("#disc-0")
    page.click("#f-deck-minus")
    page.click("#hand-F2")  # the card drawn
    expect(page.locator("#t-status")).to_have_text("A table a game can show.")
    expect(page.locator("#t-cell-1-1 .ship")).to_have_count(1)


def test_hint_shows_the_best_turn_on_the_grid(page, live_url):
    open_table(page, live_url)
    page.select_option("#t-budget", "0.5")
    page.click("#t-hint")
    best = page.locator("#t-hint-out-best")
    expect(best).to_contain_text("Best: F")
    expect(page.locator("#t-hint-out")).to_contain_text("% to win")
    expect(page.locator("#t-hint-out")).to_contain_text("Runner-up")
    # The turn drawn on the grid: the cells entered, peeked at or flipped.
    assert page.locator("#t-grid .path, #t-grid .peek, #t-grid .rescan, #t-grid .flip").count() > 0


def test_export_then_import_a_table(page, live_url):
    open_table(page, live_url)
    page.click("#f-shields-1")
    page.click("#t-io summary")
    page.click("#t-export")
    expect(page.locator("#t-text")).to_have_value(re.compile(r"shields: 1"))
    text = page.input_value("#t-text")
    page.fill("#t-text", text.replace("shields: 1", "shields: 2"))
    page.click("#t-import")
    expect(page.locator("#t-io-msg")).to_have_text("Imported.")
    expect(page.locator("#f-shields-2")).to_have_class(re.compile(r"\bon\b"))
    # Text no game can read is refused with the reason and the cell.
    bad = re.sub(r"^7: \S+", "7: Xq", text, count=1, flags=re.M)
    page.fill("#t-text", bad)
    page.click("#t-import")
    expect(page.locator("#t-io-msg")).to_contain_text("row 7, column 1")


def test_play_a_game_to_its_end(page, live_url):
    page.goto(live_url + "/#play")
    page.fill("#p-seed", "5")
    page.click("#p-new")
    expect(page.locator("#p-status")).to_contain_text("Setup 1p-standard#5 · turn 1")
    hand = page.locator("#p-hand button").first.inner_text()
    page.fill("#p-turn", f"bolster 1; {hand} fly R")
    page.click("#p-play")
    expect(page.locator("#p-msg")).to_contain_text("not allowed: cannot bolster")
    page.click("#p-hint")
    expect(page.locator("#p-hint-out-best")).to_contain_text("Best:", timeout=30_000)
    page.click("#p-cmd-0")
    page.click("#p-rescan-0")
    expect(page.locator("#p-log li")).to_have_count(1)
    page.click("#p-undo")
    expect(page.locator("#p-log li")).to_have_count(0)
    for _ in range(40):  # the first command each turn: a short game, won or lost
        if page.locator("#p-end").is_visible():
            break
        turns = page.locator("#p-log li").count()
        page.click("#p-cmd-0")
        page.click("#p-rescan-0")
        expect(page.locator("#p-log li")).to_have_count(turns + 1)
    expect(page.locator("#p-outcome")).to_have_text(re.compile(r"^(Won|Lost)"))
    # The end shows the whole table: a sample's content is revealed.
    expect(page.locator("#p-grid .sample").first).to_contain_text(re.compile("virus|rock"))
    # ... and the way to the setup's solution page.
    page.click("#p-solution-link")
    expect(page.locator("#z-gameid")).to_have_value("1p-standard#5")
    expect(page.locator("#z-pdf")).to_be_visible(timeout=60_000)


def test_puzzle_pages(page, live_url):
    page.goto(live_url + "/#puzzles")
    page.click("#z-show")
    expect(page.locator("#z-pdf")).to_be_visible(timeout=60_000)
    for img in ("#z-sheet", "#z-solution"):
        assert page.eval_on_selector(img, "i => i.complete && i.naturalWidth > 0")
    assert page.get_attribute("#z-pdf", "href").endswith("/puzzle.pdf")


def test_grid_fits_a_phone(browser, live_url):
    context = browser.new_context(viewport={"width": 375, "height": 740}, is_mobile=True)
    pg = context.new_page()
    pg.goto(live_url + "/#table")
    expect(pg.locator("#t-status")).to_have_text("A table a game can show.")
    grid = pg.locator("#t-grid .grid").bounding_box()
    cell = pg.locator("#t-cell-1-5").bounding_box()
    assert grid is not None and cell is not None
    assert grid["x"] >= 0 and grid["x"] + grid["width"] <= 375
    assert cell["width"] >= 40 and cell["height"] >= 40  # a tap target
    context.close()


def test_a_long_hint_shows_progress_and_can_be_cancelled(page, live_url):
    open_table(page, live_url)
    page.select_option("#t-budget", "2")
    page.click("#t-hint")
    expect(page.locator("#t-progress")).to_be_visible()
    page.click("#t-progress .cancel")
    expect(page.locator("#t-hint-out")).to_have_text("Hint cancelled.")
    expect(page.locator("#t-progress")).to_be_hidden()
    page.wait_for_timeout(600)  # a late answer must not replace the message
    expect(page.locator("#t-hint-out")).to_have_text("Hint cancelled.")
