"""The schedule expressions an EventBridge rule accepts: stricter than Scheduler's.

A rule's ``ScheduleExpression`` is a ``rate()`` or a ``cron()``, always in UTC: no
``at()``, no time zone. AWS documents that a rate's unit is ``minute``, ``hour`` or ``day``,
in the singular for a value of 1 and the plural otherwise
(https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-rate-expressions.html), and
that a cron has six required fields
(https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-cron-expressions.html).
AWS's answers, as LocalStack recorded them against AWS
(``tests/aws/services/events/test_events_schedule.py``), refuse too a unit in capitals
(``rate(10 MINUTES)``) and spaces inside or around the parentheses; a cron of five fields,
which Scheduler completes with ``*``, is refused. The grammar of each field is Scheduler's
(``parse_expression``), so the dispatcher plans a rule with the very engine it plans a
schedule with.
"""

from __future__ import annotations

import re
from typing import Union

from pytest_schedemu.errors import InvalidScheduleExpression
from pytest_schedemu.expressions.cron import CronExpression
from pytest_schedemu.expressions.expression import parse_expression
from pytest_schedemu.expressions.rate import RateExpression

RuleExpression = Union[RateExpression, CronExpression]

# One space between the value and the unit, lower-case, nothing around them.
_RATE = re.compile(r"rate\((?P<value>[0-9]+) (?P<unit>minutes?|hours?|days?)\)", re.ASCII)
_CRON_FIELDS = 6


def parse_rule_expression(text: str) -> RuleExpression:
    """The parsed expression of a rule; raises ``InvalidScheduleExpression`` echoing ``text``
    for one a rule may not have."""
    if text.startswith("rate("):
        found = _RATE.fullmatch(text)
        if found is None:
            raise InvalidScheduleExpression(text)
        plural = found["unit"].endswith("s")
        if plural != (int(found["value"]) != 1):
            raise InvalidScheduleExpression(text)
    elif text.startswith("cron("):
        if len(text[5:-1].split()) != _CRON_FIELDS:
            raise InvalidScheduleExpression(text)
    else:
        raise InvalidScheduleExpression(text)
    expression = parse_expression(text)
    if isinstance(expression, (RateExpression, CronExpression)):
        return expression
    raise InvalidScheduleExpression(text)  # pragma: no cover - rate( and cron( only
