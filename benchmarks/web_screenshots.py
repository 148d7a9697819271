"""Screenshots of the web app's pages for docs/WEB.md, on a computer-sized and
a phone-sized window, in Debian's headless Chromium (driven by Playwright).

    python benchmarks/web_screenshots.py            # writes docs/images/web-*.png

Each page is shot in a fixed state (game ID 1p-standard#7, seed 5 to play, a
0.5 s hint) so that a rerun gives the same pictures apart from the hint's
figures. A PNG over ``MAX_BYTES`` is reduced to a 256-colour palette.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from PIL import Image  # noqa: E402
from playwright.sync_api import Page, expect, sync_playwright  # noqa: E402

from sensor_ghosts.web.server import BackgroundServer  # noqa: E402

OUT = ROOT / "docs" / "images"
MAX_BYTES = 150_000
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]  # fmt: skip
WINDOWS = {"desktop": {"width": 1100, "height": 900}, "phone": {"width": 390, "height": 844}}


def table_with_hint(page: Page, url: str) -> None:
    page.goto(url + "/#table")
    expect(page.locator("#t-status")).to_have_text("A table a game can show.")
    page.select_option("#t-budget", "0.5")
    page.click("#t-hint")
    expect(page.locator("#t-hint-out-best")).to_be_visible(timeout=30_000)
    page.click("#t-cell-3-2")  # the cell editor open on a cell the hint re-scans


def table_refused(page: Page, url: str) -> None:
    page.goto(url + "/#table")
    expect(page.locator("#t-status")).to_have_text("A table a game can show.")
    page.click("#t-cell-4-2")
    page.click("#ed-up-B")
    expect(page.locator(".fault-note")).to_be_visible()
    page.locator("#t-cell-6-1").scroll_into_view_if_needed()


def play(page: Page, url: str) -> None:
    page.goto(url + "/#play")
    page.fill("#p-seed", "5")
    page.click("#p-new")
    expect(page.locator("#p-status")).to_contain_text("Setup 1p-standard#5 · turn 1")
    page.click("#p-cmd-1")
    page.click("#p-rescan-0")
    expect(page.locator("#p-log li")).to_have_count(1)
    page.click("#p-cmd-0")
    page.evaluate("window.scrollTo(0, 0)")


def puzzles(page: Page, url: str) -> None:
    page.goto(url + "/#puzzles")
    page.click("#z-show")
    expect(page.locator("#z-pdf")).to_be_visible(timeout=60_000)


PAGES = {"table": table_with_hint, "table-refused": table_refused, "play": play, "puzzles": puzzles}


def small_png(data: bytes) -> bytes:
    """The PNG as it is, or as a 256-colour palette image when it is too large."""
    if len(data) <= MAX_BYTES:
        return data
    img = Image.open(io.BytesIO(data)).convert("RGB").quantize(colors=256)
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=True)
    return buf.getvalue()


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with BackgroundServer(workers=2) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        for window, size in WINDOWS.items():
            context = browser.new_context(viewport=size, is_mobile=window == "phone",
                                          device_scale_factor=1)
            for name, setup in PAGES.items():
                page = context.new_page()
                setup(page, url)
                png = small_png(page.screenshot())
                path = OUT / f"web-{name}-{window}.png"
                path.write_bytes(png)
                print(f"{path.relative_to(ROOT)}: {len(png) / 1000:.0f} KB")
                page.close()
            context.close()
        browser.close()


if __name__ == "__main__":
    main()
