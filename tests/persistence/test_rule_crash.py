"""EventBridge rules through a crash, an outage, and ``schedemu serve --state`` killed: a
rule target's retry in flight resumes with its number, what an outage missed fires or is
dropped as a schedule's is, and a local stack's rules come back with the service."""

from __future__ import annotations

import resource
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from pytest_schedemu import Emulator, Outcome
from pytest_schedemu.delivery.backends import OK, DeadLetterRequest, DeliveryRequest
from pytest_schedemu.formats.times import wall_clock_now
from tests.constants import ACCOUNT, FUNCTION, QUEUE, START
from tests.helpers import wait_for
from tests.persistence.lives import crash_copy, records
from tests.persistence.serving import Service
from tests.persistence.test_write_failure import files_cannot_grow
from tests.rules.rulebook import target

END = "2026-03-01T13:00:00Z"
OTHER_QUEUE = f"arn:aws:sqs:us-east-1:{ACCOUNT}:other"
R1 = f"arn:aws:events:us-east-1:{ACCOUNT}:rule/r1"


def rule_with_a_failing_target(emu: Emulator) -> None:
    events = emu.client("events")
    events.put_rule(Name="r1", ScheduleExpression="rate(1 hour)")
    retried = {"RetryPolicy": {"MaximumRetryAttempts": 5}}
    events.put_targets(Rule="r1", Targets=[target("t1"), target("t2", FUNCTION, **retried)])


class Sending:
    """A delivery with effects outside the process, so each attempt is on disk before the
    next; the first three attempts of every occurrence of ``FUNCTION`` fail, whichever
    emulator makes them. With a ``path``, the file is copied while the retries 2 and 4 of
    noon's occurrence are being delivered: what a crash at that instant leaves."""

    needs_request = True

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self.copies: list[Path] = []

    def deliver(self, request: DeliveryRequest | None) -> Outcome:
        assert request is not None
        number = request.attempt_number
        noon = request.attempted_at.hour == 12 and request.target_arn == FUNCTION
        if self.path is not None and noon and number in (2, 4):
            self.copies.append(crash_copy(self.path))
        if request.target_arn == FUNCTION and number <= 3:
            return Outcome.failure("ThrottlingException", "slow down", True)
        return OK

    def send_dead_letter(self, request: DeadLetterRequest) -> Outcome:
        return OK

    def close(self) -> None:
        pass


def test_a_rule_targets_retry_in_flight_at_a_crash_resumes(tmp_path: Path) -> None:
    with Emulator(start=START, transport="inprocess", delivery=Sending()) as twin:
        rule_with_a_failing_target(twin)
        twin.clock.move_to(END)
        expected = records(twin)
    path = tmp_path / "state.db"
    sending = Sending(path)
    with Emulator(start=START, transport="inprocess", state=str(path), delivery=sending) as emu:
        rule_with_a_failing_target(emu)
        emu.clock.move_to(END)
        assert records(emu) == expected
    assert len(sending.copies) == 2
    for copy, number in zip(sending.copies, (2, 4)):
        with Emulator(transport="inprocess", state=str(copy), delivery=Sending()) as survivor:
            # The attempt in flight is still to be made, with its number.
            (retry,) = survivor.pending(rule="r1")[:1]
            assert (retry.kind, retry.target_id, retry.attempt_number) == ("retry", "t2", number)
            assert f"{retry.scheduled_time:%H:%M}" == "12:00"
            survivor.clock.move_to(END)
            assert records(survivor) == expected


def test_an_outage_fires_a_rules_missed_occurrences_young_enough_and_drops_the_rest(
    tmp_path: Path,
) -> None:
    # As tests/persistence/test_outage.py does for schedules: the state is written by a
    # virtual emulator whose clock stands 330 s behind the wall clock, then opened by a
    # real-time one, which sees a process that stopped 330 s ago.
    path = str(tmp_path / "state.db")
    stopped = wall_clock_now() - timedelta(seconds=330)
    with Emulator(
        start=stopped - timedelta(minutes=1), transport="inprocess", state=path
    ) as before:
        events = before.client("events")
        events.put_rule(Name="r1", ScheduleExpression="rate(1 minute)")
        young = {"MaximumEventAgeInSeconds": 120}
        events.put_targets(
            Rule="r1",
            Targets=[
                target("short", QUEUE, RetryPolicy=young),
                target("long", OTHER_QUEUE),
                target("retrying", FUNCTION, RetryPolicy={"MaximumEventAgeInSeconds": 60}),
            ],
        )
        before.target(FUNCTION).fail(times=1)
        before.clock.advance(minutes=1)  # the rule's first occurrence, at the instant it stopped
    assert [a.succeeded for a in before.attempts(target_arn=FUNCTION)] == [False]

    with Emulator(clock="real", tick_interval=0.05, transport="inprocess", state=path) as back:
        # Missed while down: minutes 1-5; the retry was due a second after minute 0.
        wait_for(lambda: len(back.attempts()) >= 1 + 2 + 5 + 1)
        time.sleep(0.2)
        seen = {
            target_id: sorted(
                int((a.scheduled_time - stopped).total_seconds()) // 60
                for a in back.attempts(rule="r1")
                if a.target_id == target_id
            )
            for target_id in ("short", "long", "retrying")
        }
        dropped = sorted(
            (a.target_id, int((a.scheduled_time - stopped).total_seconds()))
            for a in back.activity("dropped")
        )
    assert seen == {
        "short": [0, 4, 5],  # 1, 2 and 3 minutes late are more than 120 s old
        "long": [0, 1, 2, 3, 4, 5],
        "retrying": [0, 5],  # its retry, and minutes 1-4, are older than 60 s
    }
    assert dropped == [
        ("retrying", 0),
        ("retrying", 60),
        ("retrying", 120),
        ("retrying", 180),
        ("retrying", 240),
        ("short", 60),
        ("short", 120),
        ("short", 180),
    ]


def events_client(service: Service) -> Any:
    return boto3.client(
        "events",
        endpoint_url=service.url,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        config=Config(retries={"total_max_attempts": 1}),
    )


def test_a_killed_service_comes_back_with_its_rules(tmp_path: Path) -> None:
    state = str(tmp_path / "state.db")
    args = ("--clock", "virtual", "--start", "2026-03-01T10:00:30Z", "--state", state)
    service = Service(*args, log=tmp_path / "log")
    events = events_client(service)
    events.put_rule(
        Name="r1", ScheduleExpression="rate(7 minutes)", Tags=[{"Key": "k", "Value": "v"}]
    )
    retried = {"RetryPolicy": {"MaximumRetryAttempts": 9}}
    events.put_targets(Rule="r1", Targets=[target("t1"), target("t2", FUNCTION, **retried)])
    events.put_rule(Name="off", ScheduleExpression="rate(1 minute)", State="DISABLED")
    service.control("POST", "targets/fail", {"arn": FUNCTION})
    service.control("POST", "clock/advance", {"minutes": 7, "seconds": 3})
    answers = (
        events.list_rules()["Rules"],
        events.list_targets_by_rule(Rule="r1")["Targets"],
        events.list_tags_for_resource(ResourceARN=R1)["Tags"],
    )
    attempts = service.records("attempts")
    assert [(a["target_id"], a["attempt_number"]) for a in attempts] == [
        ("t1", 1),
        ("t2", 1),
        ("t2", 2),
        ("t2", 3),
    ]
    service.kill()

    service = Service(*args, log=tmp_path / "log")
    try:
        service.control("POST", "targets/fail", {"arn": FUNCTION})  # a test's set-up, not state
        events = events_client(service)
        assert service.control("GET", "clock")["now"] == "2026-03-01T10:07:33Z"
        assert service.records("attempts") == attempts
        assert (
            events.list_rules()["Rules"],
            events.list_targets_by_rule(Rule="r1")["Targets"],
            events.list_tags_for_resource(ResourceARN=R1)["Tags"],
        ) == answers
        # The retry pending at the kill carries on with its number; the rule keeps its phase.
        later = service.control("POST", "clock/advance", {"minutes": 7})["attempts"]
        assert [(a["scheduled_time"], a["target_id"], a["attempt_number"]) for a in later] == [
            ("2026-03-01T10:07:30Z", "t2", 4),
            ("2026-03-01T10:07:30Z", "t2", 5),
            ("2026-03-01T10:07:30Z", "t2", 6),
            ("2026-03-01T10:07:30Z", "t2", 7),
            ("2026-03-01T10:07:30Z", "t2", 8),
            ("2026-03-01T10:07:30Z", "t2", 9),
            ("2026-03-01T10:14:30Z", "t1", 1),
            ("2026-03-01T10:14:30Z", "t2", 1),
            ("2026-03-01T10:14:30Z", "t2", 2),
            ("2026-03-01T10:14:30Z", "t2", 3),
        ]
    finally:
        assert service.stop() == 0


@pytest.mark.skipif(
    not hasattr(resource, "prlimit"), reason="needs prlimit to limit another process's files"
)
def test_a_refused_write_of_a_rule_answers_503_and_undoes_it(tmp_path: Path) -> None:
    args = ("--clock", "virtual", "--start", "2026-03-01T10:00:00Z")
    log = tmp_path / "log"
    service = Service(*args, "--state", str(tmp_path / "state.db"), log=log)
    try:
        events = events_client(service)
        events.put_rule(Name="r1", ScheduleExpression="rate(1 minute)")
        events.put_targets(Rule="r1", Targets=[target("t1")])
        with files_cannot_grow(service, log):
            with pytest.raises(ClientError) as refused:
                events.put_targets(Rule="r1", Targets=[target("t2", FUNCTION)])
            error = refused.value.response
            assert error["ResponseMetadata"]["HTTPStatusCode"] == 503
            assert error["Error"]["Code"] == "ServiceUnavailableException"
            with pytest.raises(ClientError, match="ServiceUnavailableException"):
                events.remove_targets(Rule="r1", Ids=["t1"])
            # What a read shows is what the file holds.
            assert [t["Id"] for t in events.list_targets_by_rule(Rule="r1")["Targets"]] == ["t1"]
        moved = service.control("POST", "clock/advance", {"minutes": 2})["attempts"]
        assert [(a["target_id"], a["scheduled_time"]) for a in moved] == [
            ("t1", "2026-03-01T10:01:00Z"),
            ("t1", "2026-03-01T10:02:00Z"),
        ]
    finally:
        service.stop()
