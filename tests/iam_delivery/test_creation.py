"""CreateSchedule, UpdateSchedule and a stack's load refuse an execution role the emulator
knows and Scheduler may not assume, as AWS's CreateSchedule does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

from pytest_schedemu import Emulator, StackError
from pytest_schedemu.commands.layer import Commands
from pytest_schedemu.iam import IamDeclarations, Role, parse_policy
from pytest_schedemu.provisioning.loading import LoadedStacks, StackLoader
from pytest_schedemu.scheduler_api.app import service_validator
from pytest_schedemu.settings.live import LiveSettings
from pytest_schedemu.settings.options import Settings
from pytest_schedemu.state.store import Store
from tests.constants import ACCOUNT, QUEUE, ROLE, T0
from tests.helpers import create, error_of
from tests.iam_delivery.documents import SCHEDULER, trusting

ASSUME = "The execution role you provide must allow AWS EventBridge Scheduler to assume the role."


def test_create_schedule_refuses_a_role_only_lambda_may_assume(emu: Emulator, client: Any) -> None:
    emu.iam.role(ROLE, trust=trusting("lambda.amazonaws.com"))
    with pytest.raises(ClientError) as raised:
        create(client)
    assert error_of(raised) == {"code": "ValidationException", "message": ASSUME, "status": 400}
    assert client.list_schedules()["Schedules"] == []


def test_update_schedule_refuses_it_too(emu: Emulator, client: Any) -> None:
    other = f"arn:aws:iam::{ACCOUNT}:role/lambda-only"
    emu.iam.role(other, trust=trusting("lambda.amazonaws.com"))
    create(client)
    with pytest.raises(ClientError) as raised:
        client.update_schedule(
            Name="s1",
            ScheduleExpression="rate(2 hours)",
            FlexibleTimeWindow={"Mode": "OFF"},
            Target={"Arn": QUEUE, "RoleArn": other},
        )
    assert error_of(raised) == {"code": "ValidationException", "message": ASSUME, "status": 400}


@pytest.mark.parametrize("iam", ["enforce", "off"])
def test_a_trust_condition_is_not_read_at_creation_and_off_reads_nothing(
    emu: Emulator, client: Any, iam: str
) -> None:
    emu.iam.role(ROLE, trust=trusting(StringEquals={"aws:SourceAccount": "111111111111"}))
    if iam == "off":
        emu.iam.role(ROLE, trust=trusting("lambda.amazonaws.com"))
    emu.configure(iam=iam)
    create(client)
    assert len(client.list_schedules()["Schedules"]) == 1


def test_a_stack_whose_schedule_role_scheduler_may_not_assume_fails_whole(
    emu: Emulator, tmp_path: Path
) -> None:
    emu.iam.role(ROLE, trust=trusting("lambda.amazonaws.com"))
    template = {
        "Resources": {
            "Group": {"Type": "AWS::Scheduler::ScheduleGroup", "Properties": {"Name": "jobs"}},
            "Nightly": {
                "Type": "AWS::Scheduler::Schedule",
                "Properties": {
                    "Name": "nightly",
                    "GroupName": "jobs",
                    "ScheduleExpression": "rate(1 day)",
                    "FlexibleTimeWindow": {"Mode": "OFF"},
                    "Target": {"Arn": QUEUE, "RoleArn": ROLE},
                },
            },
        }
    }
    path = tmp_path / "stack.json"
    path.write_text(json.dumps(template))
    with pytest.raises(StackError) as raised:
        emu.load_stack(path)
    assert "Nightly" in str(raised.value)
    assert ASSUME in str(raised.value)
    assert emu.stacks == []
    assert emu.client().list_schedule_groups()["ScheduleGroups"][-1]["Name"] == "default"


def test_a_conditional_deny_in_the_trust_is_left_to_the_attempt(emu: Emulator, client: Any) -> None:
    trust = trusting()
    trust["Statement"].append(
        {
            "Effect": "Deny",
            "Principal": {"Service": "scheduler.amazonaws.com"},
            "Action": "sts:AssumeRole",
            "Condition": {"StringNotEquals": {"aws:SourceAccount": "111111111111"}},
        }
    )
    emu.iam.role(ROLE, trust=trust)
    create(client, expression="at(2026-03-01T10:00:00)")
    emu.clock.advance(minutes=1)
    (attempt,) = emu.attempts()
    assert "an explicit Deny in scheduler trust policy (statement 1)" in attempt.error_message


def _stack(tmp_path: Path) -> Path:
    template = {
        "Resources": {
            "Nightly": {
                "Type": "AWS::Scheduler::Schedule",
                "Properties": {
                    "Name": "nightly",
                    "ScheduleExpression": "rate(1 day)",
                    "FlexibleTimeWindow": {"Mode": "OFF"},
                    "Target": {"Arn": QUEUE, "RoleArn": ROLE},
                },
            }
        }
    }
    path = tmp_path / "stack.json"
    path.write_text(json.dumps(template))
    return path


@pytest.mark.parametrize(("service", "loads"), [(SCHEDULER, True), ("lambda.amazonaws.com", False)])
def test_a_stacks_own_roles_are_known_while_it_loads_and_forgotten_if_it_fails(
    tmp_path: Path, service: str, loads: bool
) -> None:
    role = Role(ROLE, trust=parse_policy(trusting(service), name="trust", kind="trust"))
    store = Store(T0, LiveSettings(Settings()))
    loader = StackLoader(
        service_validator(),
        Commands(store, store.settings),
        lambda: T0,
        read_iam=lambda resolved: IamDeclarations(roles={ROLE: role}),
    )
    stacks = LoadedStacks(loader)
    path = _stack(tmp_path)
    if loads:
        stacks.load(path, Settings())
        assert store.iam.role(ROLE) == role
    else:
        with pytest.raises(StackError, match="Nightly"):
            stacks.load(path, Settings())
        assert store.iam.role(ROLE) is None
        assert store.all_schedules() == []
