"""The dashboard on a laptop's screen (1280 pixels): long ARNs, attribute names, error codes
and bodies stay whole and readable. Each test keeps a picture of the page in its tmp_path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.serve.test_serve import Served
from tests.ui.pages import ROLE, clipped, create, open_dashboard, overlapping, row_count, shoot

GROUP = "subscriptions-and-billing-of-the-customers"
NAME = "charge-monthly-subscription-invoices-for-every-customer"
FUNCTION = (
    "arn:aws:lambda:us-east-1:123456789012:function:"
    "charge-the-monthly-subscription-invoices-of-every-customer-in-every-region"
)
DLQ = "arn:aws:sqs:us-east-1:123456789012:subscription-billing-dead-letters-for-the-invoices"
ERROR_CODE = "KMSAccessDeniedExceptionForTheCustomerManagedKey"
PAYLOAD = {"user": "ada", "note": "x" * 400, "items": list(range(60))}


@pytest.fixture
def failing(served: Served) -> Served:
    """A schedule with long names whose long-named function fails for good: each hourly
    occurrence is one failed attempt and one dead letter with a long error code."""
    served.client().create_schedule_group(Name=GROUP)
    create(
        served,
        NAME,
        GroupName=GROUP,
        target={
            "Arn": FUNCTION,
            "RoleArn": ROLE,
            "Input": json.dumps(PAYLOAD),
            "DeadLetterConfig": {"Arn": DLQ},
        },
    )
    served.control(
        "POST",
        "targets/fail",
        {
            "arn": FUNCTION,
            "error_code": ERROR_CODE,
            "message": f"The function {FUNCTION} cannot decrypt its environment",
            "retryable": False,
        },
    )
    served.control("POST", "clock/advance", {"hours": 2})
    return served


def pretty(value: Any) -> str:
    """A JSON value as the details panel writes it (JSON.stringify with 2 spaces)."""
    return json.dumps(value, indent=2, ensure_ascii=False)


def assert_whole_and_scrollable(page: Any, selector: str, expected: str) -> None:
    """The box shows every character of ``expected``: no line runs past its right edge,
    and what is taller than the box scrolls."""
    box = page.locator(selector)
    assert box.text_content() == expected
    assert clipped(page, selector) == []
    height = box.evaluate("(node) => [node.scrollHeight, node.clientHeight]")
    if height[0] > height[1]:
        assert box.evaluate("(node) => getComputedStyle(node).overflowY") in ("auto", "scroll")


def show_newest(page: Any, served: Served, table: str, shown: str) -> None:
    """Open the page and the details of the newest row of ``table``."""
    open_dashboard(page, served)
    page.wait_for_selector(f"#{table} tbody tr")
    page.click(f"#{table} tbody tr >> nth=0")
    page.wait_for_selector(shown)


def assert_fields_readable(page: Any) -> None:
    """Every name and value of the details panel shows whole, and none covers another."""
    assert clipped(page, "#detail-card, #detail, #detail-title, #detail dt, #detail dd") == []
    assert overlapping(page, "#detail dt, #detail dd") == []
    assert overlapping(page, "#detail-title, #detail-close") == []


def test_a_dead_letters_details_wrap_long_arns_and_names_without_overlap(
    laptop_page: Any, failing: Served, tmp_path: Path
) -> None:
    show_newest(laptop_page, failing, "dead-letters", "#detail-title:has-text('Dead letter of')")
    shoot(laptop_page, tmp_path, "dead-letter-details")
    detail = laptop_page.inner_text("#detail")
    assert "IS_PAYLOAD_TRUNCATED" in detail.replace("\n", "") and ERROR_CODE in detail
    assert_fields_readable(laptop_page)
    [letter] = failing.control("GET", "dead-letters?order=newest&limit=1")["dead_letters"]
    body = pretty(letter["payload"])
    assert_whole_and_scrollable(laptop_page, "[data-testid=dead-letter-body]", body)
    # What the function would have received, beside the Invoke request the queue holds.
    assert json.loads(letter["input"]) == PAYLOAD
    assert_whole_and_scrollable(laptop_page, "[data-testid=dead-letter-input]", pretty(PAYLOAD))


def test_an_attempts_details_show_the_whole_payload_and_request(
    laptop_page: Any, failing: Served, tmp_path: Path
) -> None:
    show_newest(laptop_page, failing, "attempts", "[data-testid=attempt-payload]")
    shoot(laptop_page, tmp_path, "attempt-details")
    assert_fields_readable(laptop_page)
    [attempt] = failing.control("GET", "attempts?order=newest&limit=1")["attempts"]
    assert attempt["payload"] == PAYLOAD
    for shown, expected in (("payload", attempt["payload"]), ("request", attempt["request"])):
        assert_whole_and_scrollable(laptop_page, f"[data-testid=attempt-{shown}]", pretty(expected))


def test_the_records_tables_show_every_column_and_the_whole_error(
    laptop_page: Any, failing: Served, tmp_path: Path
) -> None:
    page = laptop_page
    open_dashboard(page, failing)
    expect(page.locator("#dead-letters tbody tr")).to_have_count(3)
    expect(page.locator("#attempts tbody tr")).to_have_count(3)
    shoot(page, tmp_path, "records-tables")
    for table in ("attempts", "dead-letters"):
        # Nothing hidden past the card's right edge, to be scrolled to sideways.
        assert clipped(page, f"#{table}-card .table-wrap") == [], table
        assert clipped(page, f"#{table} td") == [], table
    errors = page.locator("#dead-letters td.error")
    assert errors.all_text_contents() == [ERROR_CODE] * row_count(page, "dead-letters")
    wrap = page.locator("#dead-letters-card .table-wrap").bounding_box()
    for cell in errors.all():
        box = cell.bounding_box()
        assert box["x"] + box["width"] <= wrap["x"] + wrap["width"] + 0.5
    outcomes = page.locator("#attempts tbody tr td:last-child").all_inner_texts()
    assert all(
        "failed, permanent" in text and ERROR_CODE in text.replace("\n", "") for text in outcomes
    )
