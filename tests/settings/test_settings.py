"""Settings are immutable: a change is a new, validated ``Settings`` put in place of the old,
through ``Emulator.reset`` or ``Emulator.configure``."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_schedemu import Emulator, Settings
from tests.constants import QUEUE, ROLE, START


@pytest.fixture
def emu() -> Iterator[Emulator]:
    with Emulator(start=START, seed=5) as emulator:
        yield emulator


def create_at(client: Any, name: str, when: str) -> None:
    client.create_schedule(
        Name=name,
        ScheduleExpression=f"at({when})",
        FlexibleTimeWindow={"Mode": "OFF"},
        Target={"Arn": QUEUE, "RoleArn": ROLE},
    )


def test_a_setting_cannot_be_assigned(emu: Emulator) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        emu.settings.past_at = "reject"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        emu.settings = Settings()  # type: ignore[misc]
    assert emu.settings.past_at == "fire"


def test_credentials_cannot_be_changed_in_place() -> None:
    settings = Settings(verify_signatures=True, credentials={"AKID": "secret"})
    with pytest.raises(TypeError):
        settings.credentials["OTHER"] = "s"  # type: ignore[index]
    assert dict(settings.credentials) == {"AKID": "secret"}


def test_a_change_replaces_the_settings_and_leaves_the_old_ones_as_they_were(
    emu: Emulator,
) -> None:
    before = emu.settings
    emu.configure(seed=3)
    assert (before.seed, emu.settings.seed) == (5, 3)
    emu.reset(past_at="reject")
    assert (emu.settings.seed, emu.settings.past_at) == (5, "reject")
    assert before.past_at == "fire"


def test_configure_changes_behaviour_and_keeps_the_state(emu: Emulator) -> None:
    client = emu.client()
    create_at(client, "kept", "2026-03-02T00:00:00")
    emu.configure(past_at="reject")
    with pytest.raises(client.exceptions.ValidationException):
        create_at(client, "late", "2026-02-01T00:00:00")
    assert [s["Name"] for s in client.list_schedules()["Schedules"]] == ["kept"]
    emu.reset()
    assert emu.settings.past_at == "fire"


def test_configure_is_all_or_nothing(emu: Emulator) -> None:
    with pytest.raises(ValueError, match="Unsupported past_at 'sometimes'"):
        emu.configure(seed=3, past_at="sometimes")
    assert emu.settings.seed == 5
    with pytest.raises(TypeError, match=r"Unsupported settings \['port'\]"):
        emu.configure(seed=3, port=4566)
    assert emu.settings.seed == 5


def test_a_none_keeps_what_cannot_be_none_and_sets_what_can(emu: Emulator) -> None:
    emu.configure(region=None, max_records=None)
    assert (emu.settings.region, emu.settings.max_records) == ("us-east-1", None)


def test_the_own_settings_are_those_the_emulator_was_made_with(emu: Emulator) -> None:
    emu.configure(seed=3)
    assert emu.own_settings.seed == 5
    emu.reset()
    assert emu.settings == emu.own_settings
