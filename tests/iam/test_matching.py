"""Which requests a statement's Action, Resource and Principal name: wildcards, case, policy
variables and the forms of a principal (IAM User Guide, "IAM JSON policy elements: Action",
"...: Resource", "...: Variables and tags", "AWS JSON policy elements: Principal")."""

from __future__ import annotations

import pytest

from pytest_schedemu.iam import Policy, Principal, Request, authorize, parse_policy

from .documents import allow, ask, document, identity, resource

ACCOUNT = "123456789012"


@pytest.mark.parametrize(
    ("written", "asked", "allowed"),
    [
        ("sqs:SendMessage", "sqs:sendmessage", True),
        ("SQS:SENDMESSAGE", "sqs:SendMessage", True),
        ("sqs:Send*", "sqs:SendMessageBatch", True),
        ("sqs:*Message", "sqs:ReceiveMessage", True),
        ("sqs:?endMessage", "sqs:SendMessage", True),
        ("sqs:?endMessage", "sqs:SSendMessage", False),
        ("sqs:*", "sns:Publish", False),
        ("*", "states:StartExecution", True),
        ("s*:Publish", "sns:Publish", True),
    ],
)
def test_actions_match_case_insensitively_with_wildcards(
    written: str, asked: str, allowed: bool
) -> None:
    """IAM JSON policy elements: Action: action names are case-insensitive; ``*`` and ``?``
    stand for any characters or one."""
    assert ask(identity(allow(written, "*")), asked).allowed is allowed


@pytest.mark.parametrize(
    ("written", "asked", "allowed"),
    [
        (
            "arn:aws:sqs:us-east-1:123456789012:queue",
            "arn:aws:sqs:us-east-1:123456789012:queue",
            True,
        ),
        (
            "arn:aws:sqs:us-east-1:123456789012:queue",
            "arn:aws:sqs:us-east-1:123456789012:Queue",
            False,
        ),
        ("arn:aws:sqs:*:123456789012:queue", "arn:aws:sqs:eu-west-1:123456789012:queue", True),
        ("arn:aws:sqs:us-*-1:123456789012:q", "arn:aws:sqs:us-east-1:123456789012:q", True),
        (
            "arn:aws:iam::123456789012:user/accounting/*",
            "arn:aws:iam::123456789012:user/accounting/bob",
            True,
        ),
        ("arn:aws:s3:::amzn-s3-demo-bucket/*", "arn:aws:s3:::amzn-s3-demo-bucket/a/b/c.txt", True),
        ("arn:aws:s3:::amzn-s3-demo-bucket/*", "arn:aws:s3:::amzn-s3-demo-bucket", False),
        # A * that ends a segment runs on across the colons after it.
        ("arn:aws:lambda:*", "arn:aws:lambda:us-east-1:123456789012:function:f", True),
        (
            "arn:aws:logs:us-east-1:123456789012:log-group:*",
            "arn:aws:logs:us-east-1:123456789012:log-group:g:log-stream:s",
            True,
        ),
        # A * inside a segment stays within it.
        ("arn:aws:sqs:us-*1:q", "arn:aws:sqs:us-east-1:123456789012:q", False),
        ("arn:aws:sqs:us-east-?:123456789012:q", "arn:aws:sqs:us-east-2:123456789012:q", True),
        ("*", "arn:aws:sqs:us-east-1:123456789012:q", True),
    ],
)
def test_resources_match_case_sensitively_with_wildcards_per_segment(
    written: str, asked: str, allowed: bool
) -> None:
    """IAM JSON policy elements: Resource, "Using wildcards in resource ARNs": ``*`` and
    ``?`` within a segment; a ``*`` that is the last character of a segment may match
    beyond the colons; resource names are case-sensitive."""
    assert (
        ask(identity(allow("sqs:SendMessage", written)), "sqs:SendMessage", asked).allowed
        is allowed
    )


def test_policy_variables_are_replaced_from_the_request() -> None:
    """IAM policy elements: Variables and tags: ``${aws:username}`` in a resource lets each
    user reach only their own home folder."""
    policy = identity(allow("s3:*", "arn:aws:s3:::amzn-s3-demo-bucket/home/${aws:username}/*"))
    own = "arn:aws:s3:::amzn-s3-demo-bucket/home/maria/notes.txt"
    assert ask(policy, "s3:GetObject", own, aws__username="maria").allowed
    assert not ask(policy, "s3:GetObject", own, aws__username="ana").allowed
    # No user name in the request: the variable cannot be replaced, and nothing matches.
    assert not ask(policy, "s3:GetObject", own).allowed


def test_a_replaced_value_is_literal_text_not_a_wildcard() -> None:
    """IAM policy elements: Variables and tags: a variable stands for the request's value."""
    policy = identity(allow("s3:*", "arn:aws:s3:::bucket/${aws:username}/*"))
    other = "arn:aws:s3:::bucket/maria/notes.txt"
    assert not ask(policy, "s3:GetObject", other, aws__username="*").allowed
    assert ask(policy, "s3:GetObject", "arn:aws:s3:::bucket/*/x", aws__username="*").allowed


def test_special_characters_and_default_values_of_variables() -> None:
    """IAM policy elements: Variables and tags, "Special characters" (``${*}``, ``${?}``,
    ``${$}`` stand for the characters themselves) and "Specifying default values"."""
    literal = identity(allow("s3:*", "arn:aws:s3:::bucket/${*}${?}${$}"))
    assert ask(literal, "s3:GetObject", "arn:aws:s3:::bucket/*?$").allowed
    assert not ask(literal, "s3:GetObject", "arn:aws:s3:::bucket/ab$").allowed
    defaulted = identity(allow("s3:*", "arn:aws:s3:::bucket/${aws:PrincipalTag/team, 'shared'}/*"))
    assert ask(defaulted, "s3:GetObject", "arn:aws:s3:::bucket/shared/x").allowed
    tagged = {"aws:PrincipalTag/team": "billing"}
    assert ask(defaulted, "s3:GetObject", "arn:aws:s3:::bucket/billing/x", **tagged).allowed
    assert not ask(defaulted, "s3:GetObject", "arn:aws:s3:::bucket/shared/x", **tagged).allowed


def test_variables_are_plain_text_in_a_policy_of_the_old_version() -> None:
    """IAM policy elements: Variables and tags: without ``"Version": "2012-10-17"`` a
    variable is not replaced but read as the literal string."""
    old = parse_policy(
        document(allow("s3:*", "arn:aws:s3:::bucket/${aws:username}"), version=None), name="old"
    )
    assert not ask(old, "s3:GetObject", "arn:aws:s3:::bucket/maria", aws__username="maria").allowed
    assert ask(old, "s3:GetObject", "arn:aws:s3:::bucket/${aws:username}").allowed


def test_variables_in_condition_values() -> None:
    """IAM policy elements: Variables and tags: a variable in a condition's value, here the
    principal's own tag against the resource's."""
    policy = identity(
        allow(Condition={"StringEquals": {"aws:ResourceTag/owner": "${aws:PrincipalTag/name}"}})
    )
    same = {"aws:ResourceTag/owner": "maria", "aws:PrincipalTag/name": "maria"}
    assert ask(policy, "ec2:StopInstances", **same).allowed
    different = {"aws:ResourceTag/owner": "ana", "aws:PrincipalTag/name": "maria"}
    refused = ask(policy, "ec2:StopInstances", **different)
    assert "aws:ResourceTag/owner is ana, not maria" in refused.reason


QUEUE = f"arn:aws:sqs:us-east-1:{ACCOUNT}:q"


def _lets_in(principal: object) -> bool:
    policy = resource(allow("sqs:SendMessage", QUEUE, Principal=principal))
    return authorize(Request("sqs:SendMessage", QUEUE, WHO), resource_policy=policy).allowed


WHO = Principal.aws(f"arn:aws:sts::{ACCOUNT}:assumed-role/worker/session-1")


@pytest.mark.parametrize(
    ("principal", "allowed"),
    [
        ("*", True),
        ({"AWS": "*"}, True),
        ({"AWS": f"arn:aws:iam::{ACCOUNT}:role/worker"}, True),
        ({"AWS": [f"arn:aws:sts::{ACCOUNT}:assumed-role/worker/session-1"]}, True),
        ({"AWS": f"arn:aws:iam::{ACCOUNT}:role/other"}, False),
        # Naming the account delegates to the worker's own policies, which allow nothing here.
        ({"AWS": ACCOUNT}, False),
        ({"AWS": f"arn:aws:iam::{ACCOUNT}:root"}, False),
        # No partial wildcards in a principal.
        ({"AWS": f"arn:aws:iam::{ACCOUNT}:role/*"}, False),
        ({"Service": "events.amazonaws.com"}, False),
    ],
)
def test_the_principal_forms_a_resource_policy_may_name(principal: object, allowed: bool) -> None:
    """AWS JSON policy elements: Principal: everyone, an account, a role (and its
    sessions), a service; a wildcard only alone."""
    assert _lets_in(principal) is allowed


def test_not_principal_with_deny_excludes_a_role_only_with_its_account() -> None:
    """AWS JSON policy elements: NotPrincipal, "Key points": AWS checks the account, then
    the role, then the session, so the element must name the role's account too; naming the
    role alone still denies it."""

    def policy(*excluded: str) -> Policy:
        return resource(
            allow("sqs:SendMessage", QUEUE, Principal="*"),
            {
                "Effect": "Deny",
                "NotPrincipal": {"AWS": list(excluded)},
                "Action": "sqs:*",
                "Resource": QUEUE,
            },
        )

    role = f"arn:aws:iam::{ACCOUNT}:role/worker"
    both = policy(role, f"arn:aws:iam::{ACCOUNT}:root")
    assert authorize(Request("sqs:SendMessage", QUEUE, WHO), resource_policy=both).allowed
    role_only = authorize(Request("sqs:SendMessage", QUEUE, WHO), resource_policy=policy(role))
    assert role_only.reason == "an explicit Deny in resource policy (statement 1)"
    stranger = Principal.aws(f"arn:aws:iam::{ACCOUNT}:role/stranger")
    assert not authorize(Request("sqs:SendMessage", QUEUE, stranger), resource_policy=both).allowed
    events = Principal.service("events.amazonaws.com")
    assert not authorize(Request("sqs:SendMessage", QUEUE, events), resource_policy=both).allowed


def test_a_service_principal_matches_without_regard_to_case() -> None:
    policy = resource(
        allow("sqs:SendMessage", QUEUE, Principal={"Service": "Events.AmazonAWS.com"})
    )
    events = Principal.service("events.amazonaws.com")
    assert authorize(Request("sqs:SendMessage", QUEUE, events), resource_policy=policy).allowed


def test_an_aws_principal_is_an_account_or_an_iam_or_sts_arn() -> None:
    assert Principal.aws(ACCOUNT).name == f"arn:aws:iam::{ACCOUNT}:root"
    assert WHO.role_arn == f"arn:aws:iam::{ACCOUNT}:role/worker"
    with pytest.raises(ValueError, match="an AWS principal is an account id or an IAM or STS ARN"):
        Principal.aws("worker")
