"""§4.1: the rules every expression form shares: keyword case, whitespace, length, ASCII."""

from __future__ import annotations

import dataclasses

import pytest

from pytest_schedemu.expressions import (
    AtExpression,
    CronExpression,
    InvalidScheduleExpression,
    RateExpression,
    parse_expression,
)


@pytest.mark.parametrize(
    "text",
    [
        "AT(2030-01-01T00:00:00)",
        "At(2030-01-01T00:00:00)",
        "aT(2030-01-01T00:00:00)",
        "RATE(5 minutes)",
        "Rate(5 minutes)",
        "rAtE(5 minutes)",
        "CRON(0 0 * * ? *)",
        "Cron(0 0 * * ? *)",
        "cRoN(0 0 * * ? *)",
    ],
)
def test_keyword_is_case_insensitive(text: str) -> None:
    parse_expression(text)


@pytest.mark.parametrize(
    "text",
    [
        " rate(10 minutes)",
        "rate(10 minutes) ",
        "rate (10 minutes)",
        "rate( 10 minutes)",
        "rate(10 minutes )",
        "rate( 10 minutes )",
        " cron(0 0 * * ? *)",
        "cron (0 0 * * ? *)",
        "cron( 0 0 * * ? *)",
        "cron(0 0 * * ? * )",
        "cron(0 0 * * ? *) ",
        " at(2030-01-01T00:00:00)",
        "at (2030-01-01T00:00:00)",
        "at( 2030-01-01T00:00:00)",
        "at(2030-01-01T00:00:00 )",
        "rate(10 minutes)\n",
        "\trate(10 minutes)",
    ],
)
def test_whitespace_around_keyword_and_parentheses_is_rejected(text: str) -> None:
    with pytest.raises(InvalidScheduleExpression):
        parse_expression(text)


@pytest.mark.parametrize(
    "text",
    ["", "cron", "rate", "at", "(0 0 * * ? *)", "every(5 minutes)", "crontab(0 0 * * ? *)"],
)
def test_unknown_or_missing_keyword_is_rejected(text: str) -> None:
    with pytest.raises(InvalidScheduleExpression):
        parse_expression(text)


def test_expression_of_256_characters_is_accepted() -> None:
    # Leading zeros are allowed, so a long zero is a well-formed minute.
    text = "cron(" + "0" * 240 + " 0 * * ? *)"
    assert len(text) == 256
    parse_expression(text)


def test_expression_longer_than_256_characters_is_rejected() -> None:
    text = "cron(" + "0" * 241 + " 0 * * ? *)"
    assert len(text) == 257
    with pytest.raises(InvalidScheduleExpression):
        parse_expression(text)


@pytest.mark.parametrize(
    "text",
    [
        "cron(0 0 ? * mon-fr\u0131 *)",  # dotless i, which upper-cases to an ASCII I
        "rate(\uff11 minute)",  # fullwidth digit one
        "rate(\u00b2 minutes)",  # superscript two, for which str.isdigit() is true
        "cron(\u0660 0 * * ? *)",  # Arabic-Indic digit zero
        "at(\u0662\u0660\u0663\u0660-01-01T00:00:00)",
        "cron(0\u00a00 * * ? *)",  # no-break space between fields
    ],
)
def test_non_ascii_lookalikes_are_rejected(text: str) -> None:
    with pytest.raises(InvalidScheduleExpression):
        parse_expression(text)


def test_parsing_is_cached_per_text() -> None:
    assert parse_expression("cron(0 9 ? * MON-FRI *)") is parse_expression(
        "cron(0 9 ? * MON-FRI *)"
    )


def test_each_form_reports_its_kind_and_whether_it_recurs() -> None:
    at = parse_expression("at(2030-01-01T00:00:00)")
    rate = parse_expression("rate(1 hour)")
    cron = parse_expression("cron(0 0 * * ? *)")
    assert isinstance(at, AtExpression)
    assert isinstance(rate, RateExpression)
    assert isinstance(cron, CronExpression)
    assert [(e.kind, e.recurring) for e in (at, rate, cron)] == [
        ("at", False),
        ("rate", True),
        ("cron", True),
    ]


def test_expressions_keep_the_original_text() -> None:
    for text in ("AT(2030-01-01T00:00)", "Rate(01 Minutes)", "cron(0  0 * * ?)"):
        assert parse_expression(text).text == text


@pytest.mark.parametrize("text", ["at(2030-01-01T00:00:00)", "rate(1 hour)", "cron(0 0 * * ? *)"])
def test_expressions_are_immutable(text: str) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        parse_expression(text).text = "rate(2 hours)"  # type: ignore[misc]
