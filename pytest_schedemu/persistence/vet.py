"""What an imported dump must be before it is written: rows a running service could have
written, checked table by table, each refusal naming the table, the row and the field.

Schedules, groups and rules go through the operations' own checks, the command layer's
(``commands.vetting.Vetting``, given by the caller: persistence sees neither the commands
nor the APIs), as CreateSchedule, CreateScheduleGroup, PutRule and PutTargets would; the
rest (counters, the plans of rules' targets, occurrences, attempts, records) are checked
for type against the schema and for consistency with one another.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Protocol, TypeVar

from pytest_schedemu.errors import ApiError, StateError
from pytest_schedemu.model.resources import DEFAULT_GROUP, Schedule, ScheduleGroup
from pytest_schedemu.model.rules import Rule
from pytest_schedemu.persistence import codec, rule_rows
from pytest_schedemu.records import CANCELLED, INVOCATION_ERROR, SUCCESS

T = TypeVar("T")

#: What SQLite's INTEGER holds.
_INTEGERS = range(-(2**63), 2**63)
_STATUSES = frozenset((*codec.UNSETTLED, SUCCESS, INVOCATION_ERROR, CANCELLED))


class Vetting(Protocol):
    """The API's checks; each raises an ``ApiError`` naming the field that fails."""

    def schedule(self, schedule: Schedule) -> None: ...

    def group(self, group: ScheduleGroup) -> None: ...

    def rule(self, rule: Rule) -> None: ...


def refusal(table: str, index: int | str, field: str, problem: str) -> StateError:
    return StateError(f'Row {index} of the dump\'s table "{table}", field "{field}": {problem}')


def check_value(table: str, index: int, column: str, kind: str, required: bool, value: Any) -> None:
    """A column's value against the schema's type (``kind``, ``required``)."""
    if value is None:
        if required:
            raise refusal(table, index, column, "must not be null")
        return
    if kind == "INTEGER":
        if isinstance(value, bool) or not isinstance(value, int):
            raise refusal(table, index, column, f"expected an integer, not {value!r:.80}")
        if value not in _INTEGERS:
            raise refusal(table, index, column, f"{value} is out of range (64-bit integers)")
    elif kind == "TEXT" and not isinstance(value, (str, bytes)):
        raise refusal(table, index, column, f"expected text, not {value!r:.80}")


def check_tables(tables: dict[str, Any], vetting: Vetting) -> None:
    """Refuse (StateError) a dump whose rows could not have been written by a service."""
    meta = tables.get("meta", {})
    counter = meta.get("incarnations", 0)
    if not _is_count(counter):
        raise refusal("meta", "incarnations", "value", "expected a count of incarnations")
    dropped = meta.get("dropped", {})
    if not isinstance(dropped, dict) or not all(_is_count(count) for count in dropped.values()):
        raise refusal("meta", "dropped", "value", "expected an object of counts per record kind")
    for key in ("clock", "created_at"):
        if key in meta:
            try:
                codec.instant(meta[key])
            except (TypeError, ValueError) as error:
                raise refusal("meta", key, "value", str(error)) from None
    groups: set[tuple[str, str, str]] = set()
    for index, row in enumerate(tables.get("groups", [])):
        groups.add((row["account"], row["region"], row["name"]))
        _check_group(index, row, vetting)
    incarnations: set[int] = set()

    def new_incarnation(table: str, index: int, field: str, incarnation: int) -> None:
        if not 1 <= incarnation <= counter:
            raise refusal(
                table,
                index,
                field,
                f"{incarnation} is not between 1 and the meta counter of incarnations ({counter})",
            )
        if incarnation in incarnations:
            raise refusal(table, index, field, f"{incarnation} is used twice")
        incarnations.add(incarnation)

    for index, row in enumerate(tables.get("schedules", [])):
        new_incarnation("schedules", index, "incarnation", row["incarnation"])
        if row["fires"] < 0:
            raise refusal("schedules", index, "fires", "must be 0 or more")
        _check_schedule(index, row, vetting)
        if (
            row["grp"] != DEFAULT_GROUP
            and (row["account"], row["region"], row["grp"]) not in groups
        ):
            raise refusal("schedules", index, "grp", f"no group {row['grp']!r} in its partition")
    planned: dict[int, tuple[str, str]] = {}
    for index, row in enumerate(tables.get("rules", [])):
        rule = _check_rule(index, row, vetting)
        new_incarnation("rules", index, "incarnation", rule.incarnation)
        for target in rule.targets:
            new_incarnation("rules", index, f"definition (target {target.id})", target.incarnation)
            if rule.schedule_expression is not None:
                planned[target.incarnation] = (rule.arn, target.id)
    _check_rule_plans(tables.get("rule_plans", []), planned)
    for table in ("occurrences", "attempts"):
        for index, row in enumerate(tables.get(table, [])):
            if not 1 <= row["incarnation"] <= counter:
                raise refusal(
                    table,
                    index,
                    "incarnation",
                    f"{row['incarnation']} is not between 1 and the meta counter ({counter})",
                )
    for index, row in enumerate(tables.get("occurrences", [])):
        if row["status"] not in _STATUSES:
            raise refusal("occurrences", index, "status", f"{row['status']!r} is no status")
        if row["next_number"] is not None and row["next_number"] < 1:
            raise refusal("occurrences", index, "next_number", "must be 1 or more")
        if row["fired"] < 0:
            raise refusal("occurrences", index, "fired", "must be 0 or more (the fire number)")
    for index, row in enumerate(tables.get("attempts", [])):
        if row["attempt_number"] < 1:
            raise refusal("attempts", index, "attempt_number", "must be 1 or more")
        if row["fired"] not in (0, 1):
            raise refusal("attempts", index, "fired", "must be 0 or 1")
    for index, row in enumerate(tables.get("known", [])):
        _check_known(index, row)
    for index, row in enumerate(tables.get("dead_letters", [])):
        attributes = row["attributes"]
        if not isinstance(attributes, dict) or not all(
            isinstance(value, str) for value in attributes.values()
        ):
            raise refusal(
                "dead_letters", index, "attributes", "expected an object of text message attributes"
            )


def _check_group(index: int, row: dict[str, Any], vetting: Vetting) -> None:
    try:
        group, _ = codec.group_from(tuple(_stored(row, "tags").values()))
    except (TypeError, ValueError) as error:
        raise refusal("groups", index, "tags", f"cannot be read ({error})") from None
    try:
        vetting.group(group)
    except ApiError as error:
        raise refusal("groups", index, "name, state or tags", error.message) from None


def _read(table: str, index: int, read: Callable[[str], T], row: dict[str, Any]) -> T:
    """What ``read`` makes of the row's ``definition`` (an object in the dump), or the
    refusal that says why it cannot be read."""
    try:
        return read(codec.dumps(row["definition"]))
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        problem = f"cannot be read ({type(error).__name__}: {error})"
        raise refusal(table, index, "definition", problem) from None


def _check_schedule(index: int, row: dict[str, Any], vetting: Vetting) -> None:
    incarnation = row["incarnation"]
    schedule = _read("schedules", index, lambda text: codec.schedule_from(text, incarnation), row)
    where = (schedule.account_id, schedule.region, schedule.group_name, schedule.name)
    if where != (row["account"], row["region"], row["grp"], row["name"]):
        raise refusal(
            "schedules", index, "definition", "names another schedule than the row's columns"
        )
    try:
        vetting.schedule(schedule)
    except ApiError as error:
        raise refusal("schedules", index, "definition", error.message) from None


def _check_rule(index: int, row: dict[str, Any], vetting: Vetting) -> Rule:
    incarnation = row["incarnation"]
    rule = _read("rules", index, lambda text: rule_rows.rule_from(text, incarnation), row)
    where = (rule.account_id, rule.region, rule.event_bus_name, rule.name)
    if where != (row["account"], row["region"], row["bus"], row["name"]):
        raise refusal("rules", index, "definition", "names another rule than the row's columns")
    for name in ("managed_by", "created_by"):
        if not isinstance(getattr(rule, name), (str, type(None))):
            raise refusal("rules", index, "definition", f"{name} must be text or null")
    if rule.activated_at < rule.creation_date:
        raise refusal("rules", index, "definition", "activated_at is before creation_date")
    try:
        vetting.rule(rule)
    except ApiError as error:
        raise refusal("rules", index, "definition", error.message) from None
    return rule


def _check_known(index: int, row: dict[str, Any]) -> None:
    if row["kind"] not in ("schedule", "rule_target", "target", "dlq"):
        raise refusal("known", index, "kind", f"{row['kind']!r} is no kind of name")
    if row["kind"] == "rule_target":  # its last definition, which its lane draws
        _read("known", index, rule_rows.rule_target_from, row)


def _check_rule_plans(rows: list[dict[str, Any]], planned: dict[int, tuple[str, str]]) -> None:
    """Each target of a scheduled rule has one plan, and each plan is such a target's."""
    seen: set[int] = set()
    for index, row in enumerate(rows):
        incarnation = row["incarnation"]
        if planned.get(incarnation) != (row["rule_arn"], row["target_id"]):
            raise refusal(
                "rule_plans",
                index,
                "incarnation",
                f"{incarnation} is not the target {row['target_id']!r} of the scheduled rule "
                f"{row['rule_arn']}",
            )
        seen.add(incarnation)
        try:
            codec.instant(row["defined_at"])
        except (TypeError, ValueError) as error:
            raise refusal("rule_plans", index, "defined_at", str(error)) from None
        if row["fires"] < 0:
            raise refusal("rule_plans", index, "fires", "must be 0 or more")
    for incarnation, (arn, target_id) in planned.items():
        if incarnation not in seen:
            raise refusal(
                "rule_plans",
                "(missing)",
                "incarnation",
                f"the target {target_id!r} of the scheduled rule {arn} has no plan",
            )


def _stored(row: dict[str, Any], json_column: str) -> dict[str, Any]:
    """The row as the file holds it: its JSON column as text."""
    return {**row, json_column: json.dumps(row[json_column])}


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**63
