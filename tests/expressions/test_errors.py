"""The two error types: wording, attributes, and what parse/resolve raise."""

from __future__ import annotations

import pickle

import pytest

from pytest_schedemu.expressions import (
    InvalidScheduleExpression,
    InvalidTimezone,
    parse_expression,
    resolve_timezone,
)


def test_invalid_expression_message_echoes_the_expression_and_ends_with_a_period() -> None:
    error = InvalidScheduleExpression("rate(10 seconds)")
    assert str(error) == "Invalid Schedule Expression rate(10 seconds)."
    assert error.expression == "rate(10 seconds)"


def test_invalid_expression_message_keeps_leading_spaces_byte_for_byte() -> None:
    # The reference's example: two spaces after "Expression".
    with pytest.raises(InvalidScheduleExpression) as caught:
        parse_expression(" rate(10 minutes)")
    assert str(caught.value) == "Invalid Schedule Expression  rate(10 minutes)."
    assert caught.value.expression == " rate(10 minutes)"


def test_invalid_expression_message_keeps_trailing_spaces() -> None:
    with pytest.raises(InvalidScheduleExpression) as caught:
        parse_expression("cron(0 0 * * ? *) ")
    assert str(caught.value) == "Invalid Schedule Expression cron(0 0 * * ? *) ."


def test_invalid_timezone_message_names_the_zone() -> None:
    with pytest.raises(InvalidTimezone) as caught:
        resolve_timezone("Mars/Olympus_Mons")
    assert str(caught.value) == "Invalid Schedule Expression Timezone Mars/Olympus_Mons."
    assert caught.value.timezone == "Mars/Olympus_Mons"


def test_both_errors_are_value_errors() -> None:
    assert issubclass(InvalidScheduleExpression, ValueError)
    assert issubclass(InvalidTimezone, ValueError)


def test_errors_survive_pickling_with_their_attribute_and_message() -> None:
    expression = pickle.loads(pickle.dumps(InvalidScheduleExpression("cron()")))
    zone = pickle.loads(pickle.dumps(InvalidTimezone("UTC+3")))
    assert (expression.expression, str(expression)) == (
        "cron()",
        "Invalid Schedule Expression cron().",
    )
    assert (zone.timezone, str(zone)) == ("UTC+3", "Invalid Schedule Expression Timezone UTC+3.")
