"""The status line of a clock move says how many attempts it made and, when ``max_records``
kept fewer, how many are kept."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.serve.test_serve import Served
from tests.ui.conftest import START
from tests.ui.pages import create, open_dashboard


@pytest.fixture
def capped() -> Iterator[Served]:
    served = Served("--clock", "virtual", "--start", START, "--max-records", "10")
    yield served
    served.stop()


def test_a_move_beyond_max_records_says_how_many_were_made_and_how_many_kept(
    page: Any, capped: Served
) -> None:
    create(capped, "every-minute", "rate(1 minute)")
    open_dashboard(page, capped)
    page.click("button:text-is('+1 hour')")
    page.wait_for_selector("#status:has-text('61 attempts made, the newest 10 kept')")


def test_a_move_that_keeps_all_it_made_says_only_how_many(page: Any, capped: Served) -> None:
    create(capped, "hourly", "rate(1 hour)")
    open_dashboard(page, capped)
    page.click("button:text-is('+1 hour')")
    page.wait_for_selector("#status:has-text('2 attempts made.')")
    assert "kept" not in page.inner_text("#status")
