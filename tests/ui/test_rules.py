"""The dashboard's Rules table on a laptop's screen (1280 pixels): the rules an EventBridge
client made, with their targets, state and next occurrence, and each target's "Run now"
(and a rule's "Run all"), which sends the rule's event without moving the clock."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from tests.serve.test_serve import Served
from tests.ui.pages import (
    FUNCTION,
    QUEUE,
    clipped,
    create,
    events_client,
    open_dashboard,
    overlapping,
    rows,
    shoot,
)

REPORT = "tr[data-rule-arn$=':rule/nightly-report']"


def make_rules(served: Served) -> None:
    """A scheduled rule with two targets, a disabled one and one with only a pattern,
    beside a schedule."""
    events = events_client(served)
    events.put_rule(
        Name="nightly-report", ScheduleExpression="rate(1 hour)", Description="the hourly sums"
    )
    events.put_targets(
        Rule="nightly-report",
        Targets=[{"Id": "report", "Arn": QUEUE}, {"Id": "audit", "Arn": FUNCTION}],
    )
    events.put_rule(Name="paused", ScheduleExpression="cron(0 2 * * ? *)", State="DISABLED")
    events.put_targets(Rule="paused", Targets=[{"Id": "cleanup", "Arn": QUEUE}])
    events.put_rule(Name="orders", EventPattern='{"source": ["orders"]}')
    create(served, "hourly-sync")


def delivered(served: Served) -> list[tuple[str, bool]]:
    """(target id, fired) of each delivery of the rule, as the served control API lists it."""
    answer = served.control("GET", "attempts?rule=nightly-report&outcome=succeeded")
    return [(attempt["target_id"], attempt["fired"]) for attempt in answer["attempts"]]


def test_the_rules_table_lists_rules_with_their_targets_state_and_next_occurrence(
    laptop_page: Any, served: Served, tmp_path: Path
) -> None:
    page = laptop_page
    make_rules(served)
    open_dashboard(page, served)
    expect(page.locator("#rules tbody tr")).to_have_count(3)
    listed = [[cell.strip() for cell in line.split("\t")] for line in rows(page, "rules")]
    assert [cells[0].split("\n")[0] for cells in listed] == ["nightly-report", "orders", "paused"]
    report, orders, paused = listed
    assert report[1:4] == ["rate(1 hour)", "enabled", "2026-03-07 13:00:00Z"]
    assert "the hourly sums" in report[0]
    assert [" ".join(line.split()) for line in report[4].split("\n")] == [
        "report reminders",
        "not run yet",
        "Run now",
        "audit charge",
        "not run yet",
        "Run now",
    ]
    assert orders[1:5] == ["event pattern", "enabled", "none", "no targets"]
    assert paused[1:4] == ["cron(0 2 * * ? *)", "disabled", "none"]
    # A pattern has no event of its own to run; a rule with one target needs no "Run all".
    assert page.locator("tr[data-rule-arn$=':rule/orders'] button").count() == 0
    assert page.locator("tr[data-rule-arn$=':rule/paused'] button").all_inner_texts() == ["Run now"]
    assert page.locator(f"{REPORT} button").all_inner_texts() == ["Run now", "Run now", "Run all"]
    assert clipped(page, "#rules td, #rules th, #rules .rule-target-text") == []
    assert overlapping(page, "#rules .rule-target-text, #rules button") == []
    assert overlapping(page, "#rules th") == []
    shoot(page, tmp_path, "rules")


def test_run_now_sends_the_rules_event_to_one_target_and_the_table_shows_it(
    laptop_page: Any, served: Served, tmp_path: Path
) -> None:
    page = laptop_page
    make_rules(served)
    open_dashboard(page, served)
    page.click(f"{REPORT} [data-target-id='audit'] button:text-is('Run now')")
    page.wait_for_selector("#status:has-text('Ran rule nightly-report now')")
    assert page.inner_text("#status").endswith("at 2026-03-07 12:00:00Z: audit delivered.")
    assert delivered(served) == [("audit", True)]
    expect(page.locator(f"{REPORT} [data-target-id='audit']")).to_contain_text(
        "last 2026-03-07 12:00:00Z: delivered, run by hand"
    )
    assert "not run yet" in page.inner_text(f"{REPORT} [data-target-id='report']")
    assert page.inner_text("#now") == "2026-03-07 12:00:00Z"
    page.wait_for_selector("#attempts tbody tr")
    assert "rule nightly-report → audit" in rows(page, "attempts")[0]
    # "Run all": one event to both targets.
    page.click(f"{REPORT} button:text-is('Run all')")
    page.wait_for_selector("#status:has-text('report delivered, audit delivered')")
    assert delivered(served) == [("audit", True), ("report", True), ("audit", True)]
    expect(page.locator(f"{REPORT} [data-target-id='report']")).to_contain_text("run by hand")
    # A disabled rule runs when asked, as a disabled schedule does.
    page.click("tr[data-rule-arn$=':rule/paused'] button:text-is('Run now')")
    page.wait_for_selector("#status:has-text('Ran rule paused now')")
    assert clipped(page, "#rules td, #rules th, #rules .rule-target-text") == []
    assert overlapping(page, "#rules .rule-target-text, #rules button") == []
    page.screenshot(path="/tmp/schedemu-rules-table.png", full_page=True)
    shoot(page, tmp_path, "rules-run")


def test_run_now_of_a_rule_deleted_elsewhere_says_so(laptop_page: Any, served: Served) -> None:
    page = laptop_page
    make_rules(served)
    open_dashboard(page, served)
    page.wait_for_selector("tr[data-rule-arn$=':rule/paused']")
    # The page stays as it was until its next poll: hold the polls, so that under load one
    # cannot land between the deletion and the click and take the row away.
    page.route("**/_schedemu/summary*", lambda route: None)
    with page.expect_request("**/_schedemu/summary*"):
        pass
    events = events_client(served)
    events.remove_targets(Rule="paused", Ids=["cleanup"])
    events.delete_rule(Name="paused")
    page.click("tr[data-rule-arn$=':rule/paused'] button:text-is('Run now')")
    page.wait_for_selector("#status.error")
    assert "No rule 'paused' is stored" in page.inner_text("#status")
