"""The dashboard's moves by events: "Next" moves the clock to the next pending work, and a
schedule's "Run now" fires it without moving the clock."""

from __future__ import annotations

from typing import Any

from tests.serve.test_serve import Served
from tests.ui.pages import QUEUE, ROLE, clipped, create, open_dashboard, rows


def test_next_moves_the_clock_to_the_next_occurrence(page: Any, served: Served) -> None:
    create(served, "quarter", "rate(15 minutes)")
    create(served, "later", "at(2026-03-07T12:40:00)")
    open_dashboard(page, served)
    for expected in ("2026-03-07 12:00:00Z", "2026-03-07 12:15:00Z", "2026-03-07 12:30:00Z"):
        page.click("#next")
        page.wait_for_selector(f"#now:text-is('{expected}')")
        page.wait_for_selector("#status:has-text('Moved to the next work')")
        assert "1 attempt made" in page.inner_text("#status")
    page.click("#next")
    page.wait_for_selector("#now:text-is('2026-03-07 12:40:00Z')")
    assert served.control("GET", "clock")["now"] == "2026-03-07T12:40:00Z"
    page.wait_for_selector("#attempts tbody tr:nth-child(4)")
    assert "default/later" in rows(page, "attempts")[0]


def test_next_with_nothing_pending_says_so(page: Any, served: Served) -> None:
    open_dashboard(page, served)
    page.click("#next")
    page.wait_for_selector("#status.error")
    assert "Nothing is pending" in page.inner_text("#status")
    assert page.inner_text("#now") == "2026-03-07 12:00:00Z"


def test_run_now_fires_a_schedule_without_moving_the_clock(
    laptop_page: Any, served: Served
) -> None:
    page = laptop_page
    create(served, "morning-report", "cron(0 9 * * ? *)")
    create(served, "hourly-sync")
    open_dashboard(page, served)
    page.wait_for_selector("#schedules tbody tr")
    page.click("tr[data-arn$='/morning-report'] button:text-is('Run now')")
    page.wait_for_selector("#status:has-text('Ran default/morning-report now')")
    assert "attempt 1 delivered" in page.inner_text("#status")
    page.wait_for_selector("#attempts tbody tr")
    (attempt,) = rows(page, "attempts")
    assert "default/morning-report" in attempt
    assert page.inner_text("#now") == "2026-03-07 12:00:00Z"
    # The row was not chosen by the button's click, and nothing in the table is cut off.
    assert page.locator("tr.selected").count() == 0
    assert clipped(page, "#schedules td, #schedules th") == []


def test_run_now_of_a_failing_target_shows_the_failure(page: Any, served: Served) -> None:
    create(served, "daily", "rate(1 day)", target={"Arn": QUEUE, "RoleArn": ROLE})
    served.control("POST", "targets/fail", {"arn": QUEUE})
    open_dashboard(page, served)
    page.click("button:text-is('Run now')")
    page.wait_for_selector("#status.error")
    assert "failed (InternalServerError)" in page.inner_text("#status")
    pending = served.control("GET", "pending")["pending"]
    (retry,) = [w for w in pending if w["kind"] == "retry"]
    assert (retry["attempt_number"], retry["fired"], retry["due"]) == (
        2,
        True,
        "2026-03-07T12:01:00Z",
    )
