"""The dead letter of a rule target's occurrence that ended failed, as EventBridge sends it.

EventBridge puts the event in the body, as the target would have received it (its Input,
InputPath or InputTransformer applied), and names the failure in message attributes:
``RULE_ARN``, ``TARGET_ARN``, ``ERROR_CODE``, ``ERROR_MESSAGE``,
``EXHAUSTED_RETRY_CONDITION`` (only when retryable failures ran out, as for Scheduler's)
and ``RETRY_ATTEMPTS`` (AWS's "Using dead-letter queues to process undelivered events"
page, https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-rule-dlq.html). Its
``ERROR_CODE`` is one of the kinds of failure that page lists (``NO_RESOURCE``,
``NO_PERMISSIONS``, ``THROTTLING``, ``TIMEOUT``…), not the target service's own code, which
``ERROR_MESSAGE`` keeps beside its message.

An event is at most 256 KB and an SQS message 1 MiB, so a rule's dead letter is never
shortened.
"""

from __future__ import annotations

from pytest_schedemu.delivery.backends import ACCESS_DENIED_MESSAGE, DeadLetterRequest
from pytest_schedemu.dispatch.deadletter import DeadLetterMessage
from pytest_schedemu.formats import jsontext
from pytest_schedemu.formats.times import Moment
from pytest_schedemu.records import Attempt
from pytest_schedemu.targets import KINDS, RETRYABLE_ERROR_CODES, queue_url
from pytest_schedemu.targets.rule_plan import RuleTargetPlan

#: The ERROR_CODE values AWS lists for a rule's dead letters.
EVENTBRIDGE_ERROR_CODES = frozenset(
    {
        "CONNECTION_FAILURE",
        "CROSS_ACCOUNT_INGESTION_FAILED",
        "CROSS_REGION_INGESTION_FAILED",
        "ERROR_FROM_TARGET",
        "EVENTS_IN_BATCH_REQUEST_REJECTED",
        "FAILED_TO_ASSUME_ROLE",
        "INTERNAL_ERROR",
        "INVALID_JSON",
        "INVALID_PARAMETER",
        "NO_PERMISSIONS",
        "NO_RESOURCE",
        "RESOURCE_ALREADY_EXISTS",
        "RESOURCE_LIMIT_EXCEEDED",
        "RESOURCE_MODIFICATION_COLLISION",
        "SDK_CLIENT_ERROR",
        "THIRD_ACCOUNT_HOP_DETECTED",
        "THIRD_REGION_HOP_DETECTED",
        "THROTTLING",
        "TIMEOUT",
        "TRANSIENT_ASSUME_ROLE",
        "UNKNOWN",
    }
)

_NO_RESOURCE = frozenset(
    {spec.missing_error[0] for spec in KINDS.values() if spec.missing_error is not None}
    | {"NotFoundException", "ResourceNotFound", "NoSuchEntity"}
)
_NO_PERMISSIONS = frozenset(
    {
        "AccessDeniedException",
        "AccessDenied",
        "AuthorizationError",
        "AuthorizationErrorException",
        "UnauthorizedOperation",
        "KMSAccessDeniedException",
    }
)
_THROTTLING = RETRYABLE_ERROR_CODES & {
    "ThrottlingException",
    "Throttling",
    "TooManyRequestsException",
    "RequestLimitExceeded",
    "ProvisionedThroughputExceededException",
    "KMSThrottlingException",
    "EC2ThrottledException",
    "SlowDown",
}
_OTHERS = {
    "DeliveryTimeout": "TIMEOUT",  # a real-time attempt past delivery_timeout
    "AWS.Scheduler.InternalServerError": "INTERNAL_ERROR",  # the forwarding adapter failed
}


def error_kind(code: str | None, message: str | None) -> str:
    """EventBridge's ERROR_CODE for an attempt that failed with ``code`` and ``message``."""
    if code is None:
        return "UNKNOWN"
    if code in EVENTBRIDGE_ERROR_CODES:
        return code
    if code == "AccessDeniedException" and message == ACCESS_DENIED_MESSAGE:
        return "FAILED_TO_ASSUME_ROLE"  # the role a test denied (``deny_role``)
    if code in _NO_RESOURCE:
        return "NO_RESOURCE"
    if code in _NO_PERMISSIONS:
        return "NO_PERMISSIONS"
    if code in _THROTTLING:
        return "THROTTLING"
    return _OTHERS.get(code, "ERROR_FROM_TARGET")


def rule_dead_letter(
    nominal: Moment,
    event_id: str,
    target: RuleTargetPlan,
    attempt: Attempt,
    condition: str,
    queue_arn: str,
    url_template: str,
) -> DeadLetterRequest:
    """The dead letter of the occurrence at ``nominal`` whose event is ``event_id``, ended
    by ``attempt`` for ``condition`` (``permanent``, ``MaximumRetryAttempts`` or
    ``MaximumEventAgeInSeconds``)."""
    # The attempt rendered what it sent (``Attempt.input``); a target whose request carries
    # no payload has none, and its letter still holds the event.
    body = attempt.input
    if body is None:
        body = target.payload(nominal, event_id, attempt.execution_id, attempt.attempt_number)
    if target.broken is not None:
        # Nothing could be built for the target: the event it was matched with.
        body = jsontext.dumps_compact(target.event(nominal, event_id))
    code = attempt.error_code or ""
    attributes = {
        "RULE_ARN": target.rule_arn,
        "TARGET_ARN": attempt.target_arn,
        "ERROR_CODE": error_kind(attempt.error_code, attempt.error_message),
        # SQS refuses an empty attribute value: the code stands in for a missing message.
        "ERROR_MESSAGE": f"{code}: {attempt.error_message}" if attempt.error_message else code,
    }
    if condition != "permanent":
        attributes["EXHAUSTED_RETRY_CONDITION"] = condition
    attributes["RETRY_ATTEMPTS"] = str(attempt.attempt_number - 1)
    message = DeadLetterMessage(body, attributes)
    return DeadLetterRequest(
        queue_arn=queue_arn,
        queue_url=queue_url(queue_arn, url_template) or "",
        body=message.body,
        message_attributes=message.message_attributes,
    )
