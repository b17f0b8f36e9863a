"""A real aws-cdk-lib synth: a Python function whose code is an asset directory is found
through the assembly's asset manifest and runs; its Node.js neighbour is said not to."""

from __future__ import annotations

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
        assert dict(charge.environment) == {"CURRENCY": "EUR"}
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
