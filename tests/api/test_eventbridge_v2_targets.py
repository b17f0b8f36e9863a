"""EventBridge Custom Event Bus targets through the API: validation from the current model,
GetSchedule's echo, firing, dead letters and the state file (docs/eventbridge-v2.md)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from botocore.config import Config

from pytest_schedemu import Emulator
from tests.constants import DLQ, ROLE, START
from tests.helpers import error_of, schedule_args

BUS = "arn:aws:events:us-east-1:123456789012:event-busv2/orders/abcdefghij0123456789klmno"
PUT_EVENTS = {"Source": "app.orders", "DetailType": "OrderPlaced"}


def v2_target(**members: Any) -> dict[str, Any]:
    return {"Arn": BUS, "RoleArn": ROLE, **members}


def put_events_target(**members: Any) -> dict[str, Any]:
    return v2_target(Input='{"order": 7}', EventBridgePutEventsV2Parameters=PUT_EVENTS, **members)


def raw_target(**members: Any) -> dict[str, Any]:
    block = {"Metadata": {"tenant": "t1", "region": "eu"}}
    return v2_target(Input="order 7", EventBridgePutRawEventsParameters=block, **members)


def unchecked(emu: Emulator) -> Any:
    """A client that sends what botocore itself would refuse (it checks ``min`` only)."""
    return emu.client(config=Config(parameter_validation=False))


@pytest.mark.parametrize("make", [put_events_target, raw_target])
def test_get_schedule_echoes_each_v2_block(client: Any, make: Any) -> None:
    target = make()
    client.create_schedule(**schedule_args(Target=target))
    got = client.get_schedule(Name="s1")["Target"]
    for member, value in target.items():
        assert got[member] == value


def test_update_replaces_one_v2_block_by_the_other(client: Any) -> None:
    client.create_schedule(**schedule_args(Target=put_events_target()))
    client.update_schedule(**schedule_args(Target=raw_target()))
    got = client.get_schedule(Name="s1")["Target"]
    assert "EventBridgePutEventsV2Parameters" not in got
    raw_block = raw_target()["EventBridgePutRawEventsParameters"]
    assert got["EventBridgePutRawEventsParameters"] == raw_block


def test_a_v2_block_on_a_queue_target_is_refused_not_dropped(client: Any) -> None:
    args = schedule_args()
    args["Target"]["EventBridgePutEventsV2Parameters"] = PUT_EVENTS
    with pytest.raises(client.exceptions.ValidationException) as excinfo:
        client.create_schedule(**args)
    assert error_of(excinfo)["message"] == (
        "Parameters EventBridgePutEventsV2Parameters not supported for the target"
    )
    assert client.list_schedules()["Schedules"] == []


def test_source_may_not_start_with_aws(client: Any) -> None:
    block = {**PUT_EVENTS, "Source": "aws.x"}
    target = v2_target(Input="{}", EventBridgePutEventsV2Parameters=block)
    with pytest.raises(client.exceptions.ValidationException) as excinfo:
        client.create_schedule(**schedule_args(Target=target))
    assert error_of(excinfo)["message"] == (
        "1 validation error detected: Value 'aws.x' at "
        "'target.eventBridgePutEventsV2Parameters.source' failed to satisfy constraint: "
        "Member must satisfy regular expression pattern: "
        r"^(?=[/\.\-_A-Za-z0-9]+)((?!aws\.).*)|(\$(\.[\w_-]+(\[(\d+|\*)\])*)*)$"
    )


def test_put_events_v2_needs_both_of_its_members(emu: Emulator) -> None:
    client = unchecked(emu)
    target = v2_target(Input="{}", EventBridgePutEventsV2Parameters={"Source": "app"})
    with pytest.raises(client.exceptions.ValidationException) as excinfo:
        client.create_schedule(**schedule_args(Target=target))
    assert error_of(excinfo)["message"] == (
        "1 validation error detected: Value null at "
        "'target.eventBridgePutEventsV2Parameters.detailType' failed to satisfy constraint: "
        "Member must not be null"
    )


def test_metadata_keys_and_values_are_checked(emu: Emulator) -> None:
    client = unchecked(emu)
    metadata = {"a/b": "v", "ok": ""}
    target = v2_target(Input="x", EventBridgePutRawEventsParameters={"Metadata": metadata})
    with pytest.raises(client.exceptions.ValidationException) as excinfo:
        client.create_schedule(**schedule_args(Target=target))
    shown = '{"a/b":"v","ok":""}'
    assert error_of(excinfo)["message"] == (
        "2 validation errors detected: "
        f"Value '{shown}' at 'target.eventBridgePutRawEventsParameters.metadata' failed to "
        "satisfy constraint: Map key must satisfy constraint: "
        "[Member must satisfy regular expression pattern: ^[^/]+$]; "
        f"Value '{shown}' at 'target.eventBridgePutRawEventsParameters.metadata' failed to "
        "satisfy constraint: Map value must satisfy constraint: "
        "[Member must have length greater than or equal to 1]"
    )


def test_metadata_holds_at_most_100_keys(emu: Emulator) -> None:
    client = unchecked(emu)
    metadata = {f"k{i}": "v" for i in range(101)}
    target = v2_target(Input="x", EventBridgePutRawEventsParameters={"Metadata": metadata})
    with pytest.raises(client.exceptions.ValidationException) as excinfo:
        client.create_schedule(**schedule_args(Target=target))
    assert "Member must have length less than or equal to 100" in error_of(excinfo)["message"]
    client.create_schedule(
        **schedule_args(
            Target=v2_target(
                Input="x",
                EventBridgePutRawEventsParameters={"Metadata": dict(list(metadata.items())[:100])},
            )
        )
    )


def test_each_v2_target_fires_its_own_operation(emu: Emulator, client: Any) -> None:
    client.create_schedule(**schedule_args("events", Target=put_events_target()))
    client.create_schedule(**schedule_args("raw", Target=raw_target()))
    emu.clock.advance(minutes=5)
    by_name = {a.schedule_name: a for a in emu.attempts()}
    (entry,) = by_name["events"].request["Entries"]
    assert entry == {
        "Source": "app.orders",
        "DetailType": "OrderPlaced",
        "Detail": '{"order": 7}',
        "Resources": ["arn:aws:scheduler:us-east-1:123456789012:schedule/default/events"],
    }
    assert by_name["events"].request["EventBusArn"] == BUS
    (raw,) = by_name["raw"].request["Entries"]
    assert base64.b64decode(raw["Data"]) == b"order 7"
    assert raw["Metadata"] == {"tenant": "t1", "region": "eu"}
    assert raw["SystemMetadata"] == {"ContentType": "application/octet-stream"}


def test_a_missing_v2_bus_dead_letters_like_other_templated_targets(
    emu: Emulator, client: Any
) -> None:
    emu.target(BUS).missing()
    target = put_events_target(DeadLetterConfig={"Arn": DLQ})
    client.create_schedule(
        **schedule_args(ScheduleExpression="at(2026-03-01T10:01:00)", Target=target)
    )
    emu.clock.advance(minutes=5)
    (attempt,) = emu.attempts()
    assert (attempt.error_code, attempt.retryable) == ("ResourceNotFoundException", False)
    (letter,) = emu.dead_letters()
    assert letter.attributes["ERROR_CODE"] == "ResourceNotFoundException"
    assert letter.attributes["TARGET_ARN"] == BUS
    # Like every templated target's, the dead letter's body is the request it was refused.
    assert json.loads(letter.body) == attempt.request


def test_v2_blocks_survive_a_restart(tmp_path: Path) -> None:
    state = str(tmp_path / "state.db")
    with Emulator(start=START, transport="inprocess", state=state) as first:
        first.client().create_schedule(**schedule_args("events", Target=put_events_target()))
        first.client().create_schedule(**schedule_args("raw", Target=raw_target()))
    with Emulator(start=START, transport="inprocess", state=state) as second:
        client = second.client()
        assert client.get_schedule(Name="events")["Target"] == {
            **put_events_target(),
            "RetryPolicy": {"MaximumEventAgeInSeconds": 86400, "MaximumRetryAttempts": 185},
        }
        raw = client.get_schedule(Name="raw")["Target"]
        assert (
            raw["EventBridgePutRawEventsParameters"]
            == raw_target()["EventBridgePutRawEventsParameters"]
        )
        second.clock.advance(minutes=5)
        raw = {a.schedule_name: "SystemMetadata" in a.request_text for a in second.attempts()}
        assert raw == {"events": False, "raw": True}
