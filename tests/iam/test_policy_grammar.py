"""Policy documents read as IAM reads them: the forms the grammar allows are accepted, and
anything it refuses is a ``PolicyError`` naming the policy, the statement and the element,
with the value shown."""

from __future__ import annotations

import json

import pytest

from pytest_schedemu.errors import SchedemuError
from pytest_schedemu.iam import PolicyError, parse_policy

from .documents import allow, document


def refusal(policy: object, kind: str = "identity") -> str:
    with pytest.raises(PolicyError) as caught:
        parse_policy(policy, name="MyPolicy", kind=kind)  # type: ignore[arg-type]
    return str(caught.value)


def test_json_text_and_its_parsed_object_give_equal_policies() -> None:
    """IAM JSON policy grammar: a policy is a JSON object; a single statement may stand
    without a list."""
    statement = {"Effect": "Allow", "Action": "sqs:SendMessage", "Resource": "*"}
    as_text = parse_policy(json.dumps(document(statement)), name="p")
    as_list = parse_policy(document(statement), name="p")
    as_object = parse_policy({"Version": "2012-10-17", "Statement": statement}, name="p")
    assert as_text == as_list == as_object
    assert hash(as_text) == hash(as_object)
    assert len(as_object.statements) == 1


def test_a_policy_error_is_a_value_error_of_the_emulator() -> None:
    error = PolicyError("x", policy="p")
    assert isinstance(error, ValueError)
    assert isinstance(error, SchedemuError)


@pytest.mark.parametrize(
    ("policy", "message"),
    [
        ("{not json", "policy MyPolicy: is not JSON"),
        ([], "policy MyPolicy: must be a JSON object, not []"),
        ({"Version": "2012-10-17"}, "policy MyPolicy, element Statement: is missing"),
        (
            {"Version": "2012-10-18", "Statement": []},
            "policy MyPolicy, element Version: is '2012-10-18'; a policy's version is "
            "2012-10-17 or 2008-10-17",
        ),
        (
            {"Statement": [], "Statment": []},
            "policy MyPolicy: has Statment; a policy has only Version, Id, Statement",
        ),
        (
            document({"Sid": "Send", "Effect": "allow", "Action": "sqs:*", "Resource": "*"}),
            "policy MyPolicy, statement Send, element Effect: must be Allow or Deny, not 'allow'",
        ),
        (
            document(allow(), {"Effect": "Allow", "Resource": "*"}),
            "policy MyPolicy, statement 1: has neither Action nor NotAction; it needs one",
        ),
        (
            document({"Effect": "Allow", "Action": "*", "NotAction": "s3:*", "Resource": "*"}),
            "policy MyPolicy, statement 0: has both Action and NotAction",
        ),
        (
            document(allow("SendMessage")),
            "policy MyPolicy, statement 0, element Action: 'SendMessage' is not service:action",
        ),
        (
            document(allow(["sqs:SendMessage", 7])),
            "policy MyPolicy, statement 0, element Action: must be a string or a list of strings",
        ),
        (
            document({"Effect": "Allow", "Action": "sqs:*"}),
            "policy MyPolicy, statement 0: has neither Resource nor NotResource",
        ),
        (
            document(allow(Principal="*")),
            "policy MyPolicy, statement 0, element Principal: is refused in an identity policy",
        ),
        (
            document(allow(Condition={"StringEqual": {"aws:SourceAccount": "1"}})),
            "policy MyPolicy, statement 0, element Condition: StringEqual is not a condition "
            "operator; did you mean StringEquals?",
        ),
        (
            document(allow(Condition={"ForSomeValues:StringEquals": {"k": "v"}})),
            "a set operator is ForAnyValue or ForAllValues, not 'ForSomeValues'",
        ),
        (
            document(allow(Condition={"NumericLessThan": {"s3:max-keys": "ten"}})),
            "element Condition: NumericLessThan s3:max-keys: 'ten' is not a number",
        ),
        (
            document(allow(Condition={"IpAddress": {"aws:SourceIp": "300.1.1.1/8"}})),
            "'300.1.1.1/8' is not an IP address or CIDR range",
        ),
        (
            document(allow(Condition={"Bool": {"aws:SecureTransport": "yes"}})),
            '\'yes\' is not "true" or "false"',
        ),
        (
            document(allow(Condition={"NullIfExists": {"k": "true"}})),
            "NullIfExists: Null takes neither IfExists nor a set operator",
        ),
        (
            document(allow(Condition={"StringEquals": {"k": {"nested": 1}}})),
            "StringEquals k must be a string, number or boolean, or a list of them",
        ),
        (
            document(allow(Sid="Same"), allow(Sid="Same")),
            "policy MyPolicy, element Sid: Same appears more than once",
        ),
        (
            document(allow(Resource2="x")),
            "statement 0: has Resource2; a statement has only Sid, Effect, Action",
        ),
    ],
)
def test_a_malformed_identity_policy_is_refused_naming_where(policy: object, message: str) -> None:
    """IAM JSON policy grammar and the element reference: what IAM refuses with
    MalformedPolicyDocument."""
    assert message in refusal(policy)


def test_not_principal_goes_only_with_deny_and_never_in_a_trust_policy() -> None:
    """AWS JSON policy elements: NotPrincipal: "NotPrincipal must be used with Effect: Deny"
    and it cannot be used "in an IAM role trust policy"."""
    everyone_but = {"AWS": "arn:aws:iam::123456789012:role/admin"}
    assert "element NotPrincipal: is only used with Deny" in refusal(
        document(
            {"Effect": "Allow", "NotPrincipal": everyone_but, "Action": "sqs:*", "Resource": "*"}
        ),
        "resource",
    )
    assert "element NotPrincipal: is refused in a trust policy" in refusal(
        document({"Effect": "Deny", "NotPrincipal": everyone_but, "Action": "sts:AssumeRole"}),
        "trust",
    )


def test_a_trust_policy_has_a_principal_and_no_resource() -> None:
    """IAM JSON policy elements: Principal (a role's trust policy names who may assume it;
    the resource is the role)."""
    assert "element Resource: is refused in a trust policy" in refusal(
        document(allow("sts:AssumeRole", Principal={"Service": "scheduler.amazonaws.com"})),
        "trust",
    )
    assert "has neither Principal nor NotPrincipal" in refusal(
        document({"Effect": "Allow", "Action": "sts:AssumeRole"}), "trust"
    )


@pytest.mark.parametrize(
    ("principal", "message"),
    [
        ("events.amazonaws.com", 'must be "*" or an object with AWS, Service'),
        ({"Services": "events.amazonaws.com"}, "names 'Services'; a principal is one of AWS"),
        ({"AWS": []}, "AWS must be a string or a list of strings, not []"),
        ({"Service": [""]}, "Service must be a string or a list of strings, not ''"),
    ],
)
def test_a_malformed_principal_is_refused(principal: object, message: str) -> None:
    """AWS JSON policy elements: Principal, the forms it takes."""
    policy = document(allow("sqs:SendMessage", "*", Principal=principal))
    assert message in refusal(policy, "resource")


def test_the_kind_of_a_policy_is_one_of_three() -> None:
    with pytest.raises(ValueError, match="one of identity, resource, trust, not 'role'"):
        parse_policy(document(allow()), name="p", kind="role")


def test_condition_operators_and_set_operators_are_read_without_regard_to_case() -> None:
    policy = parse_policy(
        document(allow(Condition={"forallvalues:stringequalsifexists": {"k": "v"}})), name="p"
    )
    (condition,) = policy.statements[0].conditions
    assert (condition.qualifier, condition.if_exists, condition.base.name) == (
        "ForAllValues",
        True,
        "StringEquals",
    )
