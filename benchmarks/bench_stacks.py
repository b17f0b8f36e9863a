"""Cost of loading a stack: a generated 500-resource template, read, resolved and loaded.

The template has 125 blocks of four resources: a queue (every other one conditional), a
role whose policy names the queue by Fn::GetAtt, a schedule that sends to the queue with
an Fn::Sub input, and a schedule group. It is written once as JSON and once as YAML; each
run reads the file and resolves every resource, so the YAML line adds the YAML parser's
cost. Then the whole ``Emulator.load_stack`` (read, resolve, check and create every group
and schedule), which has 0.5 s in all, beside the same groups and schedules created one
call at a time through the API in process, as an application's setup code would.

Run: python benchmarks/bench_stacks.py [--runs 9] [--blocks 125]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from pytest_schedemu import Emulator
from pytest_schedemu.stacks import read_stack


def template(blocks: int) -> dict[str, Any]:
    resources: dict[str, Any] = {}
    for index in range(blocks):
        queue, role = f"Queue{index}", f"Role{index}"
        resources[queue] = {
            "Type": "AWS::SQS::Queue",
            **({"Condition": "IsProd"} if index % 2 else {}),
            "Properties": {"QueueName": {"Fn::Sub": f"${{Stage}}-jobs-{index}"}},
        }
        resources[role] = {
            "Type": "AWS::IAM::Role",
            "Properties": {
                "AssumeRolePolicyDocument": {
                    "Version": "2012-10-17",
                    "Statement": [
                        {
                            "Effect": "Allow",
                            "Principal": {"Service": "scheduler.amazonaws.com"},
                            "Action": "sts:AssumeRole",
                        }
                    ],
                },
                "Policies": [
                    {
                        "PolicyName": "send",
                        "PolicyDocument": {
                            "Statement": [
                                {
                                    "Effect": "Allow",
                                    "Action": "sqs:SendMessage",
                                    "Resource": {"Fn::GetAtt": [queue, "Arn"]},
                                }
                            ]
                        },
                    }
                ],
            },
        }
        resources[f"Group{index}"] = {
            "Type": "AWS::Scheduler::ScheduleGroup",
            "Properties": {"Name": {"Fn::Sub": f"group-{index}-${{AWS::Region}}"}},
        }
        resources[f"Schedule{index}"] = {
            "Type": "AWS::Scheduler::Schedule",
            "Properties": {
                "GroupName": {"Ref": f"Group{index}"},
                "ScheduleExpression": "rate(5 minutes)",
                "FlexibleTimeWindow": {"Mode": "OFF"},
                "Target": {
                    "Arn": {"Fn::If": ["IsProd", {"Fn::GetAtt": [queue, "Arn"]}, "arn:x"]},
                    "RoleArn": {"Fn::GetAtt": [role, "Arn"]},
                    "Input": {"Fn::Sub": f'{{"queue": "${{{queue}.QueueName}}"}}'},
                },
            },
        }
    return {
        "Parameters": {"Stage": {"Type": "String", "Default": "prod"}},
        "Conditions": {"IsProd": {"Fn::Equals": [{"Ref": "Stage"}, "prod"]}},
        "Resources": resources,
    }


def median_ms(path: Path, runs: int) -> float:
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        stack = read_stack(path, account="123456789012", region="us-east-1", seed=1)
        times.append((time.perf_counter() - began) * 1000)
    assert len(stack.resources) > 0
    return statistics.median(times)


def load_ms(path: Path, runs: int) -> tuple[float, float]:
    """Medians of ``load_stack`` and of the same resources created through the API."""
    loads, calls = [], []
    with Emulator(start="2026-03-01T00:00:00Z") as emu:
        for _ in range(runs):
            emu.reset()
            began = time.perf_counter()
            stack = emu.load_stack(path)
            loads.append((time.perf_counter() - began) * 1000)
            groups, schedules = stack.schedule_groups, stack.schedules
            emu.reset()
            client = emu.client()
            began = time.perf_counter()
            for group in groups:
                client.create_schedule_group(Name=group.name)
            for schedule in schedules:
                target = schedule.target
                client.create_schedule(
                    Name=schedule.name,
                    GroupName=schedule.group_name,
                    ScheduleExpression=schedule.schedule_expression,
                    FlexibleTimeWindow={"Mode": "OFF"},
                    Target={"Arn": target.arn, "RoleArn": target.role_arn, "Input": target.input},
                )
            calls.append((time.perf_counter() - began) * 1000)
    return statistics.median(loads), statistics.median(calls)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--blocks", type=int, default=125)
    args = parser.parse_args()
    body = template(args.blocks)
    with tempfile.TemporaryDirectory() as directory:
        json_path = Path(directory) / "template.json"
        json_path.write_text(json.dumps(body))
        yaml_path = Path(directory) / "template.yaml"
        yaml_path.write_text(yaml.safe_dump(body, sort_keys=False))
        count = len(body["Resources"])
        print(f"{count} resources, median of {args.runs} runs")
        print(f"  JSON: {median_ms(json_path, args.runs):7.1f} ms")
        print(f"  YAML: {median_ms(yaml_path, args.runs):7.1f} ms")
        for path in (json_path, yaml_path):
            loaded, called = load_ms(path, args.runs)
            print(
                f"  load_stack, {path.suffix[1:].upper()}: {loaded:7.1f} ms; the same groups "
                f"and schedules through the API: {called:7.1f} ms ({loaded / called:.2f}x)"
            )


if __name__ == "__main__":
    main()
