"""The README's section "EventBridge scheduled rules" runs as written, as a pytest test."""

from __future__ import annotations

import pytest

from tests.dispatch.test_readme_moves_by_events import example


def test_the_readme_example_of_a_scheduled_rule_passes(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_rule='import pytest\nQUEUE = "arn:aws:sqs:us-east-1:123456789012:jobs"\n'
        + example("rules")
    )
    pytester.runpytest_inprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)
