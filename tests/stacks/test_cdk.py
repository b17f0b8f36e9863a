"""A CDK cloud assembly, synthesised by the real aws-cdk-lib from examples/stacks/cdk."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pytest_schedemu.errors import StackError
from pytest_schedemu.stacks import ResolvedStack, read_stack

CDK_ACCOUNT, CDK_REGION = "111122223333", "eu-west-1"


@pytest.fixture(scope="module")
def billing(cdk_assembly: Path) -> ResolvedStack:
    return read_stack(cdk_assembly, account="000000000000", region="us-east-1", seed=7)


def test_the_stacks_concrete_environment_overrides_the_default(billing: ResolvedStack) -> None:
    assert (billing.name, billing.account, billing.region) == ("Billing", CDK_ACCOUNT, CDK_REGION)
    assert billing.stack_id.startswith(
        f"arn:aws:cloudformation:{CDK_REGION}:{CDK_ACCOUNT}:stack/Billing/"
    )


def test_resources_carry_their_construct_ids_and_paths(billing: ResolvedStack) -> None:
    function = billing.resource("ChargeFn")
    assert function.type == "AWS::Lambda::Function"
    assert function.logical_id.startswith("ChargeFn") and len(function.logical_id) == 16
    assert function.cdk_path == "Billing/ChargeFn/Resource"
    assert billing.resource("Billing/ChargeFn") is function
    assert billing.resource("Billing/ChargeFn/Resource") is function
    assert billing.resource(function.logical_id) is function


def test_the_schedules_targets_resolve_to_the_stacks_resources(billing: ResolvedStack) -> None:
    queue, dead_letters = billing.resource("ChargeQueue"), billing.resource("ChargeDeadLetters")
    role, function = billing.resource("SchedulerRole"), billing.resource("ChargeFn")
    nightly = billing.resource("NightlyCharge").properties
    assert nightly["ScheduleExpression"] == "cron(30 2 * * ? *)"
    assert nightly["ScheduleExpressionTimezone"] == "America/New_York"
    assert nightly["GroupName"] == billing.resource("BillingSchedules").physical_name == "billing"
    target = nightly["Target"]
    assert (
        target["Arn"]
        == queue.arn
        == f"arn:aws:sqs:{CDK_REGION}:{CDK_ACCOUNT}:{queue.physical_name}"
    )
    assert target["DeadLetterConfig"]["Arn"] == dead_letters.arn
    assert target["RoleArn"] == role.arn == f"arn:aws:iam::{CDK_ACCOUNT}:role/{role.physical_name}"
    assert target["RetryPolicy"] == {"MaximumEventAgeInSeconds": 7200, "MaximumRetryAttempts": 3}
    assert json.loads(target["Input"])["scheduledAt"] == "<aws.scheduler.scheduled-time>"
    hourly = billing.resource("HourlySweep").properties
    assert hourly["ScheduleExpression"] == "rate(1 hour)"
    assert hourly["Target"]["Arn"] == function.arn
    assert hourly["Target"]["RoleArn"] == role.arn


def test_schedules_are_named_and_placed_in_their_group(billing: ResolvedStack) -> None:
    for schedule in billing.of_type("AWS::Scheduler::Schedule"):
        assert schedule.arn == (
            f"arn:aws:scheduler:{CDK_REGION}:{CDK_ACCOUNT}:schedule/billing/{schedule.physical_name}"
        )
    assert len(billing.of_type("AWS::Scheduler::Schedule")) == 2


def test_the_manifest_path_reads_the_same_assembly(
    cdk_assembly: Path, billing: ResolvedStack
) -> None:
    again = read_stack(
        cdk_assembly / "manifest.json", account="000000000000", region="us-east-1", seed=7
    )
    assert again == billing
    assert again.source == cdk_assembly


def _two_stacks(cdk_assembly: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "cdk.out"
    shutil.copytree(cdk_assembly, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    artifacts = manifest["artifacts"]
    artifacts["Ledger"] = {
        **artifacts["Billing"],
        "environment": "aws://unknown-account/unknown-region",
    }
    (copy / "manifest.json").write_text(json.dumps(manifest))
    return copy


def test_stack_name_chooses_among_several_stacks(cdk_assembly: Path, tmp_path: Path) -> None:
    assembly = _two_stacks(cdk_assembly, tmp_path)
    with pytest.raises(StackError, match=r"several stacks \(Billing, Ledger\): pass stack_name="):
        read_stack(assembly, account="000000000000", region="us-east-1", seed=7)
    with pytest.raises(StackError, match=r"no stack 'Nope' \(stacks: Billing, Ledger\)"):
        read_stack(assembly, account="000000000000", region="us-east-1", seed=7, stack_name="Nope")
    ledger = read_stack(
        assembly, account="000000000000", region="us-east-1", seed=7, stack_name="Ledger"
    )
    # An environment-agnostic stack is deployed where the emulator is.
    assert (ledger.name, ledger.account, ledger.region) == ("Ledger", "000000000000", "us-east-1")
