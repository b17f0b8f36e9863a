"""A partition keeps its groups and schedules in key order through every change, so that a
listing, and a walk through its pages, shows exactly what is stored."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_schedemu.formats.times import EPOCH
from pytest_schedemu.model.resources import (
    DEFAULT_GROUP,
    FlexibleTimeWindow,
    Schedule,
    ScheduleGroup,
    Target,
)
from pytest_schedemu.state.partition import RegionState
from tests.constants import ACCOUNT

REGION = "eu-west-1"


def schedule(group: str, name: str, version: int = 0) -> Schedule:
    return Schedule(
        ACCOUNT,
        REGION,
        group,
        name,
        "rate(1 hour)",
        FlexibleTimeWindow(),
        Target("arn:aws:sqs:eu-west-1:123456789012:q", "arn:aws:iam::123456789012:role/r"),
        EPOCH,
        EPOCH,
        version,
    )


def group(name: str, tags: tuple[tuple[str, str], ...] = ()) -> ScheduleGroup:
    return ScheduleGroup(ACCOUNT, REGION, name, EPOCH, EPOCH, tags=tags)


def partition() -> RegionState:
    return RegionState(ACCOUNT, REGION, EPOCH)


def all_pages(state: RegionState, limit: int) -> list[Schedule]:
    found: list[Schedule] = []
    more = True
    while more:
        after = None if not found else (found[-1].group_name, found[-1].name)
        page, more = state.schedule_page(
            group=None, prefix=None, state_filter=None, after=after, limit=limit
        )
        found += page
    return found


def test_a_new_partition_holds_its_default_group_only() -> None:
    state = partition()
    assert [g.name for g in state.groups()] == [DEFAULT_GROUP]
    assert state.untouched
    assert list(state.schedules()) == []


def test_removing_a_group_takes_its_schedules_and_no_others() -> None:
    state = partition()
    for name in ("a", "ab", "b"):
        state.add_group(group(name))
    for group_name, name in [("a", "2"), ("ab", "1"), ("a", "1"), ("b", "1")]:
        state.add_schedule(schedule(group_name, name))
    removed = state.remove_group("a")
    assert [(s.group_name, s.name) for s in removed] == [("a", "1"), ("a", "2")]
    assert [(s.group_name, s.name) for s in state.schedules()] == [("ab", "1"), ("b", "1")]
    assert [g.name for g in state.groups()] == ["ab", "b", DEFAULT_GROUP]


@pytest.mark.parametrize(
    "change",
    [
        lambda state: state.add_group(group(DEFAULT_GROUP)),
        lambda state: state.replace_group(group("missing")),
        lambda state: state.remove_group("missing"),
        lambda state: state.add_schedule(schedule(DEFAULT_GROUP, "kept")),
        lambda state: state.replace_schedule(schedule(DEFAULT_GROUP, "missing")),
    ],
)
def test_a_change_to_a_key_that_is_not_as_expected_is_refused_and_changes_nothing(
    change: Any,
) -> None:
    state = partition()
    state.add_schedule(schedule(DEFAULT_GROUP, "kept"))
    before = (list(state.groups()), list(state.schedules()))
    with pytest.raises(KeyError):
        change(state)
    assert (list(state.groups()), list(state.schedules())) == before


GROUPS = st.sampled_from(["a", "b", "c", DEFAULT_GROUP])
NAMES = st.sampled_from(["x", "y", "z"])
CHANGES = st.lists(
    st.one_of(
        st.tuples(st.just("add_group"), GROUPS, st.just("")),
        st.tuples(st.just("retag_group"), GROUPS, st.just("")),
        st.tuples(st.just("remove_group"), GROUPS, st.just("")),
        st.tuples(st.just("add_schedule"), GROUPS, NAMES),
        st.tuples(st.just("replace_schedule"), GROUPS, NAMES),
        st.tuples(st.just("remove_schedule"), GROUPS, NAMES),
    ),
    max_size=40,
)


@given(changes=CHANGES, limit=st.integers(1, 4))
def test_the_keys_stay_in_order_through_any_changes(
    changes: list[tuple[str, str, str]], limit: int
) -> None:
    state = partition()
    groups = {DEFAULT_GROUP: next(state.groups())}
    schedules: dict[tuple[str, str], Schedule] = {}
    for step, (kind, group_name, name) in enumerate(changes):
        key = (group_name, name)
        if kind == "add_group" and group_name not in groups:
            groups[group_name] = group(group_name)
            state.add_group(groups[group_name])
        elif kind == "retag_group" and group_name in groups:
            groups[group_name] = group(group_name, (("step", str(step)),))
            state.replace_group(groups[group_name])
        elif kind == "remove_group" and group_name in groups:
            gone = sorted(k for k in schedules if k[0] == group_name)
            assert [(s.group_name, s.name) for s in state.remove_group(group_name)] == gone
            del groups[group_name]
            for gone_key in gone:
                del schedules[gone_key]
        elif kind == "add_schedule" and key not in schedules:
            schedules[key] = schedule(group_name, name, step)
            state.add_schedule(schedules[key])
        elif kind == "replace_schedule" and key in schedules:
            replaced = dataclasses.replace(schedules[key], incarnation=step)
            assert state.replace_schedule(replaced) == schedules[key]
            schedules[key] = replaced
        elif kind == "remove_schedule":
            assert state.remove_schedule(group_name, name) == schedules.pop(key, None)
        assert list(state.groups()) == [groups[name] for name in sorted(groups)]
        assert list(state.schedules()) == [schedules[key] for key in sorted(schedules)]
        assert all(state.group(name) is g for name, g in groups.items())
        assert all(state.schedule(*key) is s for key, s in schedules.items())
        assert (state.group_count, state.schedule_count) == (len(groups), len(schedules))
    assert all_pages(state, limit) == [schedules[key] for key in sorted(schedules)]


@pytest.mark.parametrize("limit", [1, 2, 5])
@pytest.mark.parametrize("in_group", [None, "b", "c"])
def test_a_name_prefix_walked_page_by_page_lists_each_match_once_in_key_order(
    in_group: str | None, limit: int
) -> None:
    state = partition()
    keys = [
        ("a", "pay-2"),
        ("a", "ann"),
        ("a", "pay-1"),
        ("b", "zed"),
        ("b", "pay"),
        ("b", "paz"),
        ("b", "a"),
        ("c", "pay-3"),
    ]
    for name in ("a", "b", "c"):
        state.add_group(group(name))
    for group_name, name in keys:
        state.add_schedule(schedule(group_name, name))
    expected = sorted(
        key for key in keys if key[1].startswith("pay") and in_group in (None, key[0])
    )
    found: list[tuple[str, str]] = []
    more = True
    while more:
        page, more = state.schedule_page(
            group=in_group,
            prefix="pay",
            state_filter=None,
            after=found[-1] if found else None,
            limit=limit,
        )
        found += [(s.group_name, s.name) for s in page]
    assert found == expected
