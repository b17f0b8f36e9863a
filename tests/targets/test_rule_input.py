"""What a scheduled rule sends its targets: the Scheduled Event, and what Input, InputPath
and InputTransformer make of it (the cases AWS's docs give and LocalStack validated)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_schedemu.targets.rule_input import (
    INVALID_JSON,
    INVALID_PARAMETER,
    MISSING,
    InputError,
    apply_input_path,
    scheduled_event,
    select,
    transform,
)
from tests.constants import T0

RULE = "arn:aws:events:us-east-1:123456789012:rule/nightly"


def event(detail: Any = None) -> dict[str, Any]:
    found = scheduled_event("e-1", T0, account="123456789012", region="us-east-1", rule_arn=RULE)
    if detail is not None:
        found["detail"] = detail
    return found


def fill(template: str, paths: dict[str, str] | None = None, detail: Any = None) -> str:
    return transform(template, paths or {}, event(detail), rule_arn=RULE, rule_name="nightly")


DETAIL = {
    "command": "update-account",
    "payload": {"acc_id": "0a787ecb-4015", "sf_id": "baz"},
    "listsingle": ["HIGH"],
    "listmulti": ["ACTIVE", "INACTIVE"],
    "valid": True,
}
PATHS = {
    "userId": "$.detail.payload.acc_id",
    "payload": "$.detail.payload",
    "missing": "$.detail.awsAccountId",
    "listsingle": "$.detail.listsingle",
    "listmulti": "$.detail.listmulti",
    "valid": "$.detail.valid",
}


def test_the_scheduled_event_is_eventbridges_with_an_object_detail() -> None:
    assert json.dumps(event(), separators=(",", ":")) == (
        '{"version":"0","id":"e-1","detail-type":"Scheduled Event","source":"aws.events",'
        '"account":"123456789012","time":"2026-03-01T10:00:00Z","region":"us-east-1",'
        f'"resources":["{RULE}"],"detail":{{}}}}'
    )


@pytest.mark.parametrize(
    ("path", "selected"),
    [
        ("$", None),
        ("$.detail", DETAIL),
        ("$.detail.payload.sf_id", "baz"),
        ("$.resources[0]", RULE),
        ("$.detail.listmulti[*]", ["ACTIVE", "INACTIVE"]),
        ("$.detail.payload.*", ["0a787ecb-4015", "baz"]),
        ("$.detail-type", "Scheduled Event"),
    ],
)
def test_a_jsonpath_selects_as_eventbridge_does(path: str, selected: Any) -> None:
    whole = event(DETAIL)
    assert select(whole, path) == (whole if selected is None else selected)


def test_a_jsonpath_that_selects_nothing_is_told_apart_from_null() -> None:
    assert select(event(), "$.detail.nothing") is MISSING
    assert select(event({"none": None}), "$.detail.none") is None
    assert select(event(), "$.resources[3]") is MISSING


def test_a_jsonpath_beyond_eventbridges_syntax_is_refused() -> None:
    with pytest.raises(ValueError, match="Unsupported JSONPath"):
        select(event(), "$..detail")
    with pytest.raises(ValueError, match="starts with \\$"):
        select(event(), "detail")


def test_an_input_path_sends_the_json_of_what_it_selects() -> None:
    assert apply_input_path(event(DETAIL), "$.detail.payload.sf_id") == '"baz"'
    assert apply_input_path(event(), "$.detail") == "{}"


def test_an_input_path_that_selects_nothing_cannot_be_sent() -> None:
    with pytest.raises(InputError) as caught:
        apply_input_path(event(), "$.detail.id")
    assert caught.value.code == INVALID_PARAMETER
    assert "selects nothing" in str(caught.value)


# The templates and outputs of LocalStack's AWS-validated snapshots
# (tests/aws/services/events/test_events_inputs.py, TestInputTransformer).
@pytest.mark.parametrize(
    ("template", "output"),
    [
        (
            '{"method": "PUT", "path": "users-service/users/<userId>", "bod": <payload>}',
            '{"method": "PUT", "path": "users-service/users/0a787ecb-4015", '
            '"bod": {"acc_id":"0a787ecb-4015","sf_id":"baz"}}',
        ),
        (
            '"Payload of <payload> with path users-service/users/<userId> and <userId>"',
            '"Payload of {acc_id:0a787ecb-4015,sf_id:baz} with path '
            'users-service/users/0a787ecb-4015 and 0a787ecb-4015"',
        ),
        ('{"id" : <userId>}', '{"id" : "0a787ecb-4015"}'),
        ('{"id" : "<userId>"}', '{"id" : "0a787ecb-4015"}'),
        ('"<listsingle> single list item"', '"[HIGH] single list item"'),
        ('"<listmulti> multiple list items"', '"[ACTIVE,INACTIVE] multiple list items"'),
        ('{"singlelistitem": <listsingle>}', '{"singlelistitem": ["HIGH"]}'),
        ('"Command is <valid>!"', '"Command is true!"'),
        (
            '{"multi_replacement": "users/<userId>/second/<userId>"}',
            '{"multi_replacement": "users/0a787ecb-4015/second/0a787ecb-4015"}',
        ),
        ('"<missing> system account id"', '" system account id"'),
        ('{"command": <missing>}', '{"command": ""}'),
        ("<userId> is <valid>", "0a787ecb-4015 is true"),
    ],
)
def test_an_input_template_quotes_values_as_aws_does(template: str, output: str) -> None:
    assert fill(template, PATHS, DETAIL) == output


@pytest.mark.parametrize(
    "template",
    [
        '{"not_valid": "users-service/users/<payload>", "bod": <payload>}',
        '{"payload": "<payload>"}',
        '{"singlelistitem": "<listsingle>"}',
    ],
)
def test_a_json_template_that_makes_invalid_json_cannot_be_sent(template: str) -> None:
    # AWS delivers nothing for these (LocalStack's validated "not valid" cases).
    with pytest.raises(InputError) as caught:
        fill(template, PATHS, DETAIL)
    assert caught.value.code == INVALID_JSON


def test_the_predefined_variables_name_the_rule_and_the_event() -> None:
    assert fill(
        '"<aws.events.rule-arn> <aws.events.rule-name> <aws.events.event.ingestion-time>"'
    ) == (f'"{RULE} nightly 2026-03-01T10:00:00Z"')
    both = json.loads(fill('{"e": <aws.events.event>, "j": <aws.events.event.json>}'))
    assert both["j"] == event()
    # The event without its detail, its detail-type spelled detailType.
    assert both["e"] == {
        "version": "0",
        "id": "e-1",
        "detailType": "Scheduled Event",
        "source": "aws.events",
        "account": "123456789012",
        "time": "2026-03-01T10:00:00Z",
        "region": "us-east-1",
        "resources": [RULE],
    }


def test_a_string_value_outside_quotes_is_escaped_as_json() -> None:
    assert json.loads(fill('{"t": <t>}', {"t": "$.detail.t"}, {"t": 'say "hi"'})) == {
        "t": 'say "hi"'
    }


def test_text_in_angle_brackets_that_is_no_variable_stays_as_written() -> None:
    assert fill('"a <b> c"') == '"a <b> c"'
