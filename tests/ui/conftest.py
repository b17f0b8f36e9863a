"""The dashboard in a real browser: headless Chromium (Debian's ``chromium``) driven by
Playwright, against ``schedemu serve`` running as its own process.

A missing browser fails these tests with what to install; they skip only when
``SCHEDEMU_SKIP_BROWSER=1`` says so.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from tests.serve.test_serve import Served

START = "2026-03-07T12:00:00Z"
BROWSER_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium_path() -> str:
    """Debian's Chromium, or the one ``SCHEDEMU_CHROMIUM`` names."""
    wanted = os.environ.get("SCHEDEMU_CHROMIUM", "/usr/bin/chromium")
    found = shutil.which(wanted) if not os.path.isabs(wanted) else wanted
    if not found or not os.path.exists(found):
        pytest.fail(
            f"The dashboard's browser tests need Chromium at {wanted}: install it with "
            "`apt-get install chromium` (or point SCHEDEMU_CHROMIUM at one), or set "
            "SCHEDEMU_SKIP_BROWSER=1 to skip them.",
            pytrace=False,
        )
    return found


# Per module, not per session: Playwright's sync API keeps an event loop running in the
# thread while it is started, and a test of another module that calls asyncio.run in the
# same worker would fail against it.
@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if os.environ.get("SCHEDEMU_SKIP_BROWSER") == "1":
        pytest.skip("SCHEDEMU_SKIP_BROWSER=1: the dashboard's browser tests are skipped")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail(
            "The dashboard's browser tests need Playwright: pip install -e '.[test]'",
            pytrace=False,
        )
    executable = chromium_path()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=BROWSER_ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def server() -> Iterator[Served]:
    served = Served("--clock", "virtual", "--start", START)
    yield served
    served.stop()


@pytest.fixture
def served(server: Served) -> Served:
    """The module's ``schedemu serve``, emptied, with its clock at the start."""
    server.control("POST", "reset", {"start": START})
    return server


def opened_page(browser: Any, width: int) -> Iterator[Any]:
    """A new page ``width`` pixels wide; the test fails if the page's script raised."""
    context = browser.new_context(viewport={"width": width, "height": 1000})
    opened = context.new_page()
    opened.set_default_timeout(10_000)
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    yield opened
    context.close()
    assert errors == [], f"the page raised: {errors}"


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    yield from opened_page(browser, 1440)


@pytest.fixture
def laptop_page(browser: Any) -> Iterator[Any]:
    """A page as wide as a laptop's screen (1280 pixels), where the panes are tightest."""
    yield from opened_page(browser, 1280)
