"""Creating a batch of groups and schedules all or none (a stack's resources)."""

from __future__ import annotations

import pytest

from pytest_schedemu.formats.times import EPOCH
from pytest_schedemu.settings.live import LiveSettings
from pytest_schedemu.settings.options import Settings
from pytest_schedemu.state.store import CreationRefused, Store
from tests.state.test_partition import group, schedule


def store(**settings: object) -> Store:
    return Store(EPOCH, LiveSettings(Settings(**settings)))


def test_groups_then_their_schedules_are_created() -> None:
    s = store()
    created = s.create_together([group("g")], [schedule("g", "a"), schedule("default", "b")])
    assert [(x.group_name, x.name) for x in created] == [("g", "a"), ("default", "b")]
    assert [x.incarnation for x in created] == [1, 2]
    assert [g.name for g in s.all_groups()] == ["default", "g"]


@pytest.mark.parametrize(
    ("groups", "schedules", "position", "code", "message"),
    [
        (
            [],
            [schedule("g", "a")],
            0,
            "ResourceNotFoundException",
            "Schedule group g does not exist.",
        ),
        (
            [group("g")],
            [schedule("g", "a"), schedule("g", "a")],
            2,
            "ConflictException",
            "Schedule a already exists.",
        ),
        ([group("g"), group("g")], [], 1, "ConflictException", "Schedule group g already exists."),
        ([group("default")], [], 0, "ValidationException", None),
    ],
)
def test_the_first_refused_names_its_position_and_nothing_is_created(
    groups: list, schedules: list, position: int, code: str, message: str | None
) -> None:
    s = store()
    s.create_group(group("kept").account_id, group("kept").region, "kept", (), EPOCH)
    before = s.snapshot()
    with pytest.raises(CreationRefused) as refused:
        s.create_together(groups, schedules)
    assert refused.value.position == position
    assert refused.value.error.code == code
    if message is not None:
        assert refused.value.error.message == message
    assert s.snapshot() == before


def test_the_quota_counts_the_batch_itself() -> None:
    s = store(max_schedules=2)
    with pytest.raises(CreationRefused) as refused:
        s.create_together([], [schedule("default", n) for n in "abc"])
    assert refused.value.position == 2
    assert refused.value.error.code == "ServiceQuotaExceededException"
    assert s.all_schedules() == []
