"""The names of EventBridge's JSON 1.1 protocol as the emulator serves it: what a request
carries, and which operations are served. Plain constants, which the interception reads on
every pytest run (``wire/intercept.py``) without importing the API."""

from __future__ import annotations

#: ``X-Amz-Target: AWSEvents.<Operation>``.
TARGET_PREFIX = "AWSEvents."
CONTENT_TYPE = "application/x-amz-json-1.1"
#: The service an EventBridge request is signed for.
SIGNING_NAME = "events"
#: The operations the emulator serves: the thirteen that make, read and change rules and
#: their targets. Every other ``AWSEvents`` operation (``PutEvents``, event buses, archives,
#: connections...) is refused by name (``events_app``), and the interception leaves it to
#: wherever it would have gone without the emulator.
RULE_OPERATIONS = frozenset(
    {
        "DeleteRule",
        "DescribeRule",
        "DisableRule",
        "EnableRule",
        "ListRuleNamesByTarget",
        "ListRules",
        "ListTagsForResource",
        "ListTargetsByRule",
        "PutRule",
        "PutTargets",
        "RemoveTargets",
        "TagResource",
        "UntagResource",
    }
)


def served_operations() -> str:
    """The served operations, for a message."""
    return ", ".join(sorted(RULE_OPERATIONS))
