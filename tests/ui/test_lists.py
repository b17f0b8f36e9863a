"""What the dashboard's lists show on a laptop's screen (1280 pixels): attempts by outcome,
schedules deleted during the run kept in the list as they are on the timeline, and every
field written as text. Each test keeps a picture of the page in its tmp_path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from tests.serve.test_serve import Served
from tests.ui.pages import (
    DLQ,
    FUNCTION,
    QUEUE,
    ROLE,
    create,
    events_client,
    open_dashboard,
    rows,
    shoot,
)

OUTCOME_CELLS = (
    "Array.from(document.querySelectorAll('#attempts tbody tr td:last-child'), c => c.innerText)"
)


def choose_outcome(page: Any, label: str, count: int) -> list[str]:
    """Click an outcome's button and wait for its ``count`` attempts to be listed."""
    page.click(f"#attempts-card [data-outcome]:text-is('{label}')")
    page.wait_for_selector(f"#attempts-card [data-outcome].active:text-is('{label}')")
    expect(page.locator("#attempts tbody tr")).to_have_count(count)
    empty = expect(page.locator("#attempts-empty"))
    empty.to_be_hidden() if count > 0 else empty.to_be_visible()
    return [text.strip() for text in page.evaluate(OUTCOME_CELLS)]


def test_attempts_are_filtered_by_outcome_on_the_server(
    laptop_page: Any, served: Served, tmp_path: Path
) -> None:
    page = laptop_page
    create(
        served,
        "charge",
        "at(2026-03-07T12:00:00)",
        target={"Arn": FUNCTION, "RoleArn": ROLE, "RetryPolicy": {"MaximumRetryAttempts": 1}},
    )
    served.control("POST", "targets/fail", {"arn": FUNCTION, "error_code": "ThrottlingException"})
    # Forty deliveries after the two failures: the newest thirty listed hold no failure,
    # so only a filter on the server finds them.
    create(served, "ping", "rate(1 minute)")
    served.control("POST", "clock/advance", {"minutes": 40})
    open_dashboard(page, served)
    expect(page.locator("#attempts tbody tr")).to_have_count(30)
    assert all(text == "delivered" for text in page.evaluate(OUTCOME_CELLS))
    assert page.locator("#attempts-card [data-outcome].active").inner_text() == "All"

    failed = choose_outcome(page, "Failed", 2)
    shoot(page, tmp_path, "failed-attempts")
    assert failed == ["failed, retryable\nThrottlingException"] * 2
    assert {line.split("\t")[1] for line in rows(page, "attempts")} == {"default/charge"}

    delivered = choose_outcome(page, "Delivered", 30)
    assert set(delivered) == {"delivered"}
    choose_outcome(page, "All", 30)

    # The filter holds with a schedule chosen, and says when it finds nothing.
    page.click("#schedules tbody tr:has-text('ping')")
    page.wait_for_selector("#attempts-scope:text-is('default/ping')")
    assert choose_outcome(page, "Failed", 0) == []
    assert page.inner_text("#attempts-empty") == "No failed attempts."


def test_deleted_schedules_stay_listed_greyed_with_when_and_how(
    laptop_page: Any, served: Served, tmp_path: Path
) -> None:
    page = laptop_page
    create(served, "trial-reminder", "at(2026-03-07T12:30:00)", ActionAfterCompletion="DELETE")
    create(served, "weekly-report")
    create(served, "cancelled-plan")
    served.control("POST", "clock/advance", {"hours": 1})
    served.client().delete_schedule(Name="cancelled-plan")
    open_dashboard(page, served)
    expect(page.locator("#schedules tbody tr")).to_have_count(3)
    shoot(page, tmp_path, "deleted-schedules")
    listed = {line.split("\t")[0]: line for line in rows(page, "schedules")}
    assert "deleted\n2026-03-07 12:30:00Z\nafter its last occurrence" in listed["trial-reminder"]
    assert "deleted\n2026-03-07 13:00:00Z\nby DeleteSchedule" in listed["cancelled-plan"]
    assert "enabled" in listed["weekly-report"] and "deleted" not in listed["weekly-report"]
    deleted = page.locator("#schedules tbody tr.deleted")
    assert deleted.count() == 2
    # Greyed: a deleted schedule's name is written in the faint grey, a stored one's not.
    colour = "(row) => getComputedStyle(row.querySelector('td')).color"
    faint = "rgb(148, 163, 184)"
    assert [row.evaluate(colour) for row in deleted.all()] == [faint, faint]
    assert page.locator("#schedules tbody tr:not(.deleted)").evaluate(colour) != faint
    # As on the timeline, where each keeps its lane, marked deleted.
    expect(page.locator("#timeline svg g.lane.deleted")).to_have_count(2)

    page.select_option("#filter-state", "DELETED")
    expect(page.locator("#schedules tbody tr")).to_have_count(2)
    assert sorted(line.split("\t")[0] for line in rows(page, "schedules")) == [
        "cancelled-plan",
        "trial-reminder",
    ]
    page.select_option("#filter-state", "ENABLED")
    expect(page.locator("#schedules tbody tr")).to_have_count(1)

    # A deletion made while the page is open shows at the next poll.
    page.select_option("#filter-state", "")
    served.client().delete_schedule(Name="weekly-report")
    page.wait_for_selector("#schedules tbody tr.deleted:has-text('weekly-report')")


HOSTILE = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>&amp;'


def test_every_field_is_written_as_text(laptop_page: Any, served: Served, tmp_path: Path) -> None:
    page = laptop_page
    target = {
        "Arn": FUNCTION,
        "RoleArn": ROLE,
        "Input": '{"note": "' + HOSTILE.replace('"', '\\"') + '"}',
        "RetryPolicy": {"MaximumRetryAttempts": 0},
        "DeadLetterConfig": {"Arn": DLQ},
    }
    create(served, "hostile", Description=HOSTILE, target=target)
    create(served, "hostile-gone", Description=HOSTILE, target={"Arn": QUEUE, "RoleArn": ROLE})
    served.control(
        "POST",
        "targets/fail",
        {"arn": FUNCTION, "error_code": HOSTILE, "message": HOSTILE, "retryable": False},
    )
    served.control("POST", "clock/advance", {"minutes": 1})
    served.client().delete_schedule(Name="hostile-gone")
    open_dashboard(page, served)
    page.wait_for_selector("#schedules tbody tr.deleted")
    page.wait_for_selector("#dead-letters tbody tr")
    page.click("#attempts tbody tr:has-text('failed') >> nth=0")
    page.wait_for_selector("[data-testid=attempt-payload]")
    attempt = page.inner_text("#detail")
    page.click("#dead-letters tbody tr >> nth=0")
    page.wait_for_selector("#detail-title:has-text('Dead letter of')")
    shoot(page, tmp_path, "hostile-text")
    letter = page.inner_text("#detail")
    assert page.evaluate("window.pwned") is None
    assert page.locator("body img, body script").count() == 0
    assert page.locator("main [onerror]").count() == 0
    for shown in (
        *page.locator("#schedules tbody tr").all_inner_texts(),
        page.inner_text("#dead-letters tbody tr"),
        attempt,
        letter,
    ):
        assert HOSTILE in shown.replace("\n", "")


def test_a_rule_targets_records_are_listed_by_its_rule_and_target(
    page: Any, served: Served, tmp_path: Path
) -> None:
    events = events_client(served)
    events.put_rule(Name="nightly", ScheduleExpression="rate(1 hour)")
    failing = {"RetryPolicy": {"MaximumRetryAttempts": 0}, "DeadLetterConfig": {"Arn": DLQ}}
    events.put_targets(Rule="nightly", Targets=[{"Id": "q", "Arn": FUNCTION, **failing}])
    served.control("POST", "targets/fail", {"arn": FUNCTION})
    served.control("POST", "clock/advance", {"minutes": 61})
    open_dashboard(page, served)
    page.wait_for_selector("#dead-letters tbody tr")
    # Its records name no schedule: the lists name its rule and its target.
    assert [line.split("\t")[1] for line in rows(page, "attempts")] == ["rule nightly → q"]
    assert "rule nightly → q" in rows(page, "dead-letters")[0]
    page.click("#attempts tbody tr >> nth=0")
    page.wait_for_selector("#detail-title:has-text('Attempt 1 of rule nightly → q')")
    assert "Rule target id" in page.inner_text("#detail")
    page.click("#dead-letters tbody tr >> nth=0")
    page.wait_for_selector("#detail-title:has-text('Dead letter of rule nightly → q')")
    shoot(page, tmp_path, "rule-records")
