"""Lookups that cannot pass by accident: a schedule that never existed is an error, and a
name that several groups hold must be told apart."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from pytest_schedemu import Emulator
from tests.helpers import create


def in_group(client: Any, group: str, name: str = "s", expression: str = "rate(1 hour)") -> None:
    client.create_schedule_group(Name=group)
    create(client, name, expression=expression, GroupName=group)


def test_executions_find_the_schedule_in_whichever_group_holds_it(
    emu: Emulator, client: Any
) -> None:
    in_group(client, "g")
    emu.clock.advance(hours=1)
    assert [e.group_name for e in emu.executions("s")] == ["g", "g"]
    assert emu.next_occurrence("s") == emu.next_occurrence("s", group="g") is not None


def test_a_name_held_by_several_groups_must_be_chosen(emu: Emulator, client: Any) -> None:
    in_group(client, "a")
    in_group(client, "b")
    with pytest.raises(ValueError, match="several groups: a, b"):
        emu.executions("s")
    with pytest.raises(ValueError, match="several groups"):
        emu.next_occurrence("s")
    emu.clock.tick()
    assert [e.group_name for e in emu.executions("s", group="b")] == ["b"]
    # As a filter, a shared name matches every group that holds it.
    assert {a.group_name for a in emu.attempts(schedule="s")} == {"a", "b"}


def test_a_name_that_never_existed_names_the_known_ones_closest_first(
    emu: Emulator, client: Any
) -> None:
    create(client, "nightly-digest")
    create(client, "hourly")
    with pytest.raises(LookupError) as caught:
        emu.executions("nightly-digets")
    message = str(caught.value)
    assert "'nightly-digets' ever existed" in message
    assert message.index("nightly-digest") < message.index("hourly")
    for lookup in (
        lambda: emu.next_occurrence("nope"),
        lambda: emu.attempts(schedule="nope"),
        lambda: emu.deliveries(schedule="nope"),
    ):
        with pytest.raises(LookupError, match="'nope' ever existed"):
            lookup()


def test_a_schedule_in_another_group_is_not_found_by_the_wrong_group(
    emu: Emulator, client: Any
) -> None:
    in_group(client, "g")
    with pytest.raises(LookupError, match="group 'default'; a schedule of that name is in"):
        emu.executions("s", group="default")
    with pytest.raises(LookupError, match="group 'x'"):
        emu.attempts(schedule="s", group="x")


def test_a_deleted_schedule_is_still_known(emu: Emulator, client: Any) -> None:
    create(client, "gone")
    emu.clock.tick()
    client.delete_schedule(Name="gone")
    assert len(emu.executions("gone")) == 1
    assert emu.next_occurrence("gone") is None
    assert len(emu.attempts(schedule="gone")) == 1


def test_a_reset_forgets_every_schedule(emu: Emulator, client: Any) -> None:
    create(client, "s")
    emu.reset()
    with pytest.raises(LookupError, match="it has no schedules"):
        emu.executions("s")


def control(emu: Emulator, path: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(f"{emu.endpoint_url}/_schedemu/{path}") as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        with error:
            return error.code, json.loads(error.read())


def test_the_control_api_answers_the_same_errors(emu: Emulator, client: Any) -> None:
    in_group(client, "a")
    in_group(client, "b")
    status, body = control(emu, "executions?schedule=nope")
    assert (status, body["__type"]) == (404, "ResourceNotFoundException")
    assert "'nope' ever existed" in body["Message"]
    status, body = control(emu, "executions?schedule=s")
    assert (status, body["__type"]) == (400, "ValidationException")
    assert "several groups: a, b" in body["Message"]
    status, body = control(emu, "executions?schedule=s&group=a")
    assert status == 200 and body["executions"] == []


def test_one_more_name_is_named_rather_than_counted(emu: Emulator, client: Any) -> None:
    for n in range(11):
        create(client, f"s{n:02}")
    with pytest.raises(LookupError) as caught:
        emu.executions("nope")
    assert "more" not in str(caught.value)
    assert all(f"s{n:02}" in str(caught.value) for n in range(11))
    create(client, "s11")
    with pytest.raises(LookupError, match=r" and 2 more$"):
        emu.executions("nope")


def test_a_name_forgotten_in_one_group_stays_known_in_the_groups_that_still_hold_it() -> None:
    with Emulator(transport="inprocess", max_records=4) as emu:
        client = emu.client()
        for group in ("a", "b", "c"):
            in_group(client, group)
        with pytest.raises(ValueError, match="several groups: a, b, c"):
            emu.executions("s")
        # Two more names push the oldest schedule (group a's) out of what is remembered.
        create(client, "t")
        create(client, "u")
        with pytest.raises(ValueError, match="several groups: b, c"):
            emu.executions("s")
        assert emu.executions("s", group="c") == []
