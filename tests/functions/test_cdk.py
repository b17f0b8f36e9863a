"""A real aws-cdk-lib synth: a Python function whose code is an asset directory is found
through the assembly's asset manifest and runs; its Node.js neighbour is said not to."""

from __future__ import annotations

import json
from pathlib import Path

from pytest_schedemu import Emulator
from tests.constants import START, T0

ACCOUNT = "111122223333"
REGION = "eu-west-1"


def test_a_python_asset_function_is_found_and_runs(payments_assembly: Path) -> None:
    with Emulator(start=START) as emu:
        stack = emu.load_stack(payments_assembly, run_functions=True)
        catalogue = emu.debug.functions
        target = stack.schedule("DailyCharge").target.arn
        charge = catalogue.get(target)
        assert charge is not None
        assert (charge.logical_id, charge.runtime, charge.handler) == (
            stack.resource("ChargeFn").logical_id,
            "python3.12",
            "app.handler",
        )
        assert charge.arn == stack.resource("ChargeFn").arn
        assert charge.code_dir is not None
        assert charge.code_dir.parent == payments_assembly.resolve()
        assert sorted(path.name for path in charge.code_dir.iterdir()) == [
            "app.py",
            "pricing.py",
        ]
        assert (charge.timeout_seconds, charge.memory_mb) == (20, 256)
        assert dict(charge.environment) == {
            "CURRENCY": "EUR",
            "RECEIPTS_QUEUE": stack.resource("Receipts").arn,
            "RECEIPTS_ROLE": stack.resource("ReceiptRole").arn,
        }
        assert (charge.maximum_retry_attempts, charge.maximum_event_age_seconds) == (1, 1800)
        assert charge.on_failure == stack.resource("ChargeFailures").arn
        assert charge.not_runnable is None

        invocation = catalogue.run(
            charge,
            {"customer": "c-42"},
            now=T0,
            request_id="r-1",
            region=REGION,
            account=ACCOUNT,
        )
        assert invocation.result == {
            "customer": "c-42",
            "amount": 104,
            "currency": "EUR",
            "function": charge.name,
        }


def test_a_nodejs_function_is_known_and_not_run(payments_assembly: Path) -> None:
    with Emulator(start=START) as emu:
        stack = emu.load_stack(payments_assembly, run_functions=True)
        receipt = emu.debug.functions.get(str(stack.resource("ReceiptFn").arn))
        assert receipt is not None
        assert receipt.not_runnable == "runtime nodejs22.x"


def test_without_run_functions_the_assemblys_functions_do_not_run(
    payments_assembly: Path,
) -> None:
    with Emulator(start=START) as emu:
        emu.load_stack(payments_assembly)
        assert emu.debug.functions.all() == []


def test_the_stacks_own_function_runs_on_the_clock(payments_assembly: Path) -> None:
    """The issue's whole path on a real synth: a schedule's invocation runs the handler with
    its event, environment and context; what the handler schedules with its own client
    fires later on the same clock; a declined charge is retried once a minute later and its
    failure destination receives Lambda's record; the rule's target runs it with the rule's
    input; the Node.js function is delivered to and not run."""
    with Emulator(start="2026-03-01T00:00:00Z", region=REGION, account_id=ACCOUNT) as emu:
        stack = emu.load_stack(payments_assembly, run_functions=True)
        charge = stack.resource("ChargeFn")
        emu.clock.advance(minutes=90)

        runs = emu.invocations(charge.logical_id)
        daily = [run for run in runs if run.event.get("customer") == "c-42"]
        assert [run.event for run in daily] == [
            {"customer": "c-42", "scheduledAt": "2026-03-01T00:00:00Z"}
        ]
        assert daily[0].result == {
            "customer": "c-42",
            "amount": 104,
            "currency": "EUR",
            "function": charge.physical_name,
        }
        assert "charging c-42" in daily[0].logs

        # The receipt the handler scheduled fired an hour after the charge, on this clock.
        receipt = emu.assert_delivered(stack.resource("Receipts").arn, count=1)
        assert receipt[0].scheduled_time.isoformat() == "2026-03-01T01:00:00+00:00"

        # The declined charge: run, retried once a minute later, then the destination.
        declined = [run for run in runs if run.event.get("customer") == "c-13"]
        assert [(run.attempt, run.invoked_at.isoformat()) for run in declined] == [
            (1, "2026-03-01T00:00:00+00:00"),
            (2, "2026-03-01T00:01:00+00:00"),
        ]
        assert {run.error_type for run in declined} == {"ValueError"}
        assert len({run.request_id for run in declined}) == 1
        (record,) = emu.dead_letters(stack.resource("ChargeFailures").arn)
        sent = json.loads(record.body)
        assert sent["requestContext"]["condition"] == "RetriesExhausted"
        assert sent["requestContext"]["approximateInvokeCount"] == 2
        assert sent["requestPayload"] == {"customer": "c-13", "decline": True}
        assert sent["responsePayload"]["errorMessage"] == "card declined for c-13"

        # The hourly rule's target ran it with the rule's input, an hour after the load.
        by_rule = [run for run in runs if run.event.get("via") == "rule"]
        assert [run.invoked_at.hour for run in by_rule] == [1]
        assert all(run.event == {"customer": "c-7", "via": "rule"} for run in by_rule)

        # The Node.js function's schedule delivered; nothing ran it.
        receipt_fn = stack.resource("ReceiptFn")
        assert emu.assert_delivered(receipt_fn.arn, count=1)
        assert emu.invocations(receipt_fn.logical_id) == []


def test_without_run_functions_a_schedules_invocation_runs_nothing(
    payments_assembly: Path,
) -> None:
    with Emulator(start="2026-03-01T00:00:00Z", region=REGION, account_id=ACCOUNT) as emu:
        stack = emu.load_stack(payments_assembly)
        emu.clock.advance(minutes=90)
        charge = stack.resource("ChargeFn")
        assert len(emu.assert_delivered(charge.arn, count=3)) == 3
        assert emu.invocations() == []
        assert emu.dead_letters(stack.resource("ChargeFailures").arn) == []
