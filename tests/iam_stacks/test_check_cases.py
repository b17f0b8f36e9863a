"""The eight cases checked without moving the clock (``Stack.check()``, ``schedemu check
--stack``): the granted schedule and rule can deliver, each of the six AWS refuses is named
with its reason, and what the check says is what delivery then does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_schedemu import Emulator, StackError
from pytest_schedemu.cli import main
from pytest_schedemu.stacks.loaded import Stack

GRANTED = ("GrantedSchedule", "GrantedRule")
REFUSED = {
    "UnpermittedSchedule": "AccessDeniedException",
    "DeniedSchedule": "AccessDeniedException",
    "UninvitedRule": "NO_PERMISSIONS",
    "RefusedRule": "NO_PERMISSIONS",
}


def _made_by(check: Any, name: str) -> Any:
    """The checked schedule or rule target of the resource ``name`` (a construct id)."""
    (found,) = [t for t in check.targets if t.logical_id.startswith(name)]
    return found


def _attempts(emu: Emulator, stack: Stack, name: str) -> list[Any]:
    resource = stack.resource(name)
    if resource.type == "AWS::Events::Rule":
        return emu.attempts(rule=stack.rule(name).name)
    schedule = stack.schedule(name)
    return emu.attempts(schedule.name, group=schedule.group_name)


def test_the_granted_two_can_deliver_and_the_refused_four_say_why(
    emu: Emulator, iam_assembly: Path
) -> None:
    stack = emu.load_stack(iam_assembly, stack_name="Permissions")
    check = stack.check()
    assert not check.ok
    assert [_made_by(check, name).can_deliver for name in GRANTED] == [True, True]
    assert {t.logical_id: t.error_code for t in check.refused} == REFUSED
    assert "an explicit Deny in DeniedRoleDefaultPolicy" in (
        check.target("DeniedSchedule").error_message or ""
    )
    uninvited = check.target("UninvitedRule").error_message or ""
    assert uninvited.startswith(
        f"the policy of {stack.resource('Worker').arn} does not let events.amazonaws.com "
        "perform lambda:InvokeFunction: no statement allows"
    )
    # Each still has its fire times: the clock would fire it, and it would fail.
    assert all(len(t.next_fire_times) == 3 for t in check.targets)


def test_what_the_check_says_is_what_delivery_does(emu: Emulator, iam_assembly: Path) -> None:
    stack = emu.load_stack(iam_assembly, stack_name="Permissions")
    check = stack.check()
    emu.clock.advance(hours=2)
    for name in (*GRANTED, *REFUSED):
        checked = _made_by(check, name)
        attempts = _attempts(emu, stack, name)
        fired = [attempt.scheduled_time for attempt in attempts]
        assert fired == list(checked.next_fire_times[: len(fired)]) and len(fired) >= 2
        assert {(a.succeeded, a.error_code, a.error_message) for a in attempts} == {
            (checked.can_deliver, checked.error_code, checked.error_message)
        }, name


def test_a_trust_condition_on_another_account(emu: Emulator, iam_assembly: Path) -> None:
    stack = emu.load_stack(iam_assembly, stack_name="ForeignTrust")
    (checked,) = stack.check().refused
    assert checked.error_code == "AccessDeniedException"
    assert (checked.error_message or "").startswith(
        "The execution role you provide must allow AWS EventBridge Scheduler to assume the role."
    )
    assert "aws:SourceAccount is 123456789012, not 111111111111" in (checked.error_message or "")


def test_a_role_only_lambda_may_assume_fails_the_stacks_load(
    emu: Emulator, iam_assembly: Path
) -> None:
    with pytest.raises(StackError, match=r"resource LambdaRoleSchedule .*: ValidationException"):
        emu.load_stack(iam_assembly, stack_name="LambdaTrust")


def _command(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_command_names_every_refused_one_and_exits_1(
    capsys: pytest.CaptureFixture[str], iam_assembly: Path
) -> None:
    code, out, err = _command(capsys, "check", "--stack", f"{iam_assembly}#Permissions")
    assert (code, err) == (1, "")
    assert out.splitlines()[0].endswith("3 schedules, 3 rule targets; 4 cannot deliver")
    refused = [line for line in out.splitlines() if line.startswith("  cannot deliver: ")]
    assert len(refused) == 4
    code, out, _ = _command(capsys, "check", "--stack", f"{iam_assembly}#ForeignTrust")
    assert code == 1 and "not 111111111111" in out
    code, out, _ = _command(
        capsys, "check", "--stack", f"{iam_assembly}#Permissions", "--iam", "off"
    )
    assert (code, out.splitlines()[0].endswith("all can deliver")) == (0, True)


def test_the_command_exits_2_for_a_stack_aws_would_not_create(
    capsys: pytest.CaptureFixture[str], iam_assembly: Path
) -> None:
    code, out, err = _command(capsys, "check", "--stack", f"{iam_assembly}#LambdaTrust")
    assert (code, out) == (2, "")
    assert err == (
        f"schedemu: {iam_assembly.name}: resource LambdaRoleSchedule (AWS::Scheduler::Schedule): "
        "ValidationException: The execution role you provide must allow AWS EventBridge "
        "Scheduler to assume the role.\n"
    )


def test_with_iam_off_every_case_delivers(iam_assembly: Path) -> None:
    with Emulator(start="2026-03-01T10:00:00Z", iam="off") as emu:
        stacks = [
            emu.load_stack(iam_assembly, stack_name=name)
            for name in ("Permissions", "LambdaTrust", "ForeignTrust")
        ]
        emu.clock.advance(hours=2)
        made = {
            resource.logical_id: _attempts(emu, stack, resource.logical_id)
            for stack in stacks
            for resource in stack.resources
            if resource.type in ("AWS::Scheduler::Schedule", "AWS::Events::Rule")
        }
    assert len(made) == 8
    assert all(attempts for attempts in made.values()), made
    assert all(a.succeeded for attempts in made.values() for a in attempts)


def test_a_refused_attempt_is_not_retried(emu: Emulator, iam_assembly: Path) -> None:
    stack = emu.load_stack(iam_assembly, stack_name="Permissions")
    emu.clock.advance(hours=2)
    for name in REFUSED:
        attempts = _attempts(emu, stack, name)
        assert attempts and all(not a.succeeded and not a.retryable for a in attempts), name
        assert len({a.scheduled_time for a in attempts}) == len(attempts), name
