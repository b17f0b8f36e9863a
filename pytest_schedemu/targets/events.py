"""Identity values and payload text of one occurrence (reference §5.4, §5.6 to §5.8).

Everything here is a pure function of its arguments: the same schedule, nominal time and
seed give the same ids, offsets and payloads in every run.
"""

from __future__ import annotations

import hashlib
import uuid
from json.encoder import encode_basestring

from pytest_schedemu.formats.times import Moment, ztime

SCHEDULE_ARN = "<aws.scheduler.schedule-arn>"
SCHEDULED_TIME = "<aws.scheduler.scheduled-time>"
EXECUTION_ID = "<aws.scheduler.execution-id>"
ATTEMPT_NUMBER = "<aws.scheduler.attempt-number>"
_PLACEHOLDER_PREFIX = "<aws.scheduler."


def event_id(schedule_arn: str, incarnation: int, t: Moment, fired: int = 0) -> str:
    """The id shared by every attempt of the occurrence at ``t`` of the incarnation
    ``incarnation`` (its creation sequence number) of ``schedule_arn``; ``fired`` is 0 for
    an occurrence of the schedule's expression, n for the n-th a test fired by hand."""
    # The ARN alone would give a schedule deleted and created again under the same name the
    # ids of its predecessor's occurrences; in AWS every invocation has ids of its own.
    name = f"{schedule_arn}#{incarnation}@{ztime(t)}"
    # A fired occurrence may stand at the very instant of a scheduled one (or of another
    # fired one): the count keeps their ids apart, and leaves the scheduled ids as they were.
    if fired:
        name += f"!fired-{fired}"
    return str(uuid.uuid5(uuid.NAMESPACE_URL, name))


def execution_id(seed: int, event_id: str, attempt_number: int) -> str:
    """The 16-hex-digit id of one attempt."""
    return hashlib.sha256(f"{seed}|{event_id}|{attempt_number}".encode()).hexdigest()[:16]


def flexible_offset(seed: int, schedule_arn: str, t: Moment, window_minutes: int) -> int:
    """Whole seconds in ``[0, 60 * window_minutes)`` from ``t`` to the first attempt."""
    digest = hashlib.sha256(f"{seed}|{schedule_arn}|{ztime(t)}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % (window_minutes * 60)


def default_event(
    event_id: str, scheduled_time: Moment, *, account: str, region: str, schedule_arn: str
) -> str:
    """The payload of a target without Input, as compact JSON in AWS's key order."""
    # The id and the Z-time never need escaping; the other three are quoted like json.dumps.
    return (
        f'{{"version":"0","id":"{event_id}","detail-type":"Scheduled Event",'
        f'"source":"aws.scheduler","account":{encode_basestring(account)},'
        f'"time":"{ztime(scheduled_time)}","region":{encode_basestring(region)},'
        f'"resources":[{encode_basestring(schedule_arn)}],"detail":"{{}}"}}'
    )


def substitute(
    input_text: str,
    schedule_arn: str,
    scheduled_time: Moment,
    execution_id: str,
    attempt_number: int,
) -> str:
    """``input_text`` with the four context attributes replaced, and nothing else touched."""
    if _PLACEHOLDER_PREFIX not in input_text:
        return input_text
    # Replacing one placeholder after another equals a simultaneous replacement because no
    # value (a schedule ARN, a Z-time, hex digits, decimal digits) can contain "<".
    text = input_text.replace(SCHEDULE_ARN, schedule_arn)
    if SCHEDULED_TIME in text:
        text = text.replace(SCHEDULED_TIME, ztime(scheduled_time))
    return text.replace(EXECUTION_ID, execution_id).replace(ATTEMPT_NUMBER, str(attempt_number))
