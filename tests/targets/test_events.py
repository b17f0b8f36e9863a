"""Identity values, the default event and context-attribute substitution (§5.4, §5.6 to §5.8)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from pytest_schedemu.formats.times import ztime
from pytest_schedemu.targets.events import (
    default_event,
    event_id,
    execution_id,
    flexible_offset,
    substitute,
)
from tests.constants import SCHEDULE_ARN

T = datetime(2030, 1, 1, tzinfo=timezone.utc)
T_EPOCH = 1893456000
EVENT_ID = "3cbed432-1adb-59b0-8fb9-615f20b69f61"  # incarnation 1


def test_ztime_of_an_epoch_second() -> None:
    assert ztime(T_EPOCH) == "2030-01-01T00:00:00Z"


def test_ztime_of_an_aware_datetime_is_converted_to_utc() -> None:
    local = datetime(2030, 1, 1, 2, 30, 15, tzinfo=timezone(timedelta(hours=2)))
    assert ztime(local) == "2030-01-01T00:30:15Z"


def test_ztime_drops_sub_seconds() -> None:
    assert ztime(T.replace(microsecond=999_999)) == "2030-01-01T00:00:00Z"


def test_ztime_pads_every_field() -> None:
    assert ztime(datetime(987, 2, 3, 4, 5, 6, tzinfo=timezone.utc)) == "0987-02-03T04:05:06Z"


def test_ztime_refuses_a_naive_datetime() -> None:
    with pytest.raises(ValueError, match="naive"):
        ztime(datetime(2030, 1, 1))


def test_event_id_matches_its_vector() -> None:
    assert event_id(SCHEDULE_ARN, 1, T) == EVENT_ID


def test_event_id_is_the_same_for_a_datetime_and_its_epoch_second() -> None:
    assert event_id(SCHEDULE_ARN, 1, T_EPOCH) == EVENT_ID


def test_event_id_ignores_how_the_time_was_written() -> None:
    paris = T.astimezone(timezone(timedelta(hours=1))).replace(microsecond=5)
    assert event_id(SCHEDULE_ARN, 1, paris) == EVENT_ID


def test_event_id_differs_per_nominal_time() -> None:
    assert event_id(SCHEDULE_ARN, 1, T_EPOCH + 60) != EVENT_ID


def test_execution_ids_match_their_vectors() -> None:
    assert [execution_id(0, EVENT_ID, n) for n in (1, 2, 3)] == [
        "e8eae1163291d0ea",
        "f98d39ab5964fb9c",
        "ad7ee5f20f63297f",
    ]


def test_event_id_differs_per_incarnation() -> None:
    assert event_id(SCHEDULE_ARN, 2, T) == "3661a328-ee49-5bab-8e85-ed4d99126dc8"


def test_execution_id_depends_on_the_seed() -> None:
    assert execution_id(1, EVENT_ID, 1) != "e8eae1163291d0ea"


def test_flexible_offset_matches_the_reference_vector() -> None:
    assert flexible_offset(0, SCHEDULE_ARN, T, 15) == 705


def test_flexible_offset_stays_inside_the_window() -> None:
    offsets = {flexible_offset(0, SCHEDULE_ARN, T_EPOCH + 60 * i, 1) for i in range(200)}
    assert min(offsets) >= 0
    assert max(offsets) < 60


def test_default_event_exact_text() -> None:
    text = default_event(
        EVENT_ID, T_EPOCH, account="123456789012", region="us-east-1", schedule_arn=SCHEDULE_ARN
    )
    assert text == (
        '{"version":"0","id":"3cbed432-1adb-59b0-8fb9-615f20b69f61",'
        '"detail-type":"Scheduled Event","source":"aws.scheduler","account":"123456789012",'
        '"time":"2030-01-01T00:00:00Z","region":"us-east-1",'
        '"resources":["arn:aws:scheduler:us-east-1:123456789012:schedule/default/s1"],'
        '"detail":"{}"}'
    )


def test_default_event_detail_is_the_string_of_an_empty_object() -> None:
    text = default_event(
        EVENT_ID, T, account="123456789012", region="us-east-1", schedule_arn=SCHEDULE_ARN
    )
    assert json.loads(text)["detail"] == "{}"


def test_default_event_carries_the_schedules_account_and_region() -> None:
    arn = "arn:aws-cn:scheduler:cn-north-1:210987654321:schedule/g/s"
    event = json.loads(
        default_event(EVENT_ID, T, account="210987654321", region="cn-north-1", schedule_arn=arn)
    )
    assert (event["account"], event["region"], event["resources"]) == (
        "210987654321",
        "cn-north-1",
        [arn],
    )


def sub(text: str, attempt: int = 3) -> str:
    return substitute(text, SCHEDULE_ARN, T_EPOCH, "86d7d9268caa3b91", attempt)


def test_substitute_replaces_all_four_placeholders() -> None:
    text = (
        "<aws.scheduler.schedule-arn> <aws.scheduler.scheduled-time> "
        "<aws.scheduler.execution-id> <aws.scheduler.attempt-number>"
    )
    assert sub(text) == f"{SCHEDULE_ARN} 2030-01-01T00:00:00Z 86d7d9268caa3b91 3"


def test_substitute_replaces_every_repetition() -> None:
    text = "<aws.scheduler.attempt-number>-<aws.scheduler.attempt-number>"
    assert sub(text, attempt=12) == "12-12"


def test_substitute_works_inside_json_strings() -> None:
    text = '{"msg": "run <aws.scheduler.execution-id> at <aws.scheduler.scheduled-time>"}'
    assert sub(text) == '{"msg": "run 86d7d9268caa3b91 at 2030-01-01T00:00:00Z"}'


def test_substitute_adds_no_quotes_to_the_attempt_number() -> None:
    assert sub('{"n": <aws.scheduler.attempt-number>}') == '{"n": 3}'


def test_substitute_leaves_unknown_scheduler_tokens_untouched() -> None:
    text = "<aws.scheduler.foo> <aws.scheduler.attempt-number"
    assert sub(text) == text


def test_substitute_leaves_other_angle_bracket_text_untouched() -> None:
    text = "<b>bold</b> <aws.events.event> <AWS.SCHEDULER.ATTEMPT-NUMBER>"
    assert sub(text) == text


def test_substitute_keeps_everything_around_the_placeholders() -> None:
    text = '  {"a" :\t"<aws.scheduler.attempt-number>"}\n'
    assert sub(text) == '  {"a" :\t"3"}\n'


def test_substitute_returns_text_without_placeholders_unchanged() -> None:
    text = '{"plain": "text"}'
    assert sub(text) is text


def test_substitute_accepts_a_datetime() -> None:
    assert (
        substitute("<aws.scheduler.scheduled-time>", SCHEDULE_ARN, T, "x", 1)
        == "2030-01-01T00:00:00Z"
    )
