"""The dashboard as a person uses it: schedules made with boto3 show up, the clock buttons
move the clock, attempts become marks on the timeline and open their details."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from tests.serve.test_serve import Served
from tests.ui.pages import DLQ, FUNCTION, ROLE, create, open_dashboard, rows


def showing(first: int, last: int, total: int) -> str:
    """The schedules' range as the page writes it, with an en dash."""
    return f"{first}\u2013{last} of {total}"


def wait_for_range(page: Any, first: int, last: int, total: int) -> None:
    page.wait_for_selector(f"#schedules-range:text-is('{showing(first, last, total)}')")


def test_schedules_created_with_boto3_are_listed(page: Any, served: Served) -> None:
    create(served, "hourly-sync")
    create(
        served,
        "morning-report",
        "cron(0 9 * * ? *)",
        ScheduleExpressionTimezone="America/New_York",
    )
    open_dashboard(page, served)
    page.wait_for_selector("#schedules tbody tr")
    listed = rows(page, "schedules")
    assert [line.split("\t")[0] for line in listed] == ["hourly-sync", "morning-report"]
    assert "cron(0 9 * * ? *)" in listed[1] and "America/New_York" in listed[1]
    # The next 09:00 in New York, in UTC and on the schedule's clock.
    assert "2026-03-07 14:00:00Z" in listed[1] and "2026-03-07 09:00:00 EST" in listed[1]
    assert page.inner_text("#schedules-range") == showing(1, 2, 2)
    assert page.inner_text("#stat-schedules") == "2"


def test_the_clock_buttons_move_the_clock_and_the_page_shows_it(page: Any, served: Served) -> None:
    open_dashboard(page, served)
    assert page.inner_text("#now") == "2026-03-07 12:00:00Z"
    steps = [
        ("button:text-is('+1 hour')", "2026-03-07 13:00:00Z"),
        ("button:text-is('+1 min')", "2026-03-07 13:01:00Z"),
        ("button:text-is('+1 day')", "2026-03-08 13:01:00Z"),
    ]
    for button, expected in steps:
        page.click(button)
        page.wait_for_selector(f"#now:text-is('{expected}')")
    page.fill("#advance-amount", "2")
    page.select_option("#advance-unit", "hours")
    page.click("#advance-custom")
    page.wait_for_selector("#now:text-is('2026-03-08 15:01:00Z')")
    page.fill("#move-to-time", "2026-03-10T00:00:00Z")
    page.click("#move-to")
    page.wait_for_selector("#now:text-is('2026-03-10 00:00:00Z')")
    assert served.control("GET", "clock")["now"] == "2026-03-10T00:00:00Z"
    page.click("#tick")
    page.wait_for_selector("#status:has-text('Ticked')")


def test_a_bad_destination_is_shown_as_an_error(page: Any, served: Served) -> None:
    open_dashboard(page, served)
    page.fill("#move-to-time", "2026-03-01T00:00:00Z")
    page.click("#move-to")
    page.wait_for_selector("#status.error")
    assert "2026-03-07" in page.inner_text("#status")
    assert page.inner_text("#now") == "2026-03-07 12:00:00Z"


def test_attempts_become_marks_on_the_timeline_and_open_their_detail(
    page: Any, served: Served
) -> None:
    create(served, "hourly-sync")
    open_dashboard(page, served)
    page.click("button:text-is('+1 hour')")
    page.wait_for_selector("#status:has-text('2 attempts made')")
    expect(page.locator("#timeline svg g.lane g.attempt.delivered")).to_have_count(2)
    assert "Next occurrence" in page.inner_html("#timeline")
    expect(page.locator("#attempts tbody tr")).to_have_count(2)
    listed = rows(page, "attempts")
    assert len(listed) == 2 and "delivered" in listed[0]
    page.click("#attempts tbody tr >> nth=0")
    detail = page.locator("#detail-card")
    detail.wait_for()
    assert page.inner_text("#detail-title") == "Attempt 1 of default/hourly-sync: delivered"
    assert '"user": "ada"' in page.inner_text("[data-testid=attempt-payload]")
    assert "2026-03-07 13:00:00Z" in detail.inner_text()
    # The chosen row is marked at once, and only it.
    marked = "Array.from(document.querySelectorAll('#attempts tbody tr'), r => r.className)"
    assert page.evaluate(marked) == ["selected", ""]
    page.click("#attempts tbody tr >> nth=1")
    assert page.evaluate(marked) == ["", "selected"]


def test_failures_retries_and_dead_letters_are_shown_with_their_details(
    page: Any, served: Served
) -> None:
    create(
        served,
        "charge-invoices",
        target={
            "Arn": FUNCTION,
            "RoleArn": ROLE,
            "RetryPolicy": {"MaximumRetryAttempts": 1},
            "DeadLetterConfig": {"Arn": DLQ},
        },
    )
    served.control("POST", "targets/fail", {"arn": FUNCTION, "error_code": "ThrottlingException"})
    open_dashboard(page, served)
    page.click("button:text-is('+1 min')")
    page.wait_for_selector("#dead-letters tbody tr")
    expect(page.locator("#attempts tbody tr")).to_have_count(2)
    assert "ThrottlingException" in rows(page, "dead-letters")[0]
    assert [re.sub(r"\s+", " ", line) for line in rows(page, "attempts")] == [
        "2026-03-07 12:01:00Z default/charge-invoices 2 failed, retryable ThrottlingException",
        "2026-03-07 12:00:00Z default/charge-invoices 1 failed, retryable ThrottlingException",
    ]
    page.click("#dead-letters tbody tr >> nth=0")
    page.wait_for_selector("#detail-title:text-is('Dead letter of default/charge-invoices')")
    detail = page.inner_text("#detail")
    assert "RETRY_ATTEMPTS" in detail and "MaximumRetryAttempts" in detail
    assert page.locator("#timeline svg .dead-lettered").count() >= 1


def test_the_page_follows_changes_made_elsewhere(page: Any, served: Served) -> None:
    open_dashboard(page, served)
    expect(page.locator("#schedules-empty")).to_be_visible()
    create(served, "made-by-the-application")
    served.control("POST", "clock/advance", {"hours": 2})
    page.wait_for_selector("#schedules tbody tr:has-text('made-by-the-application')")
    page.wait_for_selector("#now:text-is('2026-03-07 14:00:00Z')")
    page.wait_for_selector("#stat-attempts:text-is('3')")


def test_schedules_come_in_pages_and_filter_by_group_state_and_name(
    page: Any, served: Served
) -> None:
    client = served.client()
    client.create_schedule_group(Name="billing")
    for index in range(23):
        create(served, f"job-{index:02d}")
    create(served, "invoice", GroupName="billing", State="DISABLED")
    open_dashboard(page, served)
    wait_for_range(page, 1, 20, 24)
    page.click("#page-next")
    wait_for_range(page, 21, 24, 24)
    assert rows(page, "schedules")[-1].startswith("job-22")
    page.click("#page-prev")
    wait_for_range(page, 1, 20, 24)
    page.click("#groups li[data-group=billing]")
    wait_for_range(page, 1, 1, 1)
    assert rows(page, "schedules")[0].startswith("invoice")
    page.click("#groups li[data-group='']")
    wait_for_range(page, 1, 20, 24)
    page.select_option("#filter-state", "DISABLED")
    wait_for_range(page, 1, 1, 1)
    page.select_option("#filter-state", "")
    page.fill("#filter-prefix", "job-1")
    wait_for_range(page, 1, 10, 10)


def test_choosing_a_schedule_focuses_the_timeline_and_the_attempts(
    page: Any, served: Served
) -> None:
    create(served, "first")
    create(served, "second", "rate(30 minutes)")
    served.control("POST", "clock/advance", {"hours": 1})
    open_dashboard(page, served)
    page.wait_for_selector("#timeline svg")
    assert page.locator("#timeline svg g.lane").count() == 2
    page.click("#schedules tbody tr:has-text('second')")
    page.wait_for_selector("#timeline-scope:text-is('default/second')")
    expect(page.locator("#timeline svg g.lane")).to_have_count(1)
    page.wait_for_selector("#attempts-scope:text-is('default/second')")
    assert {line.split("\t")[1] for line in rows(page, "attempts")} == {"default/second"}


def test_reset_asks_for_a_second_click(page: Any, served: Served) -> None:
    create(served, "doomed")
    open_dashboard(page, served)
    page.wait_for_selector("#schedules tbody tr")
    page.click("#reset")
    assert page.inner_text("#reset") == "Confirm reset"
    assert served.control("GET", "summary")["schedule_count"] == 1
    page.click("#reset")
    page.wait_for_selector("#schedules-empty", state="visible")
    assert served.control("GET", "summary")["schedule_count"] == 0


def test_a_schedule_chosen_before_a_reset_elsewhere_is_let_go(page: Any, served: Served) -> None:
    create(served, "first")
    open_dashboard(page, served)
    page.click("#schedules tbody tr:has-text('first')")
    page.wait_for_selector("#timeline-scope:text-is('default/first')")
    served.control("POST", "reset", {"start": "2026-03-07T12:00:00Z"})
    create(served, "second")
    page.wait_for_selector("#status:has-text('no longer exists')")
    page.wait_for_selector("#timeline-scope:text-is('the 1 schedule of this page')")
    assert page.locator("#status.error").count() == 0
