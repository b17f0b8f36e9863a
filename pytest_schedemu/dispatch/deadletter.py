"""The dead-letter SQS message of an occurrence that ended failed (§6.5)."""

from __future__ import annotations

from dataclasses import dataclass

from pytest_schedemu.times import Moment, ztime

#: SQS's limit for one message: the UTF-8 body plus every attribute's name, type and value.
MAX_MESSAGE_BYTES = 262_144

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
) -> DeadLetterMessage:
    """The message for the last attempt's request text ``body`` and the facts of its failure.

    ``exhausted_condition`` is ``MaximumRetryAttempts`` or ``MaximumEventAgeInSeconds`` when
    retryable failures ran out, and None when the last failure was permanent.
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
    if len(encoded) + _attributes_size(attributes) <= MAX_MESSAGE_BYTES:
        return DeadLetterMessage(body, attributes)
    attributes["IS_PAYLOAD_TRUNCATED"] = "true"
    room = max(0, MAX_MESSAGE_BYTES - _attributes_size(attributes))
    # Back off over UTF-8 continuation bytes (0b10xxxxxx) so no character is split.
    while room < len(encoded) and encoded[room] & 0xC0 == 0x80:
        room -= 1
    return DeadLetterMessage(encoded[:room].decode("utf-8", "surrogatepass"), attributes)
