"""The grammar of an EventBridge rule's schedule expression: Scheduler's fields, with a
rule's stricter rates and crons."""

from __future__ import annotations

import pytest

from pytest_schedemu.errors import InvalidScheduleExpression
from pytest_schedemu.expressions import parse_expression
from pytest_schedemu.expressions.rules import parse_rule_expression


@pytest.mark.parametrize(
    ("text", "period"),
    [
        ("rate(1 minute)", 60),
        ("rate(5 minutes)", 300),
        ("rate(1 hour)", 3600),
        ("rate(3 days)", 259200),
    ],
)
def test_a_rate_in_the_singular_for_one_and_the_plural_otherwise(text: str, period: int) -> None:
    expression = parse_rule_expression(text)
    assert expression.kind == "rate"
    assert expression.period_seconds == period  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "text",
    ["rate(1 minutes)", "rate(2 hour)", "rate(10 MINUTES)", "RATE(5 minutes)", "rate(5  minutes)"],
)
def test_rates_scheduler_takes_and_a_rule_refuses(text: str) -> None:
    with pytest.raises(InvalidScheduleExpression) as excinfo:
        parse_rule_expression(text)
    assert excinfo.value.expression == text


def test_a_cron_has_six_fields_where_scheduler_completes_five() -> None:
    assert parse_expression("cron(0 12 * * ?)").kind == "cron"
    with pytest.raises(InvalidScheduleExpression):
        parse_rule_expression("cron(0 12 * * ?)")
    assert parse_rule_expression("cron(0 12 * * ? *)") == parse_expression("cron(0 12 * * ? *)")


@pytest.mark.parametrize("text", ["at(2030-01-01T00:00:00)", "", "cron(0 12 * * ? * *)"])
def test_no_at_and_nothing_else(text: str) -> None:
    with pytest.raises(InvalidScheduleExpression):
        parse_rule_expression(text)
