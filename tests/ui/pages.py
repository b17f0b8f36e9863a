"""What the dashboard's browser tests share: making schedules and rules through boto3,
opening the page, reading its rows, and probing its layout as a person would see it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import boto3

from tests.serve.test_serve import Served

ROLE = "arn:aws:iam::123456789012:role/scheduler"
QUEUE = "arn:aws:sqs:us-east-1:123456789012:reminders"
FUNCTION = "arn:aws:lambda:us-east-1:123456789012:function:charge"
DLQ = "arn:aws:sqs:us-east-1:123456789012:invoices-dlq"

# The boxes the contents of the elements a selector finds take on the screen: the extent
# of their text, overflow included (an element's own box would hide text that spills out).
_CONTENT_BOXES = """(selector) => Array.from(document.querySelectorAll(selector), (node) => {
  const range = document.createRange();
  range.selectNodeContents(node);
  const box = range.getBoundingClientRect();
  return {
    text: node.textContent.slice(0, 60),
    left: box.left, right: box.right, top: box.top, bottom: box.bottom,
  };
})"""

# The elements a selector finds whose contents are wider than what they show.
_CLIPPED = """(selector) => Array.from(document.querySelectorAll(selector))
  .filter((node) => node.scrollWidth > node.clientWidth)
  .map((node) => `${node.tagName} ${node.scrollWidth} > ${node.clientWidth}: `
    + node.textContent.slice(0, 60))"""


def create(served: Served, name: str, expression: str = "rate(1 hour)", **extra: Any) -> None:
    target = extra.pop("target", {"Arn": QUEUE, "RoleArn": ROLE, "Input": '{"user": "ada"}'})
    served.client().create_schedule(
        Name=name,
        ScheduleExpression=expression,
        FlexibleTimeWindow={"Mode": "OFF"},
        Target=target,
        **extra,
    )


def events_client(served: Served) -> Any:
    """An EventBridge client built the ordinary way, pointed at the served emulator."""
    return boto3.client(
        "events",
        endpoint_url=served.url,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )


def open_dashboard(page: Any, served: Served) -> None:
    page.goto(f"{served.url}/_schedemu/ui")
    page.wait_for_selector("#now:not(:text('…'))")


def rows(page: Any, table: str) -> list[str]:
    return [text.strip() for text in page.locator(f"#{table} tbody tr").all_inner_texts()]


def row_count(page: Any, table: str) -> int:
    return int(page.locator(f"#{table} tbody tr").count())


def clipped(page: Any, selector: str) -> list[str]:
    """The elements ``selector`` finds whose contents are cut off at their right edge."""
    return list(page.evaluate(_CLIPPED, selector))


def overlapping(page: Any, selector: str) -> list[tuple[str, str]]:
    """Pairs of the elements ``selector`` finds whose contents cover each other."""
    boxes = [b for b in page.evaluate(_CONTENT_BOXES, selector) if b["right"] > b["left"]]
    found = []
    for index, first in enumerate(boxes):
        for second in boxes[index + 1 :]:
            apart = (
                first["right"] <= second["left"] + 0.5
                or second["right"] <= first["left"] + 0.5
                or first["bottom"] <= second["top"] + 0.5
                or second["bottom"] <= first["top"] + 0.5
            )
            if not apart:
                found.append((first["text"], second["text"]))
    return found


def shoot(page: Any, folder: Path, name: str) -> Path:
    """A picture of the whole page, to look at when a layout test fails."""
    path = folder / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
