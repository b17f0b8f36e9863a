"""A crash in the middle of a clock move: what the file holds at any instant of a delivery.

``crash_copy`` takes what is committed while an attempt is being delivered, which is what
a SIGKILL at that instant would leave; an emulator started from the copy and moved on to
the same instant must have lost no occurrence and repeated none, but the attempt that was
in flight, and only when its delivery has effects outside the process.
"""

from __future__ import annotations

import zlib
from collections import Counter
from pathlib import Path
from typing import Any

from pytest_schedemu import Emulator, Outcome
from pytest_schedemu.delivery.backends import OK, DeadLetterRequest, DeliveryRequest
from pytest_schedemu.formats.times import to_utc
from tests.constants import DLQ, FUNCTION, QUEUE, START
from tests.helpers import create
from tests.persistence.lives import crash_copy

END = "2026-03-01T16:00:00Z"


def occurrences(emu: Emulator) -> Counter[tuple[str, Any, int]]:
    return Counter((a.schedule_arn, a.scheduled_time, a.attempt_number) for a in emu.attempts())


def schedules(emu: Emulator) -> None:
    client = emu.client()
    for index in range(8):
        create(client, f"s{index}", "rate(1 minute)")
    window = {"Mode": "FLEXIBLE", "MaximumWindowInMinutes": 9}
    create(client, "flex", "rate(5 minutes)", window=window)


def test_a_crash_mid_advance_loses_and_repeats_nothing(tmp_path: Path) -> None:
    with Emulator(start=START, transport="inprocess") as twin:
        schedules(twin)
        twin.clock.move_to(END)
        expected = occurrences(twin)
    path = tmp_path / "state.db"
    copies: list[Path] = []
    with Emulator(start=START, transport="inprocess", state=str(path)) as emu:
        schedules(emu)

        def deliver(attempt: Any) -> None:
            # A handler makes the dispatcher go item by item, committing in batches.
            if len(emu.attempts()) in (700, 1500, 2500):
                copies.append(crash_copy(path))

        emu.target(QUEUE).handle(deliver)
        emu.clock.move_to(END)
        assert occurrences(emu) == expected
    assert len(copies) == 3
    for copy in copies:
        with Emulator(transport="inprocess", state=str(copy)) as survivor:
            assert survivor.clock.now() < to_utc(END)
            survivor.clock.move_to(END)
            assert occurrences(survivor) == expected


class SideEffects:
    """A delivery that reaches outside the process: every request it sends is kept."""

    needs_request = True

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.sent: list[tuple[str, int]] = []
        self.copies: dict[int, Path] = {}

    def deliver(self, request: DeliveryRequest | None) -> Outcome:
        assert request is not None
        sent = (request.request_text, request.attempt_number)
        self.sent.append(sent)
        if self.path is not None and len(self.sent) % 50 == 7:
            self.copies[len(self.sent)] = crash_copy(self.path)
        # The same request always gets the same answer, whichever emulator sends it.
        if request.attempt_number < 3 and zlib.crc32(request.request_text.encode()) % 3 == 0:
            return Outcome.failure("ThrottlingException", "slow down", True)
        return OK

    def send_dead_letter(self, request: DeadLetterRequest) -> Outcome:
        return OK

    def close(self) -> None:
        pass


def test_a_delivery_with_effects_is_durable_before_the_next_one(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    sending = SideEffects(path)
    with Emulator(start=START, transport="inprocess", state=str(path), delivery=sending) as emu:
        for index in range(3):
            create(emu.client(), f"s{index}", "rate(10 minutes)")
        emu.clock.move_to(END)
        everything = occurrences(emu)
    assert len(sending.copies) >= 4
    for count, copy in sending.copies.items():
        resumed = SideEffects(None)
        with Emulator(transport="inprocess", state=str(copy), delivery=resumed) as survivor:
            survivor.clock.move_to(END)
            assert occurrences(survivor) == everything
        # The attempt in flight when the copy was taken is sent again; nothing else is.
        sent = sending.sent[:count] + resumed.sent
        repeated = [item for item, times in Counter(sent).items() if times > 1]
        assert repeated == [sending.sent[count - 1]]
        assert len(sent) == len(sending.sent) + 1


class CommitsWhileSending:
    """Records deliveries; while a dead letter is out (without the store lock), an API
    request commits, and the file is copied: a crash at that instant."""

    needs_request = False

    def __init__(self, path: Path) -> None:
        self.path = path
        self.emulator: Emulator | None = None
        self.copies: list[Path] = []

    def deliver(self, request: DeliveryRequest | None) -> Outcome:
        return OK

    def send_dead_letter(self, request: DeadLetterRequest) -> Outcome:
        assert self.emulator is not None
        self.emulator.client().create_schedule_group(Name=f"g{len(self.copies)}")
        self.copies.append(crash_copy(self.path))
        return OK

    def close(self) -> None:
        pass


def test_a_dead_letter_cut_short_by_a_crash_is_sent_after_it_once(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    sending = CommitsWhileSending(path)
    with Emulator(start=START, transport="inprocess", state=str(path), delivery=sending) as emu:
        sending.emulator = emu
        target = {"Arn": FUNCTION, "DeadLetterConfig": {"Arn": DLQ}}
        create(emu.client(), "s1", "rate(1 hour)", target=target)
        emu.target(FUNCTION).fail(retryable=False)
        emu.clock.advance(minutes=30)
    (copy,) = sending.copies
    with Emulator(transport="inprocess", state=str(copy)) as survivor:
        assert [a.attempt_number for a in survivor.attempts()] == [1]
        assert len(survivor.dead_letters()) == 1
        assert [a.kind for a in survivor.activity()] == ["created", "dead_lettered"]
        (execution,) = survivor.executions("s1")
        assert execution.status == "invocation_error"
        assert execution.exhausted_condition == "permanent"
        survivor.clock.move_to("2026-03-01T11:00:00Z")
        assert [a.scheduled_time.hour for a in survivor.attempts()] == [10, 11]
