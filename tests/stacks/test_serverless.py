"""The Serverless Framework's compiled template is plain CloudFormation JSON."""

from __future__ import annotations

import json
from pathlib import Path

from pytest_schedemu.stacks import read_stack
from tests.stacks.building import ACCOUNT, REGION, SEED

# What `serverless package` writes to .serverless/ for a service "reports" (stage dev)
# with one function and a `schedule` event of the scheduler method.
COMPILED = {
    "AWSTemplateFormatVersion": "2010-09-09",
    "Description": "The AWS CloudFormation template for this Serverless application",
    "Resources": {
        "ServerlessDeploymentBucket": {
            "Type": "AWS::S3::Bucket",
            "Properties": {
                "BucketEncryption": {
                    "ServerSideEncryptionConfiguration": [
                        {"ServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"}}
                    ]
                }
            },
        },
        "DailyLogGroup": {
            "Type": "AWS::Logs::LogGroup",
            "Properties": {"LogGroupName": "/aws/lambda/reports-dev-daily"},
        },
        "IamRoleLambdaExecution": {
            "Type": "AWS::IAM::Role",
            "Properties": {
                "AssumeRolePolicyDocument": {
                    "Version": "2012-10-17",
                    "Statement": [
                        {
                            "Effect": "Allow",
                            "Principal": {"Service": ["lambda.amazonaws.com"]},
                            "Action": ["sts:AssumeRole"],
                        }
                    ],
                },
                "Path": "/",
                "RoleName": {
                    "Fn::Join": ["-", ["reports", "dev", {"Ref": "AWS::Region"}, "lambdaRole"]]
                },
            },
        },
        "DailyLambdaFunction": {
            "Type": "AWS::Lambda::Function",
            "Properties": {
                "Code": {
                    "S3Bucket": {"Ref": "ServerlessDeploymentBucket"},
                    "S3Key": "serverless/reports/dev/1700000000000/reports.zip",
                },
                "Handler": "handler.daily",
                "Runtime": "python3.12",
                "FunctionName": "reports-dev-daily",
                "Role": {"Fn::GetAtt": ["IamRoleLambdaExecution", "Arn"]},
            },
            "DependsOn": ["DailyLogGroup"],
        },
        "DailyEventsRuleSchedule1": {
            "Type": "AWS::Events::Rule",
            "Properties": {
                "ScheduleExpression": "cron(0 6 * * ? *)",
                "State": "ENABLED",
                "Targets": [
                    {
                        "Arn": {"Fn::GetAtt": ["DailyLambdaFunction", "Arn"]},
                        "Id": "dailySchedule",
                    }
                ],
            },
        },
        "DailyLambdaPermissionEventsRuleSchedule1": {
            "Type": "AWS::Lambda::Permission",
            "Properties": {
                "FunctionName": {"Fn::GetAtt": ["DailyLambdaFunction", "Arn"]},
                "Action": "lambda:InvokeFunction",
                "Principal": "events.amazonaws.com",
                "SourceArn": {"Fn::GetAtt": ["DailyEventsRuleSchedule1", "Arn"]},
            },
        },
    },
    "Outputs": {
        "ServerlessDeploymentBucketName": {
            "Value": {"Ref": "ServerlessDeploymentBucket"},
            "Export": {"Name": "sls-reports-dev-ServerlessDeploymentBucketName"},
        }
    },
}


def test_a_serverless_framework_template_reads_as_cloudformation(tmp_path: Path) -> None:
    path = tmp_path / ".serverless" / "cloudformation-template-update-stack.json"
    path.parent.mkdir()
    path.write_text(json.dumps(COMPILED, indent=2))
    stack = read_stack(path, account=ACCOUNT, region=REGION, seed=SEED, stack_name="reports-dev")
    function_arn = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:reports-dev-daily"
    (rule,) = stack.of_type("AWS::Events::Rule")
    assert rule.properties["Targets"][0]["Arn"] == function_arn
    assert rule.physical_name is not None and rule.physical_name.startswith("reports-dev-")
    permission = stack.resource("DailyLambdaPermissionEventsRuleSchedule1").properties
    assert permission["SourceArn"] == rule.arn
    role = stack.resource("IamRoleLambdaExecution")
    assert role.arn == f"arn:aws:iam::{ACCOUNT}:role/reports-dev-{REGION}-lambdaRole"
    bucket = stack.resource("ServerlessDeploymentBucket").physical_name or ""
    assert stack.resource("DailyLambdaFunction").properties["Code"]["S3Bucket"] == bucket
    assert bucket.startswith("reports-dev-serverlessdeploymentbucket-")
