"""``parse_expression``: the one entry point of the §4 grammar."""

from __future__ import annotations

from functools import lru_cache
from typing import Union

from pytest_schedemu.errors import InvalidScheduleExpression
from pytest_schedemu.expressions.at import AtExpression, parse_at
from pytest_schedemu.expressions.cron import CronExpression, parse_cron
from pytest_schedemu.expressions.rate import RateExpression, parse_rate

Expression = Union[AtExpression, RateExpression, CronExpression]

_MAX_LENGTH = 256


@lru_cache(maxsize=4096)
def parse_expression(text: str) -> Expression:
    """The parsed expression; raises ``InvalidScheduleExpression`` echoing ``text``."""
    # Every valid expression is ASCII. Refusing the rest up front keeps case folding and
    # digit tests exact: the dotless i upper-cases to "I", and superscript two is a digit.
    if len(text) > _MAX_LENGTH or not text.isascii():
        raise InvalidScheduleExpression(text)
    keyword = text.partition("(")[0].lower()
    if keyword == "at":
        return parse_at(text)
    if keyword == "rate":
        return parse_rate(text)
    if keyword == "cron":
        return parse_cron(text)
    raise InvalidScheduleExpression(text)
