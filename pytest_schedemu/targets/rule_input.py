"""What a scheduled rule sends its targets: the Scheduled Event, or what a target's Input,
InputPath or InputTransformer makes of it (pure).

The event is EventBridge's for a scheduled rule: ``source`` ``aws.events``, ``detail-type``
``Scheduled Event``, the rule's ARN in ``resources`` and ``detail`` the object ``{}`` (a
Scheduler schedule's ``detail`` is the string ``"{}"``). A target's ``Input`` replaces it
verbatim (no placeholder is substituted); ``InputPath`` selects part of it with the
JSONPath EventBridge supports; an ``InputTransformer`` fills its ``InputTemplate`` with the
values its ``InputPathsMap`` selects and the predefined variables, quoting them as
EventBridge does (docs/eventbridge-rules.md, from AWS's
https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-transform-target-input.html and
the behaviour LocalStack validated against AWS).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from json.encoder import encode_basestring
from typing import Any

from pytest_schedemu.formats import jsontext
from pytest_schedemu.formats.times import Moment, ztime
from pytest_schedemu.model.rules import TEMPLATE_PLACEHOLDER

SOURCE = "aws.events"
DETAIL_TYPE = "Scheduled Event"

#: The predefined variables of an InputTemplate (``PREDEFINED_PLACEHOLDERS``).
RULE_ARN = "aws.events.rule-arn"
RULE_NAME = "aws.events.rule-name"
INGESTION_TIME = "aws.events.event.ingestion-time"
EVENT = "aws.events.event"
EVENT_JSON = "aws.events.event.json"

#: The error codes of a target input that cannot be built, from the ERROR_CODE values
#: EventBridge documents for its dead letters.
INVALID_JSON = "INVALID_JSON"
INVALID_PARAMETER = "INVALID_PARAMETER"


class _Missing:
    """What a JSONPath that selects nothing yields."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()

# EventBridge's JSONPath: dot notation with names of letters, digits, dashes, underscores
# and slashes, array indices, and wildcards.
_STEP = re.compile(r"\.(?P<name>[A-Za-z0-9_\-/]+|\*)|\[(?P<index>\d+|\*)\]")


class InputError(ValueError):
    """A target input that cannot be built for any occurrence: its ``code`` is the one
    EventBridge's dead letters name, its message says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def scheduled_event(
    event_id: str, scheduled_time: Moment, *, account: str, region: str, rule_arn: str
) -> dict[str, Any]:
    """The event of one occurrence of a scheduled rule, in AWS's key order."""
    return {
        "version": "0",
        "id": event_id,
        "detail-type": DETAIL_TYPE,
        "source": SOURCE,
        "account": account,
        "time": ztime(scheduled_time),
        "region": region,
        "resources": [rule_arn],
        "detail": {},
    }


def select(document: Any, path: str) -> Any:
    """The part of ``document`` a JSONPath selects; ``MISSING`` when it selects nothing.

    A path with a wildcard selects a list of every match (empty ones left out), as
    JSONPath does. ValueError for a path EventBridge's syntax does not allow.
    """
    if not path.startswith("$"):
        raise ValueError(f"Unsupported JSONPath {path!r}: expected one that starts with $")
    steps = []
    position = 1
    while position < len(path):
        match = _STEP.match(path, position)
        if match is None:
            raise ValueError(
                f"Unsupported JSONPath {path!r} at {path[position:]!r}: EventBridge takes dot "
                "notation, array indices and wildcards"
            )
        steps.append(match["name"] if match["name"] is not None else match["index"])
        position = match.end()
    found = [document]
    many = False
    for step in steps:
        following: list[Any] = []
        for value in found:
            if step == "*":
                many = True
                if isinstance(value, Mapping):
                    following.extend(value.values())
                elif isinstance(value, list):
                    following.extend(value)
            elif step.isdigit() and isinstance(value, list):
                if int(step) < len(value):
                    following.append(value[int(step)])
            elif isinstance(value, Mapping) and step in value:
                following.append(value[step])
        found = following
    if many:
        return found
    return found[0] if found else MISSING


def apply_input_path(event: Mapping[str, Any], path: str) -> str:
    """The payload an InputPath makes: the JSON of what it selects. InputError when it
    selects nothing."""
    value = select(event, path)
    if value is MISSING:
        raise InputError(
            INVALID_PARAMETER,
            f"InputPath {path} selects nothing in the Scheduled Event; its keys are "
            f"{', '.join(event)}",
        )
    return jsontext.dumps_compact(value)


def predefined(event: Mapping[str, Any], *, rule_arn: str, rule_name: str) -> dict[str, Any]:
    """The predefined variables' values for ``event``."""
    # aws.events.event is the event without its detail, with detail-type spelled detailType
    # (as AWS sends it, seen in LocalStack's AWS-validated snapshots).
    without_detail = {
        ("detailType" if key == "detail-type" else key): value
        for key, value in event.items()
        if key != "detail"
    }
    return {
        RULE_ARN: rule_arn,
        RULE_NAME: rule_name,
        # A scheduled event is ingested when its rule fires: its own time.
        INGESTION_TIME: event["time"],
        EVENT: without_detail,
        EVENT_JSON: dict(event),
    }


def transform(
    template: str,
    paths: Mapping[str, str],
    event: Mapping[str, Any],
    *,
    rule_arn: str,
    rule_name: str,
) -> str:
    """An InputTransformer's output for ``event``: the template, each ``<variable>`` replaced.

    A template that is a JSON object (it starts with ``{``) takes a variable outside a
    string as a JSON value (a string quoted, a missing one as ``""``) and one inside a
    string as its bare text; any other template takes every variable as bare text, objects
    and lists as their JSON without quotes. InputError when a JSON template's output is not
    JSON: AWS then delivers nothing.
    """
    values: dict[str, Any] = {name: select(event, path) for name, path in paths.items()}
    values.update(predefined(event, rule_arn=rule_arn, rule_name=rule_name))
    as_json = template.strip().startswith("{")
    strings = _string_spans(template) if as_json else []
    pieces = []
    last = 0
    for match in TEMPLATE_PLACEHOLDER.finditer(template):
        name = match.group(1)
        if name not in values:
            continue  # PutTargets refuses an undefined one; text in <> stays as written
        inside = any(start < match.start() < end for start, end in strings)
        pieces.append(template[last : match.start()])
        pieces.append(_text(values[name], as_json, inside))
        last = match.end()
    pieces.append(template[last:])
    output = "".join(pieces)
    if as_json:
        try:
            jsontext.loads(output)
        except ValueError:
            raise InputError(
                INVALID_JSON,
                f"The InputTemplate makes invalid JSON: {output[:200]} (a JSON value inside "
                "quotes, or a quote inside a value, breaks it)",
            ) from None
    return output


def _text(value: Any, json_template: bool, inside_string: bool) -> str:
    """How one variable's value is written into a template."""
    as_value = json_template and not inside_string
    if value is MISSING:
        return '""' if as_value else ""
    if isinstance(value, str):
        return encode_basestring(value) if as_value else value
    text = jsontext.dumps_compact(value)
    if isinstance(value, (dict, list)) and not json_template:
        # In a text template AWS writes an object or a list as its JSON without quotes,
        # {a:b,c:[d]}; in a JSON one always as JSON, which inside quotes breaks it.
        return text.replace('"', "")
    return text


def _string_spans(template: str) -> list[tuple[int, int]]:
    """The (start, end) of every JSON string literal in ``template``."""
    spans = []
    start = None
    escaped = False
    for position, character in enumerate(template):
        if start is None:
            if character == '"':
                start = position
        elif escaped:
            escaped = False
        elif character == "\\":
            escaped = True
        elif character == '"':
            spans.append((start, position))
            start = None
    return spans
