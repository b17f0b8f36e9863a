"""Lambda's asynchronous invocation of a stack's own function: the target's attempt
succeeds as Lambda accepts the event, the function runs then, and a failed run is retried
by Lambda on the clock, one minute and then two minutes later, within the function's
MaximumRetryAttempts and MaximumEventAgeInSeconds."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from pytest_schedemu import Emulator
from pytest_schedemu.errors import ClockTimeout, SchedemuError
from tests.constants import DLQ, FUNCTION, T0
from tests.functions_async.doubles import Handlers, failing, function
from tests.helpers import create, put_rule, rule_target

FAILURES = "arn:aws:sqs:us-east-1:123456789012:failures"


def at_half_past(client: Any, **target: Any) -> None:
    """A one-time schedule invoking ``FUNCTION`` at 10:30 with the Input {"n": 1}."""
    create(
        client,
        "once",
        "at(2026-03-01T10:30:00)",
        target={"Arn": FUNCTION, "Input": '{"n": 1}', **target},
    )


def test_a_schedule_runs_the_function_with_its_input_and_its_attempt_succeeds(
    emu: Emulator, client: Any, handlers: Handlers
) -> None:
    handlers.behaviours["remind"] = lambda event, number: {"reminded": event["n"]}
    emu.functions.add(function())
    at_half_past(client)

    attempts = emu.clock.advance(hours=1)

    [run] = emu.invocations("remind")
    assert (run.event, run.result, run.attempt) == ({"n": 1}, {"reminded": 1}, 1)
    assert run.invoked_at == T0 + timedelta(minutes=30)
    assert run.logs == f"handled {run.request_id}\n"
    assert [(a.target_arn, a.succeeded) for a in attempts] == [(FUNCTION, True)]


def test_a_failed_run_is_retried_a_minute_then_two_minutes_later_with_its_request_id(
    emu: Emulator, client: Any, handlers: Handlers
) -> None:
    handlers.behaviours["remind"] = failing
    emu.functions.add(function())
    at_half_past(client)

    attempts = emu.clock.advance(hours=6)

    runs = emu.invocations(FUNCTION)
    assert [run.invoked_at - T0 for run in runs] == [
        timedelta(minutes=30),
        timedelta(minutes=31),
        timedelta(minutes=33),
    ]
    assert [run.attempt for run in runs] == [1, 2, 3]
    assert len({run.request_id for run in runs}) == 1
    assert {run.error_type for run in runs} == {"ValueError"}
    assert runs[0].error_message == "cannot remind about {'n': 1}"
    # Scheduler's attempt succeeded when Lambda accepted the event: it is not retried.
    assert [a.succeeded for a in attempts] == [True]


def test_the_retries_stop_at_maximum_retry_attempts(
    emu: Emulator, client: Any, handlers: Handlers
) -> None:
    handlers.behaviours["remind"] = failing
    emu.functions.add(function(maximum_retry_attempts=1))
    at_half_past(client)

    emu.clock.advance(hours=1)

    assert [run.attempt for run in emu.invocations("remind")] == [1, 2]


def test_a_retry_that_succeeds_ends_the_retries(
    emu: Emulator, client: Any, handlers: Handlers
) -> None:
    handlers.behaviours["remind"] = lambda event, number: (
        failing(event, number) if number < 2 else "ok"
    )
    emu.functions.add(function())
    at_half_past(client)

    emu.clock.advance(hours=1)

    runs = emu.invocations("app/Remind")
    assert [(run.attempt, run.result) for run in runs] == [(1, None), (2, "ok")]


def test_advance_to_next_stops_at_lambdas_retry_and_pending_lists_it(
    emu: Emulator, client: Any, handlers: Handlers
) -> None:
    handlers.behaviours["remind"] = failing
    emu.functions.add(function())
    at_half_past(client)
    emu.clock.advance_to_next()
    assert len(emu.invocations()) == 1

    [retry] = emu.pending()
    assert (retry.kind, retry.due, retry.target_arn) == (
        "function_retry",
        T0 + timedelta(minutes=31),
        FUNCTION,
    )
    assert (retry.attempt_number, retry.source) == (2, "function")

    emu.clock.advance_to_next()

    assert emu.clock.now() == T0 + timedelta(minutes=31)
    assert [run.attempt for run in emu.invocations()] == [1, 2]
    assert emu.pending()[0].due == T0 + timedelta(minutes=33)


def test_a_long_advance_of_a_quiet_emulator_plays_the_retries_in_order(
    emu: Emulator, client: Any, handlers: Handlers
) -> None:
    # A day of an hourly schedule next to it: bulk play must not pass the retries by.
    create(client, "hourly", "rate(1 hour)")
    handlers.behaviours["remind"] = failing
    emu.functions.add(function())
    at_half_past(client)

    emu.clock.advance(days=1)

    assert [run.invoked_at.minute for run in emu.invocations()] == [30, 31, 33]
    hourly = emu.attempts(schedule="hourly")
    assert hourly[-1].attempted_at == T0 + timedelta(days=1)


def test_an_event_older_than_its_maximum_age_is_not_retried_again(
    emu: Emulator, client: Any, handlers: Handlers
) -> None:
    handlers.behaviours["remind"] = failing
    emu.functions.add(function(maximum_event_age_seconds=90, on_failure=FAILURES))
    at_half_past(client)

    emu.clock.advance(hours=1)

    # The second retry would come at 10:33, past 10:31:30: the event expires then.
    assert [run.attempt for run in emu.invocations()] == [1, 2]
    [letter] = emu.dead_letters(FAILURES)
    assert letter.sent_at == T0 + timedelta(minutes=31, seconds=30)
    context = letter.payload["requestContext"]
    assert (context["condition"], context["approximateInvokeCount"]) == ("EventAgeExceeded", 2)


def test_a_rule_target_runs_the_function_with_the_rules_event_and_its_input(
    emu: Emulator, handlers: Handlers
) -> None:
    handlers.behaviours["remind"] = lambda event, number: None
    emu.functions.add(function())
    put_rule(
        emu,
        "nightly",
        "rate(5 minutes)",
        rule_target("plain", FUNCTION),
        rule_target("given", FUNCTION, Input='{"job": "nightly"}'),
    )

    emu.clock.advance(minutes=5)

    plain, given = (run.event for run in emu.invocations("remind"))
    assert (plain["source"], plain["detail-type"]) == ("aws.events", "Scheduled Event")
    assert plain["resources"] == ["arn:aws:events:us-east-1:123456789012:rule/nightly"]
    assert given == {"job": "nightly"}


def test_a_rule_targets_failed_run_is_retried_by_lambda_not_eventbridge(
    emu: Emulator, handlers: Handlers
) -> None:
    handlers.behaviours["remind"] = failing
    emu.functions.add(function(maximum_retry_attempts=1))
    put_rule(emu, "nightly", "rate(1 hour)", rule_target("f", FUNCTION))

    emu.clock.advance(minutes=61)

    assert [run.invoked_at - T0 for run in emu.invocations()] == [
        timedelta(hours=1),
        timedelta(hours=1, minutes=1),
    ]
    assert [a.succeeded for a in emu.attempts(rule="nightly")] == [True]


def test_a_function_not_in_the_catalogue_or_that_cannot_run_is_delivered_and_not_run(
    emu: Emulator, client: Any, handlers: Handlers, caplog: pytest.LogCaptureFixture
) -> None:
    handlers.behaviours["remind"] = failing
    emu.functions.add(function(runtime="nodejs20.x", not_runnable="runtime nodejs20.x"))
    at_half_past(client)
    create(client, "other", "rate(10 minutes)", target={"Arn": FUNCTION.replace("remind", "x")})

    attempts = emu.clock.advance(hours=1)

    assert emu.invocations() == [] and handlers.runs == []
    assert all(a.succeeded for a in attempts)
    assert {a.schedule_name for a in attempts} == {"once", "other"}
    said = [r.getMessage() for r in caplog.records if "not run" in r.getMessage()]
    assert said == ["function remind is delivered to but not run: runtime nodejs20.x"]


def test_an_unknown_function_is_refused_naming_those_that_ran(
    emu: Emulator, client: Any, handlers: Handlers
) -> None:
    handlers.behaviours["remind"] = lambda event, number: None
    emu.functions.add(function())
    at_half_past(client)
    emu.clock.advance(hours=1)

    with pytest.raises(SchedemuError, match=r"No function 'remnid'.*functions that ran: remind"):
        emu.invocations("remnid")


def test_a_reset_forgets_the_runs_and_the_retries_to_come(
    emu: Emulator, client: Any, handlers: Handlers
) -> None:
    handlers.behaviours["remind"] = failing
    emu.functions.add(function(dead_letter_arn=DLQ))
    at_half_past(client)
    emu.clock.advance(minutes=30)

    emu.reset()

    assert emu.invocations() == [] and emu.pending() == []
    emu.functions.add(function(dead_letter_arn=DLQ))
    emu.clock.advance(hours=1)
    assert emu.invocations() == [] and emu.dead_letters() == []


def test_run_until_idle_waits_for_lambdas_retries_and_names_one_it_could_not_wait_for(
    emu: Emulator, client: Any, handlers: Handlers
) -> None:
    handlers.behaviours["remind"] = failing
    emu.functions.add(function())
    at_half_past(client)

    with pytest.raises(ClockTimeout, match=rf"function retry of {FUNCTION} \(attempt 3\)"):
        emu.clock.run_until_idle(within=timedelta(minutes=32))
    emu.clock.run_until_idle(within=timedelta(minutes=5))

    assert len(emu.invocations()) == 3
    assert emu.clock.now() == T0 + timedelta(minutes=33)
