"""``emu.timeline()``: the emulator's story written as a self-contained HTML file."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import pytest

from pytest_schedemu import Emulator
from tests.constants import DLQ, FUNCTION, QUEUE, ROLE


@pytest.fixture(scope="module")
def served() -> Iterator[Emulator]:
    with Emulator(start="2026-03-07T12:00:00Z", transport="inprocess") as emu:
        yield emu


@pytest.fixture
def emu(served: Emulator) -> Emulator:
    served.reset(start="2026-03-07T12:00:00Z")
    client = served.client()
    client.create_schedule_group(Name="billing")
    client.create_schedule(
        Name="morning",
        ScheduleExpression="cron(0 9 * * ? *)",
        ScheduleExpressionTimezone="America/New_York",
        FlexibleTimeWindow={"Mode": "OFF"},
        Target={"Arn": QUEUE, "RoleArn": ROLE},
    )
    client.create_schedule(
        Name="charge",
        GroupName="billing",
        ScheduleExpression="rate(6 hours)",
        FlexibleTimeWindow={"Mode": "OFF"},
        Target={
            "Arn": FUNCTION,
            "RoleArn": ROLE,
            "RetryPolicy": {"MaximumRetryAttempts": 1},
            "DeadLetterConfig": {"Arn": DLQ},
        },
    )
    served.target(FUNCTION).fail(times=2, error_code="ThrottlingException")
    served.clock.advance(days=1)
    return served


def lanes(page: str) -> list[str]:
    return re.findall(r'data-arn="[^"]*schedule/([^"]+)"', page)


def test_without_a_path_a_new_file_is_written_in_the_temporary_folder(emu: Emulator) -> None:
    first, second = emu.timeline(), emu.timeline()
    assert first != second
    assert first.parent == Path(tempfile.gettempdir())
    assert first.name.startswith("schedemu-timeline-") and first.suffix == ".html"
    assert lanes(first.read_text(encoding="utf-8")) == ["billing/charge", "default/morning"]


def test_a_path_is_written_with_its_folders_and_returned(emu: Emulator, tmp_path: Path) -> None:
    wanted = tmp_path / "reports" / "story.html"
    assert emu.timeline(str(wanted)) == wanted
    assert wanted.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_a_folder_gets_a_new_file_in_it(emu: Emulator, tmp_path: Path) -> None:
    written = emu.timeline(tmp_path)
    assert written.parent == tmp_path and written.suffix == ".html"
    assert emu.timeline(tmp_path) != written


def test_the_file_needs_no_network_and_no_script(emu: Emulator) -> None:
    page = emu.timeline().read_text(encoding="utf-8")
    assert "<script" not in page.lower()
    assert re.findall(r"https?://[^\s\"']+", page) == ["http://www.w3.org/2000/svg"]
    assert "<style>" in page and "<svg" in page


def test_it_shows_every_attempt_by_outcome_and_the_dead_letter(emu: Emulator) -> None:
    page = emu.timeline().read_text(encoding="utf-8")
    # morning at 14:00Z; charge at 18:00, 00:00, 06:00 and 12:00 (12:00 failed twice).
    assert page.count("<title>Attempt 1 · delivered") == 5
    assert "</span>2 failed, retryable</li>" in page
    assert "</span>1 dead-lettered</li>" in page and DLQ in page


def test_filters_narrow_the_lanes(emu: Emulator) -> None:
    assert lanes(emu.timeline(schedule="morning").read_text()) == ["default/morning"]
    assert lanes(emu.timeline(group="billing").read_text()) == ["billing/charge"]
    assert lanes(emu.timeline(target_arn=QUEUE).read_text()) == ["default/morning"]


def test_a_schedule_or_group_that_never_existed_is_a_lookup_error(emu: Emulator) -> None:
    with pytest.raises(LookupError, match=r"No schedule 'mornin' ever existed.*morning"):
        emu.timeline(schedule="mornin")
    with pytest.raises(LookupError, match=r"No schedule group 'biling' ever existed.*billing"):
        emu.timeline(group="biling")


def test_since_and_until_take_iso_strings_and_aware_datetimes(emu: Emulator) -> None:
    page = emu.timeline(
        since="2026-03-08T00:00:00Z", until=datetime(2026, 3, 8, 6, tzinfo=timezone.utc)
    ).read_text()
    assert "2026-03-08 00:00:00Z to 2026-03-08 06:00:00Z" in page
    with pytest.raises(ValueError, match="no time zone"):
        emu.timeline(since=datetime(2026, 3, 8))
    with pytest.raises(ValueError, match="since must come before until"):
        emu.timeline(since="2026-03-09T00:00:00Z", until="2026-03-08T00:00:00Z")


def test_until_after_now_shows_the_next_occurrences_on_the_zone_clock(emu: Emulator) -> None:
    page = emu.timeline(schedule="morning", until="2026-03-10T12:00:00Z").read_text()
    # New York moved to daylight saving time on 8 March: 09:00 is 13:00Z from then on.
    assert re.findall(r"<title>Next occurrence\n([^<]*)</title>", page) == [
        "2026-03-08 13:00:00Z · 09:00:00 EDT America/New_York",
        "2026-03-09 13:00:00Z · 09:00:00 EDT America/New_York",
    ]


def test_a_deleted_schedule_keeps_its_lane_with_its_expression_and_zone(emu: Emulator) -> None:
    emu.client().delete_schedule(Name="morning")
    page = emu.timeline(schedule="morning").read_text()
    assert lanes(page) == ["default/morning"]
    assert "cron(0 9 * * ? *)" in page and "America/New_York" in page
    assert "· deleted" in page
