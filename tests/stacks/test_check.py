"""A loaded stack's check (``Stack.check()``, ``schedemu check --stack``): every schedule
and rule target, its next three fire times on its own zone's clock, and whether it can
deliver, without moving the clock."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_schedemu import Emulator
from pytest_schedemu.cli import main
from tests.stacks.building import write

ROLE_TRUST = """\
      AssumeRolePolicyDocument:
        Version: "2012-10-17"
        Statement:
          - {Effect: Allow, Principal: {Service: scheduler.amazonaws.com}, Action: "sts:AssumeRole"}
"""

TEMPLATE = f"""\
Resources:
  Jobs:
    Type: AWS::SQS::Queue
  Sender:
    Type: AWS::IAM::Role
    Properties:
{ROLE_TRUST}      Policies:
        - PolicyName: send
          PolicyDocument:
            Version: "2012-10-17"
            Statement:
              - {{Effect: Allow, Action: "sqs:SendMessage", Resource: !GetAtt Jobs.Arn}}
  Mute:
    Type: AWS::IAM::Role
    Properties:
{ROLE_TRUST}  NewYorkMornings:
    Type: AWS::Scheduler::Schedule
    Properties:
      ScheduleExpression: cron(30 2 * * ? *)
      ScheduleExpressionTimezone: America/New_York
      FlexibleTimeWindow: {{Mode: "OFF"}}
      Target: {{Arn: !GetAtt Jobs.Arn, RoleArn: !GetAtt Sender.Arn}}
  Paused:
    Type: AWS::Scheduler::Schedule
    Properties:
      State: DISABLED
      ScheduleExpression: rate(1 hour)
      FlexibleTimeWindow: {{Mode: "OFF"}}
      Target: {{Arn: !GetAtt Jobs.Arn, RoleArn: !GetAtt Mute.Arn}}
  Once:
    Type: AWS::Scheduler::Schedule
    Properties:
      ScheduleExpression: at(2026-03-01T09:00:00)
      FlexibleTimeWindow: {{Mode: "OFF"}}
      Target: {{Arn: !GetAtt Jobs.Arn, RoleArn: !GetAtt Sender.Arn}}
  OrderPlaced:
    Type: AWS::Events::Rule
    Properties:
      EventPattern: {{source: [shop.orders]}}
      Targets: [{{Id: jobs, Arn: !GetAtt Jobs.Arn}}]
"""


@pytest.fixture
def template(tmp_path: Path) -> Path:
    return write(tmp_path, TEMPLATE)


def test_each_schedule_lists_its_next_three_fire_times_on_its_own_zones_clock(
    emu: Emulator, template: Path
) -> None:
    emu.reset(start="2026-03-07T12:00:00Z")
    checked = emu.load_stack(template).check().target("NewYorkMornings")
    assert checked.timezone == "America/New_York"
    # Across the change to daylight saving time: the wall clock stays at 02:30, but
    # 2026-03-08 has no 02:30 in New York.
    assert [t.isoformat(sep=" ") + " " + str(t.tzname()) for t in checked.next_fire_times] == [
        "2026-03-09 02:30:00-04:00 EDT",
        "2026-03-10 02:30:00-04:00 EDT",
        "2026-03-11 02:30:00-04:00 EDT",
    ]


def test_the_fire_times_count_from_the_clock_which_the_check_does_not_move(
    emu: Emulator, template: Path
) -> None:
    stack = emu.load_stack(template)
    before = emu.clock.now()
    first = stack.check().target("NewYorkMornings").next_fire_times
    assert emu.clock.now() == before and emu.attempts() == []
    emu.clock.advance(days=1)
    later = stack.check().target("NewYorkMornings").next_fire_times
    assert later == (*first[1:], later[-1]) and later[-1] > first[-1]


def test_what_fires_never_says_why(emu: Emulator, template: Path) -> None:
    check = emu.load_stack(template).check()
    expected = {
        "Paused": "disabled",
        "Once": "no more",
        "OrderPlaced": "fires on matching events only",
    }
    for logical_id, why in expected.items():
        checked = check.target(logical_id)
        assert (checked.next_fire_times, checked.no_fire_times) == ((), why)


def test_whether_each_can_deliver_with_the_reason_when_not(emu: Emulator, template: Path) -> None:
    stack = emu.load_stack(template)
    check = stack.check()
    assert [(t.logical_id, t.can_deliver) for t in check.targets] == [
        ("NewYorkMornings", True),
        ("Paused", False),
        ("Once", True),
        ("OrderPlaced", False),
    ]
    assert not check.ok
    paused = check.target("Paused")
    assert paused.error_code == "AccessDeniedException"
    assert paused.error_message == (
        f"{stack.resource('Mute').arn} is not authorized to perform sqs:SendMessage on "
        f"{stack.resource('Jobs').arn}: no statement allows sqs:SendMessage on "
        f"{stack.resource('Jobs').arn}"
    )
    # The queue has no policy: EventBridge may not send to it.
    assert check.target("OrderPlaced").error_code == "NO_PERMISSIONS"


def test_the_iam_setting_decides_as_for_delivery(emu: Emulator, template: Path) -> None:
    stack = emu.load_stack(template)
    emu.configure(iam="off")
    assert stack.check().ok


def test_the_text_names_each_with_its_verdict(emu: Emulator, template: Path) -> None:
    stack = emu.load_stack(template)
    text = str(stack.check()).splitlines()
    assert text[0] == (
        "stack template at 2026-03-01T10:00:00Z: 3 schedules, 1 rule target; 2 cannot deliver"
    )
    schedule = stack.schedule("NewYorkMornings")
    assert text[1:4] == [
        f"NewYorkMornings  schedule {schedule.label} -> {stack.resource('Jobs').arn}",
        "  next (America/New_York): 2026-03-02 02:30:00-05:00 EST, "
        "2026-03-03 02:30:00-05:00 EST, 2026-03-04 02:30:00-05:00 EST",
        "  can deliver",
    ]
    assert text[5] == "  next: none (disabled)"
    assert text[6].startswith("  cannot deliver: AccessDeniedException: ")


def test_a_check_names_the_resource_it_is_asked_for(emu: Emulator, template: Path) -> None:
    check = emu.load_stack(template).check()
    with pytest.raises(LookupError, match=r"'Jobs' made 0 of stack template's schedules"):
        check.target("Jobs")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def test_the_command_exits_1_when_one_cannot_deliver(
    capsys: pytest.CaptureFixture[str], template: Path
) -> None:
    code, lines, err = run(capsys, "check", "--stack", str(template), "--from", "2026-03-01T10:00Z")
    assert (code, err) == (1, "")
    assert lines[0].endswith("3 schedules, 1 rule target; 2 cannot deliver")
    assert sum(line.startswith("  cannot deliver: ") for line in lines) == 2


def test_the_command_exits_0_when_all_can(
    capsys: pytest.CaptureFixture[str], template: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, lines, _ = run(capsys, "check", "--stack", str(template), "--iam", "off")
    assert (code, lines[0].endswith("all can deliver")) == (0, True)
    # The settings come from the environment as for ``schedemu serve``.
    monkeypatch.setenv("SCHEDEMU_IAM", "off")
    code, lines, _ = run(capsys, "check", "--stack", str(template))
    assert (code, lines[0].endswith("all can deliver")) == (0, True)


def test_a_stack_that_cannot_be_loaded_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    broken = write(tmp_path, TEMPLATE.replace("!GetAtt Sender.Arn", "!GetAtt Sendr.Arn"))
    code, lines, err = run(capsys, "check", "--stack", str(broken))
    assert (code, lines) == (2, [])
    assert err.count("\n") == 1
    assert err.startswith(f"schedemu: {broken}: resource NewYorkMornings: Fn::GetAtt Sendr.Arn")
    code, _, err = run(capsys, "check", "--stack", str(tmp_path / "missing.yaml"))
    assert code == 2 and err.startswith("schedemu: ") and err.count("\n") == 1


def test_the_command_takes_an_expression_or_a_stack(
    capsys: pytest.CaptureFixture[str], template: Path
) -> None:
    for argv in (["check"], ["check", "rate(1 hour)", "--stack", str(template)]):
        with pytest.raises(SystemExit) as exited:
            main(argv)
        assert exited.value.code == 2
        assert "check takes an EXPRESSION or --stack PATH" in capsys.readouterr().err
