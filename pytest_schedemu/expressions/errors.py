"""The two errors an expression or a time zone can be refused with.

Both keep the offending text in ``args`` (not the formatted message), so they pickle and
compare by what was received; ``str()`` gives the AWS wording.
"""

from __future__ import annotations


class InvalidScheduleExpression(ValueError):
    """A malformed ``at()``, ``rate()`` or ``cron()`` expression."""

    def __init__(self, expression: str) -> None:
        super().__init__(expression)
        self.expression = expression

    def __str__(self) -> str:
        # AWS echoes the received string byte for byte, surrounding spaces included.
        return f"Invalid Schedule Expression {self.expression}."


class InvalidTimezone(ValueError):
    """A ``ScheduleExpressionTimezone`` that is not an IANA zone name."""

    def __init__(self, timezone: str) -> None:
        super().__init__(timezone)
        self.timezone = timezone

    def __str__(self) -> str:
        return f"Invalid Schedule Expression Timezone {self.timezone}."
