"""A live server and a headless Chromium (Debian's, never a downloaded one),
shared by a test module. Without /usr/bin/chromium the browser tests skip,
except under CI (the CI variable set), where they fail: CI must not skip them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]  # fmt: skip


def need_browser() -> None:
    missing = []
    if not Path(CHROMIUM).exists():
        missing.append(CHROMIUM)
    try:
        import playwright  # noqa: F401
    except ImportError:
        missing.append("the playwright package")
    if missing:
        why = "browser tests need " + " and ".join(missing)
        if os.environ.get("CI"):
            pytest.fail(why + " (CI installs them: .ci/run)")
        pytest.skip(why, allow_module_level=True)


@pytest.fixture(scope="module")
def live_url():
    from sensor_ghosts.web.server import BackgroundServer

    with BackgroundServer(workers=2) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    need_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser, live_url):
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.set_default_timeout(20_000)
    yield pg
    context.close()
    assert not errors, f"JavaScript errors: {errors}"
