"""Target kinds, the Create/Update target checks and materialized requests (§5.9 to §5.12)."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from pytest_schedemu.model.resources import Target
from pytest_schedemu.targets import (
    RETRYABLE_ERROR_CODES,
    TargetKind,
    check_target,
    classify_error,
    missing_target_error,
    plan_target,
    queue_url,
    target_kind,
)
from pytest_schedemu.targets.events import default_event
from tests.constants import ACCOUNT, FUNCTION, QUEUE, ROLE, SCHEDULE_ARN

FIFO = "arn:aws:sqs:us-east-1:123456789012:q.fifo"
TOPIC = "arn:aws:sns:us-east-1:123456789012:news"
MACHINE = "arn:aws:states:us-east-1:123456789012:stateMachine:flow"
BUS = "arn:aws:events:us-east-1:123456789012:event-bus/main"
STREAM = "arn:aws:kinesis:us-east-1:123456789012:stream/clicks"
FIREHOSE = "arn:aws:firehose:us-east-1:123456789012:deliverystream/logs"
CLUSTER = "arn:aws:ecs:us-east-1:123456789012:cluster/main"
PIPELINE = "arn:aws:sagemaker:us-east-1:123456789012:pipeline/train"
PROJECT = "arn:aws:codebuild:us-east-1:123456789012:project/build"
CODEPIPELINE = "arn:aws:codepipeline:us-east-1:123456789012:release"
INSPECTOR = "arn:aws:inspector:us-east-1:123456789012:target/0-abc/template/0-def"
UNIVERSAL = "arn:aws:scheduler:::aws-sdk:sqs:sendMessage"
GENERIC = "arn:aws:iot:us-east-1:123456789012:thing/t"
TASK = "arn:aws:ecs:us-east-1:123456789012:task-definition/job:3"

EVENT_ID = "3cbed432-1adb-59b0-8fb9-615f20b69f61"
DEFAULT_EVENT = default_event(
    EVENT_ID, 1893456000, account=ACCOUNT, region="us-east-1", schedule_arn=SCHEDULE_ARN
)
QUOTED_DEFAULT_EVENT = json.dumps(DEFAULT_EVENT)


def target(arn: str, input: str | None = None, **parameters: dict[str, Any]) -> Target:
    return Target(arn=arn, role_arn=ROLE, input=input, parameters=parameters)


def located(name: str, resource: str, client: str, operation: str, **extra: Any) -> TargetKind:
    return TargetKind(
        name,
        partition="aws",
        region="us-east-1",
        account=ACCOUNT,
        resource=resource,
        client=client,
        operation=operation,
        **extra,
    )


# -- §5.9 target kinds -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arn", "kind"),
    [
        (FUNCTION, located("lambda", "remind", "lambda", "Invoke")),
        (f"{FUNCTION}:prod", located("lambda", "remind", "lambda", "Invoke")),
        (QUEUE, located("sqs", "queue", "sqs", "SendMessage")),
        (FIFO, located("sqs", "q.fifo", "sqs", "SendMessage", fifo=True)),
        (TOPIC, located("sns", "news", "sns", "Publish")),
        (MACHINE, located("states", "flow", "stepfunctions", "StartExecution")),
        (f"{MACHINE}:v2", located("states", "flow", "stepfunctions", "StartExecution")),
        (BUS, located("events", "main", "events", "PutEvents")),
        (STREAM, located("kinesis", "clicks", "kinesis", "PutRecord")),
        (FIREHOSE, located("firehose", "logs", "firehose", "PutRecord")),
        (CLUSTER, located("ecs", "main", "ecs", "RunTask")),
        (PIPELINE, located("sagemaker", "train", "sagemaker", "StartPipelineExecution")),
        (PROJECT, located("codebuild", "build", "codebuild", "StartBuild")),
        (
            CODEPIPELINE,
            located("codepipeline", "release", "codepipeline", "StartPipelineExecution"),
        ),
        (
            INSPECTOR,
            located("inspector", "target/0-abc/template/0-def", "inspector", "StartAssessmentRun"),
        ),
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_templated_kind_is_read_from_the_arn(arn: str, kind: TargetKind) -> None:
    assert target_kind(arn) == kind
    assert kind.templated


def test_universal_kind_carries_service_and_action() -> None:
    assert target_kind(UNIVERSAL) == TargetKind(
        "universal",
        partition="aws",
        service="sqs",
        action="sendMessage",
        client="sqs",
        operation="SendMessage",
    )
    assert not target_kind(UNIVERSAL).templated


@pytest.mark.parametrize(
    ("service", "client"),
    [
        ("cognitoidentityprovider", "cognito-idp"),
        ("cognito-idp", "cognito-idp"),
        ("applicationautoscaling", "application-autoscaling"),
        ("sqs", "sqs"),
    ],
)
def test_universal_services_are_named_as_the_sdks_name_them(service: str, client: str) -> None:
    kind = target_kind(f"arn:aws:scheduler:::aws-sdk:{service}:adminCreateUser")
    assert (kind.service, kind.client) == (service, client)


def test_every_sdk_service_name_maps_to_a_botocore_client() -> None:
    import botocore
    import botocore.session

    from pytest_schedemu.targets.kinds import SDK_SERVICE_CLIENTS
    from tools.vendor import Layout, version_key

    made_from = Layout.of_package().version()
    if version_key(botocore.__version__) < version_key(made_from):
        pytest.skip(f"the table was made from botocore {made_from}; this botocore is older")
    known = set(botocore.session.get_session().get_available_services())
    assert set(SDK_SERVICE_CLIENTS.values()) - known == set()


def test_universal_sfn_maps_to_the_stepfunctions_client() -> None:
    kind = target_kind("arn:aws:scheduler:::aws-sdk:sfn:startExecution")
    assert (kind.service, kind.client, kind.operation) == ("sfn", "stepfunctions", "StartExecution")


def test_partition_is_read_from_the_arn() -> None:
    kind = target_kind("arn:aws-cn:sqs:cn-north-1:123456789012:q")
    assert (kind.name, kind.partition, kind.region) == ("sqs", "aws-cn", "cn-north-1")


@pytest.mark.parametrize(
    "arn",
    [
        GENERIC,
        "arn:aws:lambda:us-east-1:123456789012:remind",
        "arn:aws:sqs:us-east-1:123456789012:a/b",
        "arn:aws:sqs:us-east-1:12345:q",
        "arn:aws:scheduler:us-east-1:123456789012:schedule/default/s1",
        "arn:aws:scheduler:::aws-sdk:sqs",
        "arn:other:sqs:us-east-1:123456789012:q",
        "not-an-arn",
    ],
)
def test_anything_else_is_generic(arn: str) -> None:
    assert target_kind(arn) == TargetKind("generic")
    assert not target_kind(arn).templated


def test_kinds_are_cached_per_arn() -> None:
    assert target_kind(QUEUE) is target_kind(QUEUE)


# -- §5.10 target checks -----------------------------------------------------------------------


def check(t: Target, region: str = "us-east-1") -> str | None:
    return check_target(t, region=region)


EVENTBRIDGE = {"Source": "s", "DetailType": "d"}
VALID = {
    FUNCTION: target(FUNCTION, '{"a": 1}'),
    QUEUE: target(QUEUE, "plain text"),
    FIFO: target(FIFO, SqsParameters={"MessageGroupId": "g"}),
    TOPIC: target(TOPIC),
    MACHINE: target(MACHINE, "[]"),
    BUS: target(BUS, EventBridgeParameters=EVENTBRIDGE),
    STREAM: target(STREAM, KinesisParameters={"PartitionKey": "k"}),
    FIREHOSE: target(FIREHOSE, "x"),
    CLUSTER: target(CLUSTER, "x", EcsParameters={"TaskDefinitionArn": TASK}),
    PIPELINE: target(PIPELINE, SageMakerPipelineParameters={}),
    PROJECT: target(PROJECT),
    CODEPIPELINE: target(CODEPIPELINE),
    INSPECTOR: target(INSPECTOR),
    UNIVERSAL: target(UNIVERSAL, "{}"),
    GENERIC: target(GENERIC, "not json"),
}


@pytest.mark.parametrize("arn", list(VALID))
def test_valid_target_passes_every_check(arn: str) -> None:
    assert check(VALID[arn]) is None


def test_step1_sdk_arn_with_a_region_or_account_is_refused() -> None:
    bad = "arn:aws:scheduler:us-east-1:123456789012:aws-sdk:sqs:sendMessage"
    assert check(target(bad, "{}")) == "scheduler is not a supported service for a target"
    assert check(target("arn:aws:scheduler::123456789012:aws-sdk:sqs:sendMessage", "{}")) == (
        "scheduler is not a supported service for a target"
    )


@pytest.mark.parametrize(
    "arn",
    [
        "arn:aws:scheduler:::aws-sdk:",
        "arn:aws:scheduler:::aws-sdk:sqs",
        "arn:aws:scheduler:::aws-sdk:sqs:",
        "arn:aws:scheduler:::aws-sdk:SQS:sendMessage",
        "arn:aws:scheduler:::aws-sdk:sqs:1send",
        "arn:aws:scheduler:::aws-sdk:sqs:send:extra",
    ],
)
def test_step2_sdk_arn_without_a_valid_service_action_is_invalid(arn: str) -> None:
    assert check(target(arn, "{}")) == f"Invalid target ARN {arn}."


READ_ONLY_PREFIXES = [
    "get",
    "describe",
    "list",
    "poll",
    "receive",
    "search",
    "scan",
    "query",
    "select",
    "read",
    "lookup",
    "discover",
    "validate",
    "batchGet",
    "batchDescribe",
    "batchRead",
    "transactGet",
    "adminGet",
    "adminList",
    "testMigration",
    "retrieve",
    "testConnection",
    "translateDocument",
    "isAuthorized",
    "invokeModel",
]


@pytest.mark.parametrize("prefix", READ_ONLY_PREFIXES)
def test_step3_read_only_action_is_refused(prefix: str) -> None:
    for action in (prefix, f"{prefix}Things", f"{prefix}2"):
        arn = f"arn:aws:scheduler:::aws-sdk:svc:{action}"
        assert check(target(arn, "{}")) == f"{action} API is not supported"


def test_step3_capitalised_read_only_action_is_refused_too() -> None:
    arn = "arn:aws:scheduler:::aws-sdk:sqs:GetQueueUrl"
    assert check(target(arn, "{}")) == "GetQueueUrl API is not supported"


@pytest.mark.parametrize(
    "action", ["sendMessage", "invoke", "listen", "getaway", "reader", "putItem", "scanner"]
)
def test_step3_prefix_followed_by_lower_case_is_not_read_only(action: str) -> None:
    assert check(target(f"arn:aws:scheduler:::aws-sdk:svc:{action}", "{}")) is None


def test_step4_universal_target_needs_input() -> None:
    assert check(target(UNIVERSAL)) == (
        "You must provide an input to set this target for your schedule"
    )


@pytest.mark.parametrize(
    ("arn", "block"),
    [
        (FUNCTION, "SqsParameters"),
        (TOPIC, "EventBridgeParameters"),
        (QUEUE, "KinesisParameters"),
        (STREAM, "EcsParameters"),
        (CLUSTER, "SageMakerPipelineParameters"),
        (UNIVERSAL, "SqsParameters"),
        (GENERIC, "EcsParameters"),
    ],
)
def test_step5_parameter_block_on_another_kind_is_refused(arn: str, block: str) -> None:
    t = target(arn, "{}", **{block: {}})
    assert check(t) == f"Parameters {block} not supported for the target"


def test_step5_reports_blocks_in_model_order() -> None:
    t = target(FUNCTION, "{}", SqsParameters={}, EcsParameters={})
    assert check(t) == "Parameters EcsParameters not supported for the target"


def test_step6_templated_target_in_another_region_is_refused() -> None:
    assert check(target(QUEUE), region="eu-west-1") == (
        "The target ARN provided does not match the current region eu-west-1."
    )


def test_step6_another_account_is_fine() -> None:
    assert check(target("arn:aws:sqs:us-east-1:210987654321:q")) is None


def test_step6_universal_and_generic_targets_have_no_region_to_check() -> None:
    assert check(target(UNIVERSAL, "{}"), region="eu-west-1") is None
    assert check(target(GENERIC, "x"), region="eu-west-1") is None


def test_step7_fifo_queue_without_sqs_parameters_is_refused() -> None:
    assert check(target(FIFO)) == "Parameters SqsParameters must be specified"


def test_step7_fifo_queue_without_message_group_id_is_refused() -> None:
    assert check(target(FIFO, SqsParameters={})) == "Parameters SqsParameters must be specified"


def test_step8_standard_queue_with_message_group_id_is_refused() -> None:
    t = target(QUEUE, SqsParameters={"MessageGroupId": "g"})
    assert check(t) == "Parameters MessageGroupId not valid for the target"


def test_step8_standard_queue_with_empty_sqs_parameters_is_fine() -> None:
    assert check(target(QUEUE, SqsParameters={})) is None


@pytest.mark.parametrize(
    ("arn", "block"),
    [(BUS, "EventBridgeParameters"), (STREAM, "KinesisParameters"), (CLUSTER, "EcsParameters")],
)
def test_step9_required_block_is_missing(arn: str, block: str) -> None:
    assert check(target(arn, "{}")) == f"Parameters {block} must be specified"


FARGATE_MESSAGE = (
    "Parameter NetworkConfiguration must be specified for the target when launch type is FARGATE"
)


def test_step10_fargate_without_network_configuration_is_refused() -> None:
    ecs = {"TaskDefinitionArn": TASK, "LaunchType": "FARGATE"}
    assert check(target(CLUSTER, EcsParameters=ecs)) == FARGATE_MESSAGE


def test_step10_fargate_without_awsvpc_configuration_is_refused() -> None:
    ecs = {"TaskDefinitionArn": TASK, "LaunchType": "FARGATE", "NetworkConfiguration": {}}
    assert check(target(CLUSTER, EcsParameters=ecs)) == FARGATE_MESSAGE


def test_step10_fargate_with_awsvpc_configuration_is_fine() -> None:
    network = {"awsvpcConfiguration": {"Subnets": ["subnet-1"]}}
    ecs = {"TaskDefinitionArn": TASK, "LaunchType": "FARGATE", "NetworkConfiguration": network}
    assert check(target(CLUSTER, EcsParameters=ecs)) is None


def test_step10_ec2_launch_type_needs_no_network_configuration() -> None:
    ecs = {"TaskDefinitionArn": TASK, "LaunchType": "EC2"}
    assert check(target(CLUSTER, EcsParameters=ecs)) is None


JSON_ERROR = "JSON syntax error in input for the target"


@pytest.mark.parametrize("arn", [FUNCTION, MACHINE, BUS, UNIVERSAL])
def test_step11_json_kinds_refuse_text_that_is_not_json(arn: str) -> None:
    t = VALID[arn]
    assert check(Target(t.arn, ROLE, input="hello", parameters=t.parameters)) == JSON_ERROR


@pytest.mark.parametrize("arn", [QUEUE, TOPIC, STREAM, FIREHOSE, PROJECT, CODEPIPELINE, GENERIC])
def test_step11_other_kinds_take_any_text(arn: str) -> None:
    t = VALID[arn]
    assert check(Target(t.arn, ROLE, input="{not json", parameters=t.parameters)) is None


@pytest.mark.parametrize("text", ['"text"', "1", "null", "true", "[1, 2]", ' \n{"a": [1]}\t\r '])
def test_step11_any_single_json_value_is_accepted(text: str) -> None:
    assert check(target(FUNCTION, text)) is None


@pytest.mark.parametrize("text", ['{"a": 1} x', "{} {}", "NaN", "[Infinity]", "", "{'a': 1}"])
def test_step11_anything_but_one_json_value_is_refused(text: str) -> None:
    assert check(target(FUNCTION, text)) == JSON_ERROR


def test_step11_checks_input_with_sample_values_substituted() -> None:
    text = (
        '{"n": <aws.scheduler.attempt-number>, "arn": "<aws.scheduler.schedule-arn>", '
        '"at": "<aws.scheduler.scheduled-time>", "id": "<aws.scheduler.execution-id>"}'
    )
    assert check(target(FUNCTION, text)) is None


def test_step11_unquoted_schedule_arn_placeholder_is_refused() -> None:
    assert check(target(FUNCTION, '{"arn": <aws.scheduler.schedule-arn>}')) == JSON_ERROR


def test_first_failing_check_is_reported() -> None:
    read_only = "arn:aws:scheduler:::aws-sdk:sqs:listQueues"
    assert check(target(read_only)) == "listQueues API is not supported"  # 3 before 4
    assert check(target(UNIVERSAL, SqsParameters={})) == (  # 4 before 5
        "You must provide an input to set this target for your schedule"
    )
    assert check(target(FUNCTION, "x", SqsParameters={}), region="eu-west-1") == (  # 5 before 6
        "Parameters SqsParameters not supported for the target"
    )
    assert check(target(FIFO), region="eu-west-1") == (  # 6 before 7
        "The target ARN provided does not match the current region eu-west-1."
    )
    assert check(target(BUS, "x")) == "Parameters EventBridgeParameters must be specified"  # 9, 11
    assert check(target("arn:aws:scheduler:::aws-sdk:sqs:", "x", SqsParameters={})) == (
        "Invalid target ARN arn:aws:scheduler:::aws-sdk:sqs:."  # 2 before 5 and 11
    )


# -- §5.11 materialized requests --------------------------------------------------------------


def request(t: Target, payload: str = DEFAULT_EVENT, **plan: Any) -> Any:
    return plan_target(t, schedule_arn=SCHEDULE_ARN, **plan).materialize(payload)


def test_sqs_request_text() -> None:
    r = request(target(QUEUE))
    assert r.text == (
        '{"QueueUrl":"https://sqs.us-east-1.amazonaws.com/123456789012/queue",'
        f'"MessageBody":{QUOTED_DEFAULT_EVENT}}}'
    )
    assert r.data == json.loads(r.text)


def test_sqs_fifo_request_adds_the_message_group() -> None:
    r = request(target(FIFO, "hi", SqsParameters={"MessageGroupId": "g1"}), "hi")
    assert r.text == (
        '{"QueueUrl":"https://sqs.us-east-1.amazonaws.com/123456789012/q.fifo",'
        '"MessageBody":"hi","MessageGroupId":"g1"}'
    )
    assert r.data == {
        "QueueUrl": "https://sqs.us-east-1.amazonaws.com/123456789012/q.fifo",
        "MessageBody": "hi",
        "MessageGroupId": "g1",
    }


def test_sqs_request_uses_the_queue_url_template() -> None:
    r = request(target(QUEUE), "x", queue_url_template="http://127.0.0.1:5000/{account}/{name}")
    assert r.text == '{"QueueUrl":"http://127.0.0.1:5000/123456789012/queue","MessageBody":"x"}'


def test_payload_is_quoted_without_ascii_escapes() -> None:
    r = request(target(QUEUE), 'é "q" \\ \n ☃')
    assert r.text.endswith('"MessageBody":"é \\"q\\" \\\\ \\n ☃"}')
    assert r.data["MessageBody"] == 'é "q" \\ \n ☃'


def test_request_text_escapes_the_targets_own_values() -> None:
    group = 'a"b\\c"'
    r = request(target(FIFO, SqsParameters={"MessageGroupId": group}), group)
    assert r.text == (
        '{"QueueUrl":"https://sqs.us-east-1.amazonaws.com/123456789012/q.fifo",'
        '"MessageBody":"a\\"b\\\\c\\"","MessageGroupId":"a\\"b\\\\c\\""}'
    )
    assert json.loads(r.text) == r.data
    assert r.data["MessageGroupId"] == group


def test_lambda_request_text() -> None:
    r = request(target(FUNCTION), '{"a":1}')
    assert r.text == (
        '{"FunctionName":"arn:aws:lambda:us-east-1:123456789012:function:remind",'
        '"InvocationType":"Event","Payload":"{\\"a\\":1}"}'
    )
    assert r.data == {"FunctionName": FUNCTION, "InvocationType": "Event", "Payload": '{"a":1}'}


def test_sns_request_text_has_no_subject() -> None:
    assert request(target(TOPIC), "m").text == f'{{"TopicArn":"{TOPIC}","Message":"m"}}'


def test_step_functions_request_text_has_no_name() -> None:
    assert (
        request(target(MACHINE), "{}").text == f'{{"stateMachineArn":"{MACHINE}","input":"{{}}"}}'
    )


def test_eventbridge_request_text() -> None:
    t = target(BUS, EventBridgeParameters={"Source": "my.app", "DetailType": "Tick"})
    r = request(t, '{"k":"v"}')
    assert r.text == (
        '{"Entries":[{"Source":"my.app","DetailType":"Tick","Detail":"{\\"k\\":\\"v\\"}",'
        f'"EventBusName":"{BUS}","Resources":["{SCHEDULE_ARN}"]}}]}}'
    )
    assert r.data == json.loads(r.text)


def test_kinesis_request_text_base64_encodes_utf8() -> None:
    r = request(target(STREAM, KinesisParameters={"PartitionKey": "pk"}), "é")
    encoded = base64.b64encode("é".encode()).decode()
    assert encoded == "w6k="
    assert r.text == f'{{"StreamARN":"{STREAM}","PartitionKey":"pk","Data":"w6k="}}'


def test_firehose_request_text_uses_the_stream_name() -> None:
    r = request(target(FIREHOSE), "hi")
    assert r.text == '{"DeliveryStreamName":"logs","Record":{"Data":"aGk="}}'
    assert r.data == {"DeliveryStreamName": "logs", "Record": {"Data": "aGk="}}


def test_ecs_request_maps_every_member_in_order() -> None:
    ecs = {
        "Tags": [{"team": "a", "env": "test"}, {"x": "y"}],
        "EnableExecuteCommand": True,
        "EnableECSManagedTags": False,
        "PropagateTags": "TASK_DEFINITION",
        "ReferenceId": "ref",
        "Group": "grp",
        "PlatformVersion": "1.4.0",
        "PlacementStrategy": [{"type": "spread", "field": "instanceId"}],
        "PlacementConstraints": [{"type": "memberOf", "expression": "attribute:x == y"}],
        "NetworkConfiguration": {
            "awsvpcConfiguration": {
                "AssignPublicIp": "ENABLED",
                "SecurityGroups": ["sg-1"],
                "Subnets": ["subnet-1"],
            }
        },
        "CapacityProviderStrategy": [{"capacityProvider": "FARGATE", "base": 1, "weight": 2}],
        "LaunchType": "FARGATE",
        "TaskCount": 3,
        "TaskDefinitionArn": TASK,
    }
    r = request(target(CLUSTER, '{"containerOverrides":[]}', EcsParameters=ecs), '{"x": 1}')
    assert r.text == (
        f'{{"cluster":"{CLUSTER}","taskDefinition":"{TASK}","count":3,"launchType":"FARGATE",'
        '"capacityProviderStrategy":[{"capacityProvider":"FARGATE","base":1,"weight":2}],'
        '"networkConfiguration":{"awsvpcConfiguration":{"subnets":["subnet-1"],'
        '"securityGroups":["sg-1"],"assignPublicIp":"ENABLED"}},'
        '"placementConstraints":[{"type":"memberOf","expression":"attribute:x == y"}],'
        '"placementStrategy":[{"type":"spread","field":"instanceId"}],'
        '"platformVersion":"1.4.0","group":"grp","referenceId":"ref",'
        '"propagateTags":"TASK_DEFINITION","enableECSManagedTags":false,'
        '"enableExecuteCommand":true,"tags":[{"key":"team","value":"a"},'
        '{"key":"env","value":"test"},{"key":"x","value":"y"}],"overrides":{"x":1}}'
    )
    assert r.data == json.loads(r.text)


def test_ecs_request_counts_one_task_by_default() -> None:
    r = request(target(CLUSTER, EcsParameters={"TaskDefinitionArn": TASK}))
    assert r.text == f'{{"cluster":"{CLUSTER}","taskDefinition":"{TASK}","count":1}}'


def test_ecs_request_never_takes_the_default_event() -> None:
    r = request(target(CLUSTER, EcsParameters={"TaskDefinitionArn": TASK}), DEFAULT_EVENT)
    assert "overrides" not in r.data


def test_ecs_request_ignores_input_that_is_not_a_json_object() -> None:
    t = target(CLUSTER, "[1]", EcsParameters={"TaskDefinitionArn": TASK})
    assert (
        request(t, "[1]").text == f'{{"cluster":"{CLUSTER}","taskDefinition":"{TASK}","count":1}}'
    )
    assert "overrides" not in request(t, "not json").data


def test_sagemaker_request_ignores_the_payload() -> None:
    listed = [{"Name": "epochs", "Value": "3"}, {"Name": "lr", "Value": "0.1"}]
    t = target(PIPELINE, '{"x":1}', SageMakerPipelineParameters={"PipelineParameterList": listed})
    assert request(t, '{"x":1}').text == (
        '{"PipelineName":"train","PipelineParameters":'
        '[{"Name":"epochs","Value":"3"},{"Name":"lr","Value":"0.1"}]}'
    )


def test_sagemaker_request_leaves_out_an_empty_parameter_list() -> None:
    empty = target(PIPELINE, SageMakerPipelineParameters={"PipelineParameterList": []})
    assert request(empty).text == '{"PipelineName":"train"}'
    assert request(target(PIPELINE)).text == '{"PipelineName":"train"}'


def test_codebuild_request_merges_an_input_object() -> None:
    text = '{"sourceVersion": "main", "projectName": "other"}'
    r = request(target(PROJECT, text), text)
    assert r.text == '{"projectName":"build","sourceVersion":"main"}'


def test_codebuild_request_without_input_is_the_project_alone() -> None:
    assert request(target(PROJECT)).text == '{"projectName":"build"}'
    assert request(target(PROJECT, "text"), "text").text == '{"projectName":"build"}'


def test_codepipeline_request_names_the_pipeline() -> None:
    assert request(target(CODEPIPELINE)).text == '{"name":"release"}'


def test_inspector_request_names_the_template() -> None:
    assert request(target(INSPECTOR)).text == f'{{"assessmentTemplateArn":"{INSPECTOR}"}}'


def test_universal_request_is_the_input_text_exactly() -> None:
    text = '{ "QueueUrl" : "https://sqs/q",\n  "MessageBody": "Hello, world!" }'
    r = request(target(UNIVERSAL, text), text)
    assert r.text == text
    assert r.data == {"QueueUrl": "https://sqs/q", "MessageBody": "Hello, world!"}


def test_universal_request_that_is_no_longer_json_has_no_data() -> None:
    assert request(target(UNIVERSAL, "1<aws.scheduler.execution-id>"), "186d7").data is None


def test_generic_request_text() -> None:
    assert request(target(GENERIC, "x"), "x").text == f'{{"TargetArn":"{GENERIC}","Input":"x"}}'


@pytest.mark.parametrize(
    "t",
    [
        target(BUS, EventBridgeParameters=EVENTBRIDGE),
        target(CLUSTER, "{}", EcsParameters={"TaskDefinitionArn": TASK, "Tags": [{"a": "b"}]}),
        target(
            PIPELINE,
            SageMakerPipelineParameters={"PipelineParameterList": [{"Name": "n", "Value": "v"}]},
        ),
    ],
    ids=["events", "ecs", "sagemaker"],
)
def test_each_request_gets_its_own_containers(t: Target) -> None:
    plan = plan_target(t, schedule_arn=SCHEDULE_ARN)
    first = plan.materialize("{}")
    json.dumps(first.data)
    first.data.clear()
    assert plan.materialize("{}").data == json.loads(first.text)


def test_plan_payload_is_the_default_event_without_input() -> None:
    plan = plan_target(target(QUEUE), schedule_arn=SCHEDULE_ARN)
    assert plan.payload(1893456000, EVENT_ID, "86d7d9268caa3b91", 1) == DEFAULT_EVENT


def test_plan_payload_is_the_substituted_input() -> None:
    plan = plan_target(target(QUEUE, "<aws.scheduler.attempt-number>"), schedule_arn=SCHEDULE_ARN)
    assert plan.payload(1893456000, EVENT_ID, "86d7d9268caa3b91", 4) == "4"


def test_plan_carries_the_control_keys() -> None:
    assert plan_target(target(QUEUE), schedule_arn=SCHEDULE_ARN).control_keys == (QUEUE,)
    universal = plan_target(target(UNIVERSAL, "{}"), schedule_arn=SCHEDULE_ARN)
    assert universal.control_keys == (UNIVERSAL, "sqs:sendMessage")


# -- queue URLs --------------------------------------------------------------------------------


def test_queue_url_of_a_standard_queue() -> None:
    assert queue_url(QUEUE) == "https://sqs.us-east-1.amazonaws.com/123456789012/queue"


def test_queue_url_in_the_china_partition() -> None:
    arn = "arn:aws-cn:sqs:cn-north-1:123456789012:dlq"
    assert queue_url(arn) == "https://sqs.cn-north-1.amazonaws.com.cn/123456789012/dlq"


def test_queue_url_from_a_template() -> None:
    template = "http://localhost:4566/{region}/{account}/{name}"
    assert queue_url(QUEUE, template) == "http://localhost:4566/us-east-1/123456789012/queue"


def test_queue_url_of_something_else_is_none() -> None:
    assert queue_url(TOPIC) is None


# -- §5.12 delivery outcomes -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arn", "error"),
    [
        (
            QUEUE,
            (
                "AWS.SimpleQueueService.NonExistentQueue",
                "The specified queue does not exist for this wsdl version.",
            ),
        ),
        (FUNCTION, ("ResourceNotFoundException", f"Function not found: {FUNCTION}")),
        (TOPIC, ("NotFound", "Topic does not exist")),
        (MACHINE, ("StateMachineDoesNotExist", f"State Machine Does Not Exist: '{MACHINE}'")),
        (BUS, ("ResourceNotFoundException", "Event bus main does not exist.")),
        (
            STREAM,
            ("ResourceNotFoundException", "Stream clicks under account 123456789012 not found."),
        ),
        (CLUSTER, ("ClusterNotFoundException", "Cluster not found.")),
    ],
    ids=lambda value: value.split(":")[2] if isinstance(value, str) else "",
)
def test_missing_target_error(arn: str, error: Any) -> None:
    assert missing_target_error(target_kind(arn), arn) == error
    assert plan_target(VALID[arn], schedule_arn=SCHEDULE_ARN).missing_error == error


@pytest.mark.parametrize("arn", [FIREHOSE, PIPELINE, PROJECT, CODEPIPELINE, INSPECTOR, UNIVERSAL])
def test_kinds_without_a_missing_target_error(arn: str) -> None:
    assert missing_target_error(target_kind(arn), arn) is None


@pytest.mark.parametrize("status", [429, 500, 502, 503, 599])
def test_throttling_and_server_statuses_are_retried(status: int) -> None:
    assert classify_error(status, None) is True
    assert classify_error(status, "Whatever") is True


@pytest.mark.parametrize("status", [400, 403, 404, 409, 413])
def test_other_client_statuses_are_permanent(status: int) -> None:
    assert classify_error(status, "ResourceNotFoundException") is False


@pytest.mark.parametrize("code", sorted(RETRYABLE_ERROR_CODES))
def test_retryable_codes_are_retried_whatever_the_status(code: str) -> None:
    assert classify_error(400, code) is True
    assert classify_error(None, code) is True


def test_retryable_codes_are_the_reference_list() -> None:
    assert sorted(RETRYABLE_ERROR_CODES) == [
        "EC2ThrottledException",
        "InternalError",
        "InternalFailure",
        "InternalServerError",
        "KMSThrottlingException",
        "ProvisionedThroughputExceededException",
        "RequestLimitExceeded",
        "ServiceUnavailable",
        "ServiceUnavailableException",
        "SlowDown",
        "Throttling",
        "ThrottlingException",
        "TooManyRequestsException",
    ]


def test_no_response_at_all_is_retried() -> None:
    assert classify_error(None, None) is True


def test_code_without_status_is_judged_by_the_code() -> None:
    assert classify_error(None, "AccessDeniedException") is False


@pytest.mark.parametrize(
    "arn",
    [
        "charge-invoice",
        "https://sqs.us-east-1.amazonaws.com/123456789012/q",
        "arn:aws:sqs",
        "arn:aws::us-east-1:123456789012:q",
        "arn:aws:sqs:us-east-1:123456789012:",
        "arn:nope:sqs:us-east-1:123456789012:q",
        "ARN:aws:sqs:us-east-1:123456789012:q",
    ],
)
def test_a_target_arn_that_is_no_arn_at_all_is_refused(arn: str) -> None:
    # §5.10 step 0: otherwise a typo would be "delivered" as a generic target.
    assert check_target(target(arn), region="us-east-1") == f"Invalid target ARN {arn}."


@pytest.mark.parametrize(
    "arn", ["arn:aws:s3:::bucket/key", "arn:aws-cn:iot:cn-north-1:123456789012:thing/t"]
)
def test_arns_without_region_or_of_other_partitions_are_arns(arn: str) -> None:
    assert check_target(target(arn), region="us-east-1") != f"Invalid target ARN {arn}."
