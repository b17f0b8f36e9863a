"""Whether a target service's error is retried (§5.12)."""

from __future__ import annotations

RETRYABLE_ERROR_CODES = frozenset(
    [
        "ThrottlingException",
        "Throttling",
        "TooManyRequestsException",
        "RequestLimitExceeded",
        "ProvisionedThroughputExceededException",
        "ServiceUnavailable",
        "ServiceUnavailableException",
        "InternalError",
        "InternalFailure",
        "InternalServerError",
        "KMSThrottlingException",
        "EC2ThrottledException",
        "SlowDown",
    ]
)


def classify_error(status: int | None, code: str | None) -> bool:
    """Whether a target service's error is retried.

    ``status`` None with ``code`` None means no response arrived at all (a connection error
    or a timeout). A code without a status is judged by the code alone.
    """
    if code in RETRYABLE_ERROR_CODES:
        return True
    if status is None:
        return code is None
    return status == 429 or 500 <= status <= 599
