"""Stand-in records with the attributes the timeline reads, and helpers to read its SVG."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from tests.constants import QUEUE

SVG = "{http://www.w3.org/2000/svg}"
#: When the stand-in records happen: the labels and titles the tests expect read noon.
NOON = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)


def arn(name: str, group: str = "default") -> str:
    return f"arn:aws:scheduler:us-east-1:123456789012:schedule/{group}/{name}"


@dataclass(frozen=True)
class Window:
    maximum_window_in_minutes: int | None = None


@dataclass(frozen=True)
class Target:
    arn: str = QUEUE


@dataclass(frozen=True)
class Schedule:
    name: str
    group_name: str = "default"
    schedule_expression: str = "rate(1 hour)"
    timezone: str = "UTC"
    state: str = "ENABLED"
    flexible_time_window: Window = field(default_factory=Window)
    target: Target = field(default_factory=Target)

    @property
    def arn(self) -> str:
        return arn(self.name, self.group_name)


@dataclass(frozen=True)
class Attempt:
    producer_key: str
    target_arn: str
    scheduled_time: datetime
    attempted_at: datetime
    attempt_number: int
    succeeded: bool
    error_code: str | None = None
    error_message: str | None = None
    retryable: bool | None = None
    input: str | None = None
    fired: bool = False
    execution_id: str = ""


@dataclass(frozen=True)
class Execution:
    producer_key: str
    scheduled_time: datetime
    status: str
    attempts: tuple[Attempt, ...]
    first_attempt_due: datetime | None = None
    exhausted_condition: str | None = None
    group_name: str = "default"
    schedule_name: str = ""


@dataclass(frozen=True)
class Activity:
    kind: str
    at: datetime
    producer_key: str
    scheduled_time: datetime | None = None
    detail: str = ""


@dataclass(frozen=True)
class DeadLetter:
    queue_arn: str
    producer_key: str
    scheduled_time: datetime
    sent_at: datetime | None
    attributes: dict[str, str] = field(default_factory=dict)


def occurrence(
    schedule_arn: str,
    nominal: datetime,
    outcomes: str = "ok",
    *,
    offsets: tuple[int, ...] = (),
    due: datetime | None = None,
    target: str = QUEUE,
    payload: str | None = '{"n": 1}',
    status: str | None = None,
    error_code: str = "ThrottlingException",
    exhausted: str | None = None,
) -> Execution:
    """An execution whose attempts have the given outcomes, one letter each word:
    ``ok`` delivered, ``retry`` failed retryable, ``fatal`` failed permanent; attempt k is
    made ``offsets[k]`` seconds after the first due instant (default: k minutes)."""
    first = due or nominal
    attempts = []
    for number, outcome in enumerate(outcomes.split(), start=1):
        delay = offsets[number - 1] if offsets else 60 * (number - 1)
        ok = outcome == "ok"
        attempts.append(
            Attempt(
                schedule_arn,
                target,
                nominal,
                first + timedelta(seconds=delay),
                number,
                ok,
                None if ok else error_code,
                None if ok else "went wrong",
                None if ok else outcome == "retry",
                payload,
            )
        )
    if status is None:
        status = "success" if attempts and attempts[-1].succeeded else "invocation_error"
    return Execution(schedule_arn, nominal, status, tuple(attempts), due or nominal, exhausted)


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def classes(element: ET.Element) -> set[str]:
    return set(element.get("class", "").split())


def find(root: ET.Element, *wanted: str) -> list[ET.Element]:
    """Every element under ``root`` whose class holds all of ``wanted``."""
    return [e for e in root.iter() if set(wanted) <= classes(e)]


def lane(root: ET.Element, schedule_arn: str) -> ET.Element:
    (found,) = [e for e in find(root, "lane") if e.get("data-arn") == schedule_arn]
    return found


def title(element: ET.Element) -> str:
    found = element.find(f"{SVG}title")
    assert found is not None, f"no title in {ET.tostring(element)!r}"
    return found.text or ""


def text(element: ET.Element) -> str:
    return " ".join(t.strip() for t in element.itertext() if t.strip())


def mark_x(mark: ET.Element) -> float:
    """The x of an attempt mark's centre."""
    shape = mark.find(f"{SVG}circle")
    assert shape is not None
    return float(shape.get("cx", "nan"))


def attr(element: ET.Element, name: str) -> float:
    return float(element.get(name, "nan"))


def data(**overrides: Any) -> Any:
    from pytest_schedemu.timeline import TimelineData

    values: dict[str, Any] = {
        "schedules": [],
        "executions": [],
        "activity": [],
        "dead_letters": [],
        "now": NOON,
    }
    values.update(overrides)
    return TimelineData(**values)
