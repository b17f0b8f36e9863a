"""The dead-letter SQS message of an occurrence that ended failed (§6.5).

A message may hold at most ``max_bytes`` (SQS's 1 MiB, or a queue's smaller maximum),
counting the body and every attribute. A larger one has its payload shortened where it sits
inside the body, so that the body is still the valid JSON request it was, only with less
payload; ``IS_PAYLOAD_TRUNCATED`` says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from pytest_schedemu.formats.times import Moment, ztime
from pytest_schedemu.settings.options import MAX_MESSAGE_BYTES

#: The body with the payload cut to its first ``n`` characters.
Shortened = Callable[[int], str]

_DATA_TYPE = "String"


@dataclass(frozen=True)
class DeadLetterMessage:
    body: str
    #: Attribute name -> value, in the order AWS lists them.
    attributes: dict[str, str]

    @property
    def truncated(self) -> bool:
        return self.attributes["IS_PAYLOAD_TRUNCATED"] == "true"

    @property
    def message_attributes(self) -> dict[str, dict[str, str]]:
        """The attributes as SendMessage takes them."""
        return {
            name: {"DataType": _DATA_TYPE, "StringValue": value}
            for name, value in self.attributes.items()
        }


def _utf8(text: str) -> bytes:
    # A lone surrogate (JSON allows "\ud800") is counted, not allowed to crash the send.
    return text.encode("utf-8", "surrogatepass")


def _attributes_size(attributes: dict[str, str]) -> int:
    return sum(
        len(_utf8(name)) + len(_DATA_TYPE) + len(_utf8(value)) for name, value in attributes.items()
    )


def build_dead_letter(
    *,
    body: str,
    error_code: str,
    error_message: str,
    execution_id: str,
    exhausted_condition: str | None,
    retry_attempts: int,
    scheduled_time: Moment,
    schedule_arn: str,
    target_arn: str,
    max_bytes: int = MAX_MESSAGE_BYTES,
    shortened: Shortened | None = None,
    payload_length: int = 0,
) -> DeadLetterMessage:
    """The message for the last attempt's request text ``body`` and the facts of its failure.

    ``exhausted_condition`` is ``MaximumRetryAttempts`` or ``MaximumEventAgeInSeconds`` when
    retryable failures ran out, and None when the last failure was permanent. A message
    over ``max_bytes`` keeps the longest body ``shortened`` gives for a payload of at most
    ``payload_length`` characters; without ``shortened`` the body itself is cut.
    """
    attributes = {
        "ERROR_CODE": error_code,
        # SQS rejects empty attribute values.
        "ERROR_MESSAGE": error_message or error_code,
        "EXECUTION_ID": execution_id,
    }
    if exhausted_condition is not None:
        attributes["EXHAUSTED_RETRY_CONDITION"] = exhausted_condition
    attributes.update(
        IS_PAYLOAD_TRUNCATED="false",
        RETRY_ATTEMPTS=str(retry_attempts),
        SCHEDULED_TIME=ztime(scheduled_time),
        SCHEDULE_ARN=schedule_arn,
        TARGET_ARN=target_arn,
    )
    encoded = _utf8(body)
    if len(encoded) + _attributes_size(attributes) <= max_bytes:
        return DeadLetterMessage(body, attributes)
    attributes["IS_PAYLOAD_TRUNCATED"] = "true"
    room = max(0, max_bytes - _attributes_size(attributes))
    if shortened is not None:
        return DeadLetterMessage(_longest_fitting(shortened, payload_length, room), attributes)
    # Back off over UTF-8 continuation bytes (0b10xxxxxx) so no character is split.
    while room < len(encoded) and encoded[room] & 0xC0 == 0x80:
        room -= 1
    return DeadLetterMessage(encoded[:room].decode("utf-8", "surrogatepass"), attributes)


def _longest_fitting(shortened: Shortened, length: int, room: int) -> str:
    """The body with the longest payload prefix whose UTF-8 fits in ``room`` bytes."""
    low, high = 0, length
    while low < high:
        # Bodies grow with the payload they keep, so the largest fitting prefix is found by
        # bisection: about twenty renderings for a megabyte.
        middle = (low + high + 1) // 2
        if len(_utf8(shortened(middle))) <= room:
            low = middle
        else:
            high = middle - 1
    return shortened(low)
