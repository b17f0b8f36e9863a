"""Conditions as the IAM User Guide's pages "IAM JSON policy elements: Condition operators",
"...: Condition" and "Set operators for multivalued context keys" describe them, one family
of operators at a time, with the examples those pages give."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from .documents import allow, ask, identity, when

ACCOUNT = "123456789012"


def test_string_equals_is_case_sensitive_and_its_key_is_not() -> None:
    """Condition operators, "String condition operators": StringEquals on
    ``aws:PrincipalTag/job-category``; condition keys are case-insensitive, values not."""
    policy = identity(when("StringEquals", "aws:PrincipalTag/job-category", "iamuser-admin"))
    assert ask(
        policy, "iam:CreateAccessKey", **{"AWS:principaltag/JOB-category": "iamuser-admin"}
    ).allowed
    refused = ask(
        policy, "iam:CreateAccessKey", **{"aws:PrincipalTag/job-category": "IAMUSER-ADMIN"}
    )
    assert refused.reason == (
        "condition StringEquals aws:PrincipalTag/job-category is IAMUSER-ADMIN, "
        "not iamuser-admin (identity, statement 0)"
    )
    absent = ask(policy, "iam:CreateAccessKey")
    assert "aws:PrincipalTag/job-category is absent, not iamuser-admin" in absent.reason


def test_string_equals_ignore_case_and_its_negation() -> None:
    """Condition operators, "String condition operators": StringEqualsIgnoreCase,
    StringNotEqualsIgnoreCase."""
    same = identity(when("StringEqualsIgnoreCase", "aws:PrincipalTag/team", "Billing"))
    assert ask(same, "s3:GetObject", **{"aws:PrincipalTag/team": "bILLING"}).allowed
    assert not ask(same, "s3:GetObject", **{"aws:PrincipalTag/team": "Billings"}).allowed
    not_same = identity(when("StringNotEqualsIgnoreCase", "aws:PrincipalTag/team", "Billing"))
    refused = ask(not_same, "s3:GetObject", **{"aws:PrincipalTag/team": "BILLING"})
    assert refused.reason.startswith(
        "condition StringNotEqualsIgnoreCase aws:PrincipalTag/team is BILLING, "
        "not anything but Billing"
    )
    assert ask(not_same, "s3:GetObject", **{"aws:PrincipalTag/team": "sales"}).allowed


def test_string_like_matches_wildcards_anywhere_and_not_like_refuses_them() -> None:
    """Condition operators, "String condition operators": StringLike with ``*`` and ``?``
    anywhere in the value (the guide's ``s3:prefix`` example with ``home/``)."""
    like = identity(when("StringLike", "s3:prefix", ["", "home/", "home/${aws:username}/*"]))
    assert ask(like, "s3:ListBucket", s3__prefix="home/", aws__username="maria").allowed
    assert ask(like, "s3:ListBucket", s3__prefix="home/maria/x/y", aws__username="maria").allowed
    assert not ask(like, "s3:ListBucket", s3__prefix="home/ana/x", aws__username="maria").allowed
    single = identity(when("StringLike", "aws:PrincipalTag/code", "a?c"))
    assert ask(single, "s3:GetObject", **{"aws:PrincipalTag/code": "abc"}).allowed
    assert not ask(single, "s3:GetObject", **{"aws:PrincipalTag/code": "abbc"}).allowed
    not_like = identity(when("StringNotLike", "aws:PrincipalTag/code", "temp-*"))
    assert not ask(not_like, "s3:GetObject", **{"aws:PrincipalTag/code": "temp-1"}).allowed
    assert ask(not_like, "s3:GetObject", **{"aws:PrincipalTag/code": "prod-1"}).allowed


def test_a_negated_operator_holds_when_the_key_is_absent() -> None:
    """Condition operators ("Important"): a key absent from the request context fails a
    condition, except that one which requires it not to match (StringNotLike, ArnNotLike)
    then holds."""
    policy = identity(when("StringNotEquals", "aws:SourceAccount", ACCOUNT))
    assert ask(policy, "sqs:SendMessage").allowed
    arn_not_like = identity(when("ArnNotLike", "aws:SourceArn", "arn:aws:events:*:*:rule/x"))
    assert ask(arn_not_like, "sqs:SendMessage").allowed
    positive = identity(when("StringEquals", "aws:SourceAccount", ACCOUNT))
    assert not ask(positive, "sqs:SendMessage").allowed


@pytest.mark.parametrize(
    ("operator", "given", "allowed"),
    [
        ("NumericEquals", "10", True),
        ("NumericEquals", "10.0", True),
        ("NumericNotEquals", "10", False),
        ("NumericLessThan", "9", True),
        ("NumericLessThan", "10", False),
        ("NumericLessThanEquals", "10", True),
        ("NumericGreaterThan", "11", True),
        ("NumericGreaterThan", "10", False),
        ("NumericGreaterThanEquals", "10", True),
        ("NumericLessThanEquals", "ten", False),
    ],
)
def test_numeric_operators_compare_numbers(operator: str, given: str, allowed: bool) -> None:
    """Condition operators, "Numeric condition operators": the guide's ``s3:max-keys``
    example, NumericLessThanEquals 10; a value that is not a number meets nothing."""
    policy = identity(when(operator, "s3:max-keys", "10"))
    assert ask(policy, "s3:ListBucket", **{"s3:max-keys": given}).allowed is allowed


def test_numeric_operator_example_from_the_guide() -> None:
    """Condition operators, "Numeric condition operators": at most 10 objects a list."""
    policy = identity(when("NumericLessThanEquals", "s3:max-keys", "10"))
    assert ask(policy, "s3:ListBucket", **{"s3:max-keys": 10}).allowed
    refused = ask(policy, "s3:ListBucket", **{"s3:max-keys": 11})
    assert refused.reason.startswith("condition NumericLessThanEquals s3:max-keys is 11, not 10")


@pytest.mark.parametrize(
    ("operator", "issued", "allowed"),
    [
        ("DateGreaterThan", "2020-01-01T00:00:02Z", True),
        ("DateGreaterThan", "2020-01-01T00:00:01Z", False),
        ("DateGreaterThanEquals", "2020-01-01T00:00:01Z", True),
        ("DateLessThan", "2019-12-31T23:59:59Z", True),
        ("DateLessThanEquals", "2020-01-01T00:00:01+00:00", True),
        ("DateEquals", "1577836801", True),
        ("DateNotEquals", "2020-01-01T00:00:01Z", False),
        ("DateEquals", "yesterday", False),
    ],
)
def test_date_operators_compare_instants(operator: str, issued: str, allowed: bool) -> None:
    """Condition operators, "Date condition operators": ``aws:TokenIssueTime`` against
    ``2020-01-01T00:00:01Z``; values are ISO 8601 times or epoch seconds."""
    policy = identity(when(operator, "aws:TokenIssueTime", "2020-01-01T00:00:01Z"))
    assert ask(policy, "s3:GetObject", aws__TokenIssueTime=issued).allowed is allowed


def test_a_date_in_the_context_may_be_a_datetime() -> None:
    """Condition operators, "Date condition operators": ``aws:CurrentTime`` before a date."""
    policy = identity(when("DateLessThan", "aws:CurrentTime", "2027-01-01"))
    now = datetime(2026, 12, 7, 14, 30, tzinfo=timezone.utc)
    assert ask(policy, "s3:GetObject", aws__CurrentTime=now).allowed
    later = datetime(2027, 1, 2, tzinfo=timezone.utc)
    assert not ask(policy, "s3:GetObject", aws__CurrentTime=later).allowed


def test_bool_matches_true_or_false_and_a_missing_key_fails_it() -> None:
    """Condition operators, "Boolean condition operators": ``aws:SecureTransport`` must be
    true; the guide notes an absent key fails the condition."""
    policy = identity(when("Bool", "aws:SecureTransport", "true"))
    assert ask(policy, "s3:GetObject", aws__SecureTransport=True).allowed
    assert ask(policy, "s3:GetObject", aws__SecureTransport="TRUE").allowed
    assert not ask(policy, "s3:GetObject", aws__SecureTransport=False).allowed
    assert not ask(policy, "s3:GetObject").allowed


def test_binary_equals_compares_the_decoded_bytes() -> None:
    """Condition operators, "Binary condition operators": the policy's base-64 value
    ``QmluYXJ5VmFsdWVJbkJhc2U2NA==`` against the key's bytes."""
    policy = identity(when("BinaryEquals", "key", "QmluYXJ5VmFsdWVJbkJhc2U2NA=="))
    assert ask(policy, "s3:GetObject", key=b"BinaryValueInBase64").allowed
    assert not ask(policy, "s3:GetObject", key=b"OtherValue").allowed


def test_ip_address_matches_a_cidr_range_and_not_ip_address_the_rest() -> None:
    """Condition operators, "IP address condition operators": the guide's
    ``203.0.113.0/24`` range and an IPv6 range ``2001:DB8:1234:5678::/64``."""
    policy = identity(
        when("IpAddress", "aws:SourceIp", ["203.0.113.0/24", "2001:DB8:1234:5678::/64"])
    )
    assert ask(policy, "s3:GetObject", aws__SourceIp="203.0.113.77").allowed
    assert ask(policy, "s3:GetObject", aws__SourceIp="2001:db8:1234:5678::1").allowed
    assert not ask(policy, "s3:GetObject", aws__SourceIp="198.51.100.1").allowed
    assert not ask(policy, "s3:GetObject", aws__SourceIp="not an address").allowed
    outside = identity(when("NotIpAddress", "aws:SourceIp", "203.0.113.0/24"))
    assert ask(outside, "s3:GetObject", aws__SourceIp="198.51.100.1").allowed
    assert not ask(outside, "s3:GetObject", aws__SourceIp="203.0.113.1").allowed


def test_arn_like_matches_each_of_the_six_parts_on_its_own() -> None:
    """Condition operators, "Amazon Resource Name (ARN) condition operators": each of the six
    colon-delimited parts is checked separately, with wildcards within a part; the guide's
    example lets an SNS topic send to a queue (``aws:SourceArn``)."""
    policy = identity(when("ArnLike", "aws:SourceArn", "arn:aws:sns:*:123456789012:TOPIC-*"))
    assert ask(
        policy, "sqs:SendMessage", aws__SourceArn="arn:aws:sns:us-east-2:123456789012:TOPIC-ID"
    ).allowed
    assert not ask(
        policy, "sqs:SendMessage", aws__SourceArn="arn:aws:sns:us-east-2:999999999999:TOPIC-ID"
    ).allowed
    # A wildcard stays within its part: the region's * does not swallow the account.
    spanning = identity(when("ArnLike", "aws:SourceArn", "arn:aws:sns:*:TOPIC-ID"))
    assert not ask(
        spanning, "sqs:SendMessage", aws__SourceArn="arn:aws:sns:us-east-2:123456789012:TOPIC-ID"
    ).allowed
    # The sixth part is everything after the fifth colon, colons and all.
    tail = identity(when("ArnEquals", "aws:SourceArn", "arn:aws:logs:us-east-1:1:log-group:*"))
    assert ask(
        tail,
        "logs:PutLogEvents",
        aws__SourceArn="arn:aws:logs:us-east-1:1:log-group:g:log-stream:s",
    ).allowed
    not_like = identity(when("ArnNotLike", "aws:SourceArn", "arn:aws:sns:*:123456789012:*"))
    assert not ask(
        not_like, "sqs:SendMessage", aws__SourceArn="arn:aws:sns:eu-west-1:123456789012:x"
    ).allowed


def test_null_checks_whether_the_key_is_present() -> None:
    """Condition operators, "Condition operator to check existence of condition keys":
    ``"Null": {"aws:TokenIssueTime": "true"}`` holds when the key is absent."""
    absent = identity(when("Null", "aws:TokenIssueTime", "true"))
    assert ask(absent, "ec2:RunInstances").allowed
    refused = ask(absent, "ec2:RunInstances", aws__TokenIssueTime="2026-01-01T00:00:00Z")
    assert refused.reason.startswith(
        "condition Null aws:TokenIssueTime is 2026-01-01T00:00:00Z, not absent"
    )
    present = identity(when("Null", "aws:TokenIssueTime", False))
    assert not ask(present, "ec2:RunInstances").allowed


def test_if_exists_holds_when_the_key_is_absent_and_checks_it_when_present() -> None:
    """Condition operators, "...IfExists condition operators": the guide's
    ``StringLikeIfExists`` on ``ec2:InstanceType`` (t1.*, t2.*, m3.*)."""
    policy = identity(when("StringLikeIfExists", "ec2:InstanceType", ["t1.*", "t2.*", "m3.*"]))
    assert ask(policy, "ec2:CreateTags").allowed
    assert ask(policy, "ec2:RunInstances", ec2__InstanceType="t2.micro").allowed
    refused = ask(policy, "ec2:RunInstances", ec2__InstanceType="c5.large")
    assert refused.reason.startswith(
        "condition StringLikeIfExists ec2:InstanceType is c5.large, not t1.* or t2.* or m3.*"
    )


def test_for_all_values_holds_for_an_empty_or_missing_set() -> None:
    """Set operators for multivalued context keys: ForAllValues returns true when the key is
    absent or its set empty (the guide warns of this with Allow); every value in the request
    must be among the policy's."""
    policy = identity(
        when("ForAllValues:StringEquals", "aws:TagKeys", ["environment", "cost-center"])
    )
    assert ask(policy, "ec2:CreateTags").allowed
    assert ask(policy, "ec2:CreateTags", aws__TagKeys=[]).allowed
    assert ask(policy, "ec2:CreateTags", aws__TagKeys=["environment"]).allowed
    refused = ask(policy, "ec2:CreateTags", aws__TagKeys=["environment", "owner"])
    assert refused.reason.startswith(
        "condition ForAllValues:StringEquals aws:TagKeys is [environment, owner], "
        "not environment or cost-center"
    )


def test_for_any_value_needs_one_value_and_fails_without_any() -> None:
    """Set operators for multivalued context keys: ForAnyValue returns true when at least one
    request value matches, false when the key is absent or empty."""
    policy = identity(when("ForAnyValue:StringEquals", "aws:TagKeys", ["environment"]))
    assert ask(policy, "ec2:CreateTags", aws__TagKeys=["owner", "environment"]).allowed
    assert not ask(policy, "ec2:CreateTags", aws__TagKeys=["owner"]).allowed
    absent = ask(policy, "ec2:CreateTags")
    assert "aws:TagKeys is absent, not one or more of environment" in absent.reason
    assert not ask(policy, "ec2:CreateTags", aws__TagKeys=[]).allowed


def test_for_all_values_with_a_negated_operator_refuses_any_listed_value() -> None:
    """Set operators for multivalued context keys: ``ForAllValues:StringNotLike`` holds when
    no request value matches any of the policy's patterns."""
    policy = identity(when("ForAllValues:StringNotLike", "aws:TagKeys", ["aws:*", "secret*"]))
    assert ask(policy, "ec2:CreateTags", aws__TagKeys=["team", "owner"]).allowed
    assert not ask(policy, "ec2:CreateTags", aws__TagKeys=["team", "secret-level"]).allowed


def test_several_keys_must_all_hold_and_several_values_any_one() -> None:
    """IAM JSON policy elements: Condition, "The condition block": conditions of different
    operators and keys are ANDed, a key's values ORed."""
    policy = identity(
        allow(
            Condition={
                "StringEquals": {
                    "aws:PrincipalTag/department": ["finance", "hr"],
                    "aws:PrincipalTag/role": "audit",
                },
                "Bool": {"aws:SecureTransport": "true"},
            }
        )
    )
    tags = {"aws:PrincipalTag/department": "hr", "aws:PrincipalTag/role": "audit"}
    assert ask(policy, "s3:GetObject", **tags, aws__SecureTransport=True).allowed
    assert not ask(policy, "s3:GetObject", **tags, aws__SecureTransport=False).allowed
    wrong_role = {**tags, "aws:PrincipalTag/role": "admin"}
    assert not ask(policy, "s3:GetObject", **wrong_role, aws__SecureTransport=True).allowed
    wrong_department = {**tags, "aws:PrincipalTag/department": "sales"}
    assert not ask(policy, "s3:GetObject", **wrong_department, aws__SecureTransport=True).allowed
