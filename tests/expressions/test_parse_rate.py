"""§4.3: the rate() grammar."""

from __future__ import annotations

import pytest

from pytest_schedemu.expressions import InvalidScheduleExpression, RateExpression, parse_expression


def rate_of(text: str) -> RateExpression:
    expression = parse_expression(text)
    assert isinstance(expression, RateExpression)
    return expression


@pytest.mark.parametrize(
    ("text", "value", "unit", "period"),
    [
        ("rate(1 minute)", 1, "minute", 60),
        ("rate(10 minutes)", 10, "minute", 600),
        ("rate(1 hour)", 1, "hour", 3600),
        ("rate(12 hours)", 12, "hour", 43200),
        ("rate(1 day)", 1, "day", 86400),
        ("rate(7 days)", 7, "day", 604800),
    ],
)
def test_rate_value_unit_and_period(text: str, value: int, unit: str, period: int) -> None:
    rate = rate_of(text)
    assert (rate.value, rate.unit, rate.period_seconds) == (value, unit, period)


@pytest.mark.parametrize(
    "text", ["rate(1 minutes)", "rate(5 minute)", "rate(2 minute)", "rate(1 hours)", "rate(3 day)"]
)
def test_rate_does_not_check_singular_against_plural(text: str) -> None:
    rate_of(text)


@pytest.mark.parametrize(
    ("text", "unit"),
    [("rate(5 MINUTES)", "minute"), ("rate(1 Hour)", "hour"), ("RATE(2 DaYs)", "day")],
)
def test_rate_unit_is_case_insensitive(text: str, unit: str) -> None:
    assert rate_of(text).unit == unit


def test_rate_value_may_have_leading_zeros() -> None:
    assert rate_of("rate(007 minutes)").value == 7


def test_rate_value_and_unit_may_be_separated_by_several_spaces() -> None:
    assert rate_of("rate(10   minutes)").period_seconds == 600


def test_rate_value_has_no_upper_bound() -> None:
    assert rate_of("rate(100000000000 days)").period_seconds == 100000000000 * 86400


def test_a_rate_day_is_always_86400_seconds() -> None:
    assert rate_of("rate(1 day)").period_seconds == 24 * 3600


@pytest.mark.parametrize(
    "text",
    [
        # Recorded as rejected by AWS.
        "rate(10 seconds)",
        "rate(10 years)",
        "rate(10 minutess)",
        "rate()",
        "rate(10)",
        "rate(foo minutes)",
        "rate(-10 minutes)",
        "rate( 10 minutes )",
        " rate(10 minutes)",
        # No zero, no week unit, integers only.
        "rate(0 minutes)",
        "rate(000 hours)",
        "rate(1 week)",
        "rate(2 weeks)",
        "rate(1.5 hours)",
        "rate(+1 minute)",
        "rate(1e3 minutes)",
        # Exactly one run of spaces, no tabs, nothing extra.
        "rate(1minute)",
        "rate(1\tminute)",
        "rate(1 minute 2 minutes)",
        "rate(minutes 5)",
        "rate(5 min)",
        "rate(5 m)",
    ],
)
def test_rate_rejects_malformed_text(text: str) -> None:
    with pytest.raises(InvalidScheduleExpression):
        parse_expression(text)
