"""Properties over drawn policies and requests: wildcards agree with a plain reference
matcher, a matching Deny always wins, and an identity decision is exactly "some Allow
matches and no Deny does"."""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from pytest_schedemu.iam import (
    EXPLICIT_DENY,
    Context,
    Request,
    evaluate_identity,
    parse_policy,
)
from pytest_schedemu.iam.patterns import FREE, RESOURCE, SEGMENT, compile_pattern

# ARN-safe text without colons, and without fnmatch's own brackets or a variable's ``${``.
_SAFE = st.text(alphabet="abc/-_.A", min_size=0, max_size=8)
_PATTERN = st.text(alphabet="abc/-_.A*?", min_size=0, max_size=8)
NOTHING: dict[str, tuple[str, ...]] = {}


@given(_PATTERN, _SAFE)
def test_a_resource_pattern_within_one_segment_is_a_plain_glob(pattern: str, value: str) -> None:
    compiled = compile_pattern(pattern, wildcard=RESOURCE)
    assert compiled.matches(value, NOTHING) == fnmatchcase(value, pattern)


@given(st.text(alphabet="abc:/*?", max_size=10), st.text(alphabet="abc:/", max_size=10))
def test_a_free_pattern_is_a_plain_glob_across_colons(pattern: str, value: str) -> None:
    compiled = compile_pattern(pattern, wildcard=FREE)
    assert compiled.matches(value, NOTHING) == fnmatchcase(value, pattern)


@given(st.text(alphabet="aBc:*?", max_size=8), st.text(alphabet="AbC:", max_size=8))
def test_an_action_pattern_ignores_case(pattern: str, value: str) -> None:
    compiled = compile_pattern(pattern, wildcard=FREE, ignore_case=True)
    assert compiled.matches(value.lower(), NOTHING) == fnmatchcase(value.lower(), pattern.lower())


_SEGMENTS = st.lists(_SAFE, min_size=6, max_size=6)
_SEGMENT_PATTERNS = st.lists(_PATTERN, min_size=6, max_size=6)


@given(_SEGMENT_PATTERNS, _SEGMENTS)
def test_an_arn_pattern_matches_each_of_the_six_parts_on_its_own(
    patterns: list[str], parts: list[str]
) -> None:
    compiled = compile_pattern(":".join(patterns), wildcard=SEGMENT)
    expected = all(fnmatchcase(part, pattern) for part, pattern in zip(parts, patterns))
    assert compiled.matches(":".join(parts), NOTHING) == expected


@given(_SEGMENT_PATTERNS, _SEGMENTS)
def test_a_resource_pattern_of_whole_segments_needs_each_segment_to_match(
    patterns: list[str], parts: list[str]
) -> None:
    """Where no segment's pattern ends in ``*`` (the one way to run across a colon), a
    resource matches exactly when every segment does."""
    patterns = [pattern.rstrip("*") for pattern in patterns]
    compiled = compile_pattern(":".join(patterns), wildcard=RESOURCE)
    expected = all(fnmatchcase(part, pattern) for part, pattern in zip(parts, patterns))
    assert compiled.matches(":".join(parts), NOTHING) == expected


_ACTIONS = ("sqs:SendMessage", "sqs:ReceiveMessage", "sns:Publish", "lambda:InvokeFunction")
_ACTION_PATTERNS = st.sampled_from(
    [*_ACTIONS, "sqs:*", "*", "sns:Pub*", "SQS:sendmessage", "lambda:?nvokeFunction"]
)
_RESOURCES = (
    "arn:aws:sqs:us-east-1:123456789012:orders",
    "arn:aws:sqs:us-east-1:123456789012:dlq",
    "arn:aws:sns:eu-west-1:123456789012:alerts",
)
_RESOURCE_PATTERNS = st.sampled_from(
    [
        *_RESOURCES,
        "*",
        "arn:aws:sqs:*",
        "arn:aws:sqs:us-east-1:123456789012:*",
        "arn:aws:*:*:*:*:a*",
    ]
)
_STATEMENTS = st.fixed_dictionaries(
    {
        "Effect": st.sampled_from(["Allow", "Deny"]),
        "Action": st.lists(_ACTION_PATTERNS, min_size=1, max_size=3),
        "Resource": st.lists(_RESOURCE_PATTERNS, min_size=1, max_size=3),
    }
)
_POLICIES = st.lists(st.lists(_STATEMENTS, min_size=1, max_size=4), min_size=1, max_size=3)


def _policies(documents: list[list[dict[str, Any]]]) -> list[Any]:
    return [
        parse_policy({"Version": "2012-10-17", "Statement": statements}, name=f"p{index}")
        for index, statements in enumerate(documents)
    ]


def _matches(statement: dict[str, Any], action: str, resource: str) -> bool:
    actions = any(fnmatchcase(action.lower(), pattern.lower()) for pattern in statement["Action"])
    resources = any(
        pattern == "*" or fnmatchcase(resource, pattern) for pattern in statement["Resource"]
    )
    return actions and resources


@given(_POLICIES, st.sampled_from(_ACTIONS), st.sampled_from(_RESOURCES))
def test_an_identity_decision_is_some_allow_and_no_deny(
    documents: list[list[dict[str, Any]]], action: str, resource: str
) -> None:
    statements = [statement for document in documents for statement in document]
    matching = [s["Effect"] for s in statements if _matches(s, action, resource)]
    decision = evaluate_identity(_policies(documents), Request(action, resource))
    assert decision.allowed == ("Allow" in matching and "Deny" not in matching)
    assert (decision.kind == EXPLICIT_DENY) == ("Deny" in matching)


@given(_POLICIES, st.sampled_from(_ACTIONS), st.sampled_from(_RESOURCES), st.integers(0, 3))
def test_a_matching_deny_always_wins(
    documents: list[list[dict[str, Any]]], action: str, resource: str, where: int
) -> None:
    denying = {"Sid": "Denied", "Effect": "Deny", "Action": action, "Resource": resource}
    target = documents[where % len(documents)]
    target.insert(where % (len(target) + 1), denying)
    everything = {"Effect": "Allow", "Action": "*", "Resource": "*"}
    documents[0].append(everything)
    decision = evaluate_identity(_policies(documents), Request(action, resource))
    assert not decision.allowed
    assert decision.kind == EXPLICIT_DENY
    assert decision.reason.startswith("an explicit Deny in p")


_KEYS = st.sampled_from(["aws:SourceAccount", "aws:SourceArn", "aws:TagKeys", "s3:prefix"])
_VALUES = st.one_of(st.text(max_size=5), st.lists(st.text(max_size=5), max_size=3))


@given(st.dictionaries(_KEYS, _VALUES, max_size=4), st.randoms())
def test_a_context_is_one_cache_key_whatever_the_order_and_case_of_its_keys(
    keys: dict[str, Any], random: Any
) -> None:
    shuffled = list(keys.items())
    random.shuffle(shuffled)
    upper = {key.upper(): value for key, value in shuffled}
    first, second = Context.of(keys), Context.of(upper)
    assert first == second
    assert hash(first) == hash(second)
    assert hash(Request("sqs:SendMessage", "*", context=first)) == hash(
        Request("sqs:SendMessage", "*", context=second)
    )
