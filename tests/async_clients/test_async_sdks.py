"""aiobotocore and aioboto3 clients reach the emulator in process and over HTTP, and a
schedule they create fires on the virtual clock."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from pytest_schedemu import Emulator
from tests.async_clients.conftest import AsyncClientMaker
from tests.constants import QUEUE, ROLE, T0

pytestmark = pytest.mark.aiobotocore

SCHEDULE = {
    "ScheduleExpression": "rate(1 hour)",
    "FlexibleTimeWindow": {"Mode": "OFF"},
    "Target": {"Arn": QUEUE, "RoleArn": ROLE, "Input": '{"job": "report"}'},
}


def test_a_client_creates_gets_lists_and_deletes_a_schedule(
    emu: Emulator, async_client: AsyncClientMaker
) -> None:
    async def scenario() -> None:
        async with async_client() as client:
            created = await client.create_schedule(Name="nightly", **SCHEDULE)
            assert created["ScheduleArn"].endswith(":schedule/default/nightly")
            got = await client.get_schedule(Name="nightly")
            assert (got["ScheduleExpression"], got["Target"]["Input"]) == (
                "rate(1 hour)",
                '{"job": "report"}',
            )
            listed = await client.list_schedules()
            assert [schedule["Name"] for schedule in listed["Schedules"]] == ["nightly"]
            await client.delete_schedule(Name="nightly")
            with pytest.raises(client.exceptions.ResourceNotFoundException):
                await client.get_schedule(Name="nightly")

    asyncio.run(scenario())
    assert emu.schedules() == []


def test_a_schedule_a_client_created_fires_and_its_handler_calls_through_the_client(
    emu: Emulator, async_client: AsyncClientMaker
) -> None:
    # The coroutine handler calls the API through the application's own client, whose
    # connections belong to the test's loop: an async move awaits it there.
    async def scenario() -> list[tuple[str, str]]:
        seen: list[tuple[str, str]] = []
        async with async_client() as client:

            async def handler(attempt: Any) -> None:
                schedule = await client.get_schedule(Name=attempt.schedule_name)
                seen.append((attempt.input, schedule["State"]))

            emu.target(QUEUE).handle(handler)
            await client.create_schedule(Name="hourly", **SCHEDULE)
            made = await emu.clock.advance_async(hours=1)
            assert [attempt.succeeded for attempt in made] == [True, True]
        return seen

    assert asyncio.run(scenario()) == [('{"job": "report"}', "ENABLED")] * 2
    assert [d.scheduled_time for d in emu.deliveries(schedule="hourly")] == [
        T0,
        T0.replace(hour=11),
    ]
