"""Evaluations per second of the IAM wing on a typical role, against a cache hit and moto.

The role is what a schedule's execution role usually is: two statements (send to one queue,
invoke one function), a trust policy that lets ``scheduler.amazonaws.com`` in for one
account, and a queue policy that lets ``events.amazonaws.com`` send for one rule. Each
scenario evaluates one prepared request (the caller builds it once and caches on it):

  identity allow      the role's policies allow the action (the first statement)
  identity deny       no statement allows it (both statements scanned)
  explicit deny       a third statement denies it
  trust               the trust policy, with its aws:SourceAccount condition
  resource            the queue policy, with its aws:SourceArn condition, for a service
  cache hit           a dict lookup on (role, request): what the caller pays once cached
  moto allow/deny     moto's IAMPolicy.is_action_permitted on the same identity policy
                      (its own evaluator: Action and Resource, StringEquals conditions only)

The scenarios take turns within each round, so that a neighbour's load falls on all alike;
the table shows each one's median over the rounds.

Run: python benchmarks/bench_iam.py [--rounds 15] [--calls 20000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any, Callable

from pytest_schedemu.iam import (
    Context,
    Principal,
    Request,
    evaluate_identity,
    evaluate_resource,
    evaluate_trust,
    parse_policy,
)

ACCOUNT = "123456789012"
ROLE = f"arn:aws:iam::{ACCOUNT}:role/scheduler-role"
QUEUE = f"arn:aws:sqs:us-east-1:{ACCOUNT}:orders"
FUNCTION = f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:remind"
RULE = f"arn:aws:events:us-east-1:{ACCOUNT}:rule/nightly"
ROLE_POLICY = {
    "Version": "2012-10-17",
    "Statement": [
        {"Effect": "Allow", "Action": "sqs:SendMessage", "Resource": QUEUE},
        {
            "Effect": "Allow",
            "Action": "lambda:InvokeFunction",
            "Resource": [FUNCTION, FUNCTION + ":*"],
        },
    ],
}
DENYING = {
    "Version": "2012-10-17",
    "Statement": [
        {"Sid": "NoDlq", "Effect": "Deny", "Action": "sqs:*", "Resource": "arn:aws:sqs:*:*:dlq*"}
    ],
}
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
QUEUE_POLICY = {
    "Version": "2012-10-17",
    "Statement": [
        {
            "Effect": "Allow",
            "Principal": {"Service": "events.amazonaws.com"},
            "Action": "sqs:SendMessage",
            "Resource": QUEUE,
            "Condition": {"ArnEquals": {"aws:SourceArn": RULE}},
        }
    ],
}


def scenarios() -> dict[str, Callable[[], Any]]:
    role = (parse_policy(ROLE_POLICY, name="role"),)
    with_deny = (*role, parse_policy(DENYING, name="deny"))
    trust = parse_policy(TRUST, name="trust", kind="trust")
    queue_policy = parse_policy(QUEUE_POLICY, name="queue", kind="resource")
    scheduler = Principal.service("scheduler.amazonaws.com")
    events = Principal.service("events.amazonaws.com")
    send = Request("sqs:SendMessage", QUEUE)
    unlisted = Request("sns:Publish", f"arn:aws:sns:us-east-1:{ACCOUNT}:t")
    to_dlq = Request("sqs:SendMessage", f"arn:aws:sqs:us-east-1:{ACCOUNT}:dlq-1")
    account = Context.of({"aws:SourceAccount": ACCOUNT})
    from_rule = Request("sqs:SendMessage", QUEUE, events, Context.of({"aws:SourceArn": RULE}))
    cache = {(ROLE, send): evaluate_identity(role, send)}
    found: dict[str, Callable[[], Any]] = {
        "identity allow": lambda: evaluate_identity(role, send),
        "identity deny": lambda: evaluate_identity(role, unlisted),
        "explicit deny": lambda: evaluate_identity(with_deny, to_dlq),
        "trust": lambda: evaluate_trust(trust, scheduler, role_arn=ROLE, context=account),
        "resource": lambda: evaluate_resource(queue_policy, from_rule),
        "cache hit": lambda: cache[(ROLE, send)],
    }
    try:
        from moto.iam.access_control import IAMPolicy
    except ImportError:  # moto is a test dependency; without it, no comparison
        return found
    moto_policy = IAMPolicy(json.dumps(ROLE_POLICY))
    found["moto allow"] = lambda: moto_policy.is_action_permitted("sqs:SendMessage", QUEUE)
    found["moto deny"] = lambda: moto_policy.is_action_permitted("sns:Publish", "arn:aws:sns:x")
    return found


#: What each scenario must answer, checked before it is timed: a benchmark of an evaluation
#: that went wrong would measure the wrong path.
ALLOWED = {
    "identity allow": True,
    "identity deny": False,
    "explicit deny": False,
    "trust": True,
    "resource": True,
    "cache hit": True,
    "moto allow": True,
    "moto deny": False,
}


def answered(result: Any) -> bool:
    allowed = getattr(result, "allowed", None)
    if allowed is not None:
        return bool(allowed)
    return str(result) == "PermissionResult.PERMITTED"


def per_second(call: Callable[[], Any], calls: int) -> float:
    began = time.perf_counter()
    for _ in range(calls):
        call()
    return calls / (time.perf_counter() - began)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--calls", type=int, default=20000)
    args = parser.parse_args()
    found = scenarios()
    wrong = [name for name, call in found.items() if answered(call()) != ALLOWED[name]]
    if wrong:
        raise SystemExit(f"these scenarios did not answer as they should: {', '.join(wrong)}")
    for call in found.values():
        per_second(call, 100)  # warm: regular expressions compiled, caches filled
    rates: dict[str, list[float]] = {name: [] for name in found}
    for _ in range(args.rounds):
        for name, call in found.items():
            rates[name].append(per_second(call, args.calls))
    print(f"{'scenario':<16} {'evaluations/s':>14} {'µs each':>9}")
    for name, measured in rates.items():
        median = statistics.median(measured)
        print(f"{name:<16} {median:>14,.0f} {1e6 / median:>9.2f}")


if __name__ == "__main__":
    main()
