"""What IAM a stack declares: its roles (trust, inline, attached and unknown managed
policies) and the resource policies of its functions, queues, topics and buses, read from
CloudFormation and SAM templates; a document IAM would refuse fails naming its resource."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_schedemu import Emulator, StackError
from pytest_schedemu.iam import (
    EMPTY_CONTEXT,
    Context,
    Principal,
    Request,
    authorize,
    evaluate_resource,
    parse_policy,
)
from pytest_schedemu.stacks import ResolvedStack
from pytest_schedemu.stacks.permissions import declared_iam
from tests.constants import START
from tests.stacks.building import ACCOUNT, REGION, read, resources, write

SCHEDULER = Principal.service("scheduler.amazonaws.com")
EVENTS = Principal.service("events.amazonaws.com")
LAMBDA_SERVICE = Principal.service("lambda.amazonaws.com")
BASIC_EXECUTION = "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"

TRUST = {
    "Version": "2012-10-17",
    "Statement": [
        {
            "Effect": "Allow",
            "Principal": {"Service": "scheduler.amazonaws.com"},
            "Action": "sts:AssumeRole",
            "Condition": {"StringEquals": {"aws:SourceAccount": ACCOUNT}},
        }
    ],
}


def _allow(action: str, resource: Any, effect: str = "Allow", sid: str = "") -> dict[str, Any]:
    statement = {"Effect": effect, "Action": action, "Resource": resource}
    if sid:
        statement["Sid"] = sid
    return {"Version": "2012-10-17", "Statement": [statement]}


def _declared(tmp_path: Path, template: dict[str, Any] | str) -> tuple[ResolvedStack, Any]:
    stack = read(tmp_path, template)
    return stack, declared_iam(stack)


ROLE_TEMPLATE = resources(
    Jobs={"Type": "AWS::SQS::Queue"},
    Audit={"Type": "AWS::SQS::Queue"},
    Runner={
        "Type": "AWS::IAM::Role",
        "Properties": {
            "Path": "/scheduler/",
            "AssumeRolePolicyDocument": TRUST,
            "Policies": [
                {
                    "PolicyName": "send",
                    "PolicyDocument": _allow("sqs:SendMessage", {"Fn::GetAtt": ["Jobs", "Arn"]}),
                }
            ],
            "ManagedPolicyArns": [{"Ref": "AuditAccess"}, BASIC_EXECUTION],
        },
    },
    NoAudit={
        "Type": "AWS::IAM::Policy",
        "Properties": {
            "PolicyName": "no-audit",
            "Roles": [{"Ref": "Runner"}, "a-role-made-elsewhere"],
            "PolicyDocument": _allow(
                "sqs:*", {"Fn::GetAtt": ["Audit", "Arn"]}, effect="Deny", sid="NoAudit"
            ),
        },
    },
    AuditAccess={
        "Type": "AWS::IAM::ManagedPolicy",
        "Properties": {
            "Roles": [{"Ref": "Runner"}],
            "PolicyDocument": _allow("sqs:SendMessage", {"Fn::GetAtt": ["Audit", "Arn"]}),
        },
    },
    Nightly={
        "Type": "AWS::Scheduler::Schedule",
        "Properties": {
            "ScheduleExpression": "rate(1 hour)",
            "FlexibleTimeWindow": {"Mode": "OFF"},
            "Target": {
                "Arn": {"Fn::GetAtt": ["Jobs", "Arn"]},
                "RoleArn": {"Fn::GetAtt": ["Runner", "Arn"]},
            },
        },
    },
)


def test_a_role_is_declared_under_the_arn_its_schedules_name(tmp_path: Path) -> None:
    stack, declared = _declared(tmp_path, ROLE_TEMPLATE)
    role_arn = stack.resource("Nightly").properties["Target"]["RoleArn"]
    assert role_arn == stack.resource("Runner").arn
    assert role_arn.startswith(f"arn:aws:iam::{ACCOUNT}:role/scheduler/template-Runner-")
    assert list(declared.roles) == [role_arn]
    assert declared.roles[role_arn].arn == role_arn


def test_its_trust_policy_decides_who_may_assume_it(tmp_path: Path) -> None:
    stack, declared = _declared(tmp_path, ROLE_TEMPLATE)
    role = declared.roles[stack.resource("Runner").arn]
    ours = Context.of({"aws:SourceAccount": ACCOUNT})
    assert role.assumable_by(SCHEDULER, ours).allowed
    theirs = role.assumable_by(SCHEDULER, Context.of({"aws:SourceAccount": "111111111111"}))
    assert not theirs.allowed
    assert "aws:SourceAccount is 111111111111, not 123456789012" in theirs.reason
    assert "(Runner trust policy, statement 0)" in theirs.reason
    assert not role.assumable_by(LAMBDA_SERVICE, ours).allowed


def test_inline_attached_and_managed_policies_all_count(tmp_path: Path) -> None:
    stack, declared = _declared(tmp_path, ROLE_TEMPLATE)
    role = declared.roles[stack.resource("Runner").arn]
    # The managed policy is attached by its own Roles and by the role's list: once.
    assert [policy.name for policy in role.policies] == ["Runner/send", "AuditAccess", "NoAudit"]
    jobs, audit = stack.resource("Jobs").arn, stack.resource("Audit").arn
    assert role.allows("sqs:SendMessage", jobs).reason == "allowed by Runner/send (statement 0)"
    refused = role.allows("sqs:SendMessage", audit)
    assert refused.kind == "explicit-deny"
    assert refused.reason == "an explicit Deny in NoAudit (statement NoAudit)"
    assert not role.allows("sqs:DeleteQueue", jobs).allowed


def test_a_managed_policy_the_emulator_has_no_copy_of_is_listed_as_unknown(
    tmp_path: Path,
) -> None:
    stack, declared = _declared(tmp_path, ROLE_TEMPLATE)
    assert declared.unknown_policies == {stack.resource("Runner").arn: (BASIC_EXECUTION,)}


def test_a_lambda_permission_is_a_statement_of_its_functions_policy(tmp_path: Path) -> None:
    template = """\
Resources:
  Worker:
    Type: AWS::Lambda::Function
    Properties: {Runtime: python3.12, Handler: index.handler, Code: {ZipFile: "x"}}
  Hourly:
    Type: AWS::Events::Rule
    Properties:
      ScheduleExpression: rate(1 hour)
      Targets: [{Id: worker, Arn: !GetAtt Worker.Arn}]
  Daily:
    Type: AWS::Events::Rule
    Properties:
      ScheduleExpression: rate(1 day)
      Targets: [{Id: worker, Arn: !GetAtt Worker.Arn}]
  HourlyMayInvoke:
    Type: AWS::Lambda::Permission
    Properties:
      FunctionName: !Ref Worker
      Action: lambda:InvokeFunction
      Principal: events.amazonaws.com
      SourceArn: !GetAtt Hourly.Arn
  OwnAccountMayInvoke:
    Type: AWS::Lambda::Permission
    Properties:
      FunctionName: !GetAtt Worker.Arn
      Action: lambda:InvokeFunction
      Principal: sns.amazonaws.com
      SourceAccount: !Ref AWS::AccountId
"""
    stack, declared = _declared(tmp_path, template)
    function = stack.resource("Worker").arn
    # Both permissions, one by name and one by ARN, make one policy of the one function.
    assert list(declared.resource_policies) == [function]
    policy = declared.resource_policies[function]
    assert policy.name == "HourlyMayInvoke + OwnAccountMayInvoke"

    def invoke(principal: Principal, rule: str) -> Any:
        context = Context.of({"aws:SourceArn": rule, "aws:SourceAccount": ACCOUNT})
        request = Request("lambda:InvokeFunction", function, principal, context)
        return evaluate_resource(policy, request)

    hourly, daily = stack.resource("Hourly").arn, stack.resource("Daily").arn
    assert invoke(EVENTS, hourly).reason == (
        "allowed by HourlyMayInvoke + OwnAccountMayInvoke (statement HourlyMayInvoke)"
    )
    refused = invoke(EVENTS, daily)
    assert not refused.allowed
    assert f"condition ArnLike AWS:SourceArn is {daily}, not {hourly}" in refused.reason
    assert invoke(Principal.service("sns.amazonaws.com"), daily).allowed


def test_a_function_or_queue_given_no_policy_lets_no_service_in(tmp_path: Path) -> None:
    template = resources(
        Worker={
            "Type": "AWS::Lambda::Function",
            "Properties": {"Runtime": "python3.12", "Handler": "x", "Code": {"ZipFile": "x"}},
        },
        Jobs={"Type": "AWS::SQS::Queue"},
    )
    stack, declared = _declared(tmp_path, template)
    function, queue = stack.resource("Worker").arn, stack.resource("Jobs").arn
    assert set(declared.resource_policies) == {function, queue}
    invoke = Request("lambda:InvokeFunction", function, EVENTS)
    refused = evaluate_resource(declared.resource_policies[function], invoke)
    assert refused.reason == f"no statement allows lambda:InvokeFunction on {function}"
    send = Request("sqs:SendMessage", queue, EVENTS)
    assert not evaluate_resource(declared.resource_policies[queue], send).allowed
    assert declared.roles == {} and declared.unknown_policies == {}


def _send_from(source_arn: Any, sid: str = "FromRule") -> dict[str, Any]:
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": sid,
                "Effect": "Allow",
                "Principal": {"Service": "events.amazonaws.com"},
                "Action": "sqs:SendMessage",
                "Resource": "*",
                "Condition": {"ArnEquals": {"aws:SourceArn": source_arn}},
            }
        ],
    }


def test_queue_policies_name_their_queues_by_url_and_join_on_one_queue(tmp_path: Path) -> None:
    template = resources(
        Jobs={"Type": "AWS::SQS::Queue"},
        Other={"Type": "AWS::SQS::Queue"},
        Hourly={"Type": "AWS::Events::Rule", "Properties": {"ScheduleExpression": "rate(1 hour)"}},
        Daily={"Type": "AWS::Events::Rule", "Properties": {"ScheduleExpression": "rate(1 day)"}},
        HourlySends={
            "Type": "AWS::SQS::QueuePolicy",
            "Properties": {
                "Queues": [{"Ref": "Jobs"}, {"Ref": "Other"}],
                "PolicyDocument": _send_from({"Fn::GetAtt": ["Hourly", "Arn"]}),
            },
        },
        DailySends={
            "Type": "AWS::SQS::QueuePolicy",
            "Properties": {
                # A queue outside the stack, by its URL.
                "Queues": [{"Ref": "Jobs"}, f"https://sqs.{REGION}.amazonaws.com/{ACCOUNT}/old"],
                "PolicyDocument": _send_from({"Fn::GetAtt": ["Daily", "Arn"]}),
            },
        },
    )
    stack, declared = _declared(tmp_path, template)
    jobs, other = stack.resource("Jobs").arn, stack.resource("Other").arn
    outside = f"arn:aws:sqs:{REGION}:{ACCOUNT}:old"
    assert set(declared.resource_policies) == {jobs, other, outside}
    hourly, daily = stack.resource("Hourly").arn, stack.resource("Daily").arn

    def send(queue: str, rule: str) -> Any:
        context = Context.of({"aws:SourceArn": rule})
        return evaluate_resource(
            declared.resource_policies[queue], Request("sqs:SendMessage", queue, EVENTS, context)
        )

    assert send(jobs, hourly).allowed and send(jobs, daily).allowed
    # The Sid both give is told apart by the policy that gave it the second time.
    assert send(jobs, daily).reason == (
        "allowed by HourlySends + DailySends (statement FromRule (DailySends))"
    )
    assert send(other, hourly).allowed and not send(other, daily).allowed
    assert send(outside, daily).allowed and not send(outside, hourly).allowed


def test_topic_and_event_bus_policies(tmp_path: Path) -> None:
    template = """\
Resources:
  Alerts:
    Type: AWS::SNS::Topic
  AlertsPolicy:
    Type: AWS::SNS::TopicPolicy
    Properties:
      Topics: [!Ref Alerts]
      PolicyDocument:
        Version: "2012-10-17"
        Statement:
          - Effect: Allow
            Principal: {Service: events.amazonaws.com}
            Action: sns:Publish
            Resource: !Ref Alerts
  PartnerMayPut:
    Type: AWS::Events::EventBusPolicy
    Properties:
      StatementId: partner
      Action: events:PutEvents
      Principal: "111111111111"
  OrgMayPut:
    Type: AWS::Events::EventBusPolicy
    Properties:
      StatementId: org
      Statement:
        Effect: Allow
        Principal: "*"
        Action: events:PutEvents
        Resource: !Sub arn:aws:events:${AWS::Region}:${AWS::AccountId}:event-bus/default
        Condition: {StringEquals: {"aws:PrincipalOrgID": o-abc}}
"""
    stack, declared = _declared(tmp_path, template)
    topic = stack.resource("Alerts").arn
    bus = f"arn:aws:events:{REGION}:{ACCOUNT}:event-bus/default"
    assert set(declared.resource_policies) == {topic, bus}
    publish = Request("sns:Publish", topic, EVENTS)
    assert evaluate_resource(declared.resource_policies[topic], publish).allowed
    policy = declared.resource_policies[bus]
    # Across accounts the sender's own policies must allow it too.
    sends = [parse_policy(_allow("events:PutEvents", "*"), name="forwarder/send")]

    def put(account: str, context: Context = EMPTY_CONTEXT) -> bool:
        sender = Principal.aws(f"arn:aws:iam::{account}:role/forwarder")
        request = Request("events:PutEvents", bus, sender, context)
        return authorize(request, identity=sends, resource_policy=policy).allowed

    assert put("111111111111")
    assert not put("222222222222")
    assert put("222222222222", Context.of({"aws:PrincipalOrgID": "o-abc"}))


@pytest.mark.parametrize(
    ("definition", "message"),
    [
        pytest.param(
            {"Type": "AWS::IAM::Role", "Properties": {}},
            r"resource Bad \(AWS::IAM::Role\): is missing; the resource needs it "
            r"\(at Properties\.AssumeRolePolicyDocument\)",
            id="role without a trust policy",
        ),
        pytest.param(
            {
                "Type": "AWS::IAM::Role",
                "Properties": {"AssumeRolePolicyDocument": {**TRUST, "Statement": {"Effect": 1}}},
            },
            r"resource Bad \(AWS::IAM::Role\): policy Bad trust policy, statement 0, element "
            r"Effect: must be Allow or Deny, not 1 \(at Properties\.AssumeRolePolicyDocument\)",
            id="trust policy",
        ),
        pytest.param(
            {
                "Type": "AWS::IAM::Role",
                "Properties": {
                    "AssumeRolePolicyDocument": TRUST,
                    "Policies": [{"PolicyName": "p", "PolicyDocument": {"Statement": []}}],
                },
            },
            None,
            id="an empty inline policy is a policy",
        ),
        pytest.param(
            {
                "Type": "AWS::IAM::Role",
                "Properties": {
                    "AssumeRolePolicyDocument": TRUST,
                    "Policies": [{"PolicyName": "p", "PolicyDocument": _allow("SendMessage", "*")}],
                },
            },
            r"resource Bad \(AWS::IAM::Role\): policy Bad/p, statement 0, element Action: "
            r"'SendMessage' is not service:action \(or \*\) \(at Properties\.Policies\.0\."
            r"PolicyDocument\)",
            id="inline policy",
        ),
        pytest.param(
            {
                "Type": "AWS::IAM::ManagedPolicy",
                "Properties": {"PolicyDocument": {**_allow("sqs:*", "*"), "Sid": "top"}},
            },
            r"resource Bad \(AWS::IAM::ManagedPolicy\): policy Bad: has Sid; a policy has only "
            r"Version, Id, Statement \(at Properties\.PolicyDocument\)",
            id="managed policy",
        ),
        pytest.param(
            {
                "Type": "AWS::Lambda::Permission",
                "Properties": {
                    "FunctionName": "worker",
                    "Action": "InvokeFunction",
                    "Principal": "events.amazonaws.com",
                },
            },
            r"resource Bad \(AWS::Lambda::Permission\): policy Bad, statement Bad, element "
            r"Action: 'InvokeFunction' is not service:action",
            id="lambda permission",
        ),
        pytest.param(
            {
                "Type": "AWS::SQS::QueuePolicy",
                "Properties": {"Queues": ["jobs"], "PolicyDocument": _allow("sqs:*", "*")},
            },
            r"resource Bad \(AWS::SQS::QueuePolicy\): policy Bad, statement 0: has neither "
            r"Principal nor NotPrincipal",
            id="queue policy without a principal",
        ),
        pytest.param(
            {
                "Type": "AWS::SQS::QueuePolicy",
                "Properties": {"Queues": ["jobs"], "PolicyDocument": _send_from("*")},
            },
            r"resource Bad \(AWS::SQS::QueuePolicy\): 'jobs' is not a queue's URL "
            r"\(at Properties\.Queues\)",
            id="queue by name",
        ),
    ],
)
def test_a_document_iam_refuses_fails_naming_its_resource(
    tmp_path: Path, definition: dict[str, Any], message: str | None
) -> None:
    stack = read(tmp_path, resources(Bad=definition))
    if message is None:
        declared_iam(stack)
        return
    with pytest.raises(StackError, match=r"^template\.json: " + message):
        declared_iam(stack)


def test_a_sam_functions_policies_and_its_schedules_role(tmp_path: Path) -> None:
    template = """\
Transform: AWS::Serverless-2016-10-31
Resources:
  Jobs:
    Type: AWS::SQS::Queue
  Sender:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: python3.12
      Handler: index.handler
      InlineCode: "def handler(event, context): pass"
      Policies:
        - SQSSendMessagePolicy: {QueueName: !GetAtt Jobs.QueueName}
      Events:
        Mornings:
          Type: ScheduleV2
          Properties:
            ScheduleExpression: cron(0 9 * * ? *)
  Shared:
    Type: AWS::IAM::Role
    Properties:
      AssumeRolePolicyDocument:
        Statement:
          - {Effect: Allow, Principal: {Service: lambda.amazonaws.com}, Action: "sts:AssumeRole"}
  Borrower:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: python3.12
      Handler: index.handler
      InlineCode: "def handler(event, context): pass"
      Role: !GetAtt Shared.Arn
"""
    stack, declared = _declared(tmp_path, template)
    jobs = stack.resource("Jobs").arn
    sender_role = declared.roles[stack.resource("SenderRole").arn]
    assert sender_role.assumable_by(LAMBDA_SERVICE).allowed
    assert sender_role.allows("sqs:SendMessage", jobs).allowed
    assert declared.unknown_policies[sender_role.arn] == (BASIC_EXECUTION,)
    # SAM's ScheduleV2 makes the schedule a role that Scheduler may assume, allowed to
    # invoke the function.
    schedule = stack.resource("SenderMornings").properties["Target"]
    mornings = declared.roles[schedule["RoleArn"]]
    assert mornings.assumable_by(SCHEDULER).allowed
    assert mornings.allows("lambda:InvokeFunction", stack.resource("Sender").arn).allowed
    # A function given a Role gets none made: the stack's role is the one declared.
    assert stack.resource("Borrower").properties["Role"] == stack.resource("Shared").arn
    assert {"BorrowerRole"}.isdisjoint(resource.logical_id for resource in stack.resources)
    assert len(declared.roles) == 3


def test_a_loaded_stacks_roles_are_known_to_the_emulator(tmp_path: Path) -> None:
    with Emulator(start=START) as emu:
        stack = emu.load_stack(write(tmp_path, ROLE_TEMPLATE))
        assert emu.iam.roles() == [stack.resource("Runner").arn]


def test_a_refused_policy_fails_the_load_and_creates_nothing(tmp_path: Path) -> None:
    bad = {**ROLE_TEMPLATE["Resources"]}
    bad["NoAudit"] = {
        **bad["NoAudit"],
        "Properties": {**bad["NoAudit"]["Properties"], "PolicyDocument": {"Statement": 3}},
    }
    with Emulator(start=START) as emu:
        with pytest.raises(StackError, match=r"resource NoAudit \(AWS::IAM::Policy\): policy "):
            emu.load_stack(write(tmp_path, {"Resources": bad}))
        assert emu.stacks == [] and emu.iam.roles() == []
        assert emu.client().list_schedules()["Schedules"] == []
