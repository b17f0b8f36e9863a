"""Dead letters over the queue's size limit keep a valid body, with less payload (§6.5)."""

from __future__ import annotations

import json
from typing import Any

from pytest_schedemu import Emulator
from tests.constants import DLQ, QUEUE
from tests.helpers import create

AT = "at(2026-03-01T10:00:00)"
UNIVERSAL = "arn:aws:scheduler:::aws-sdk:sqs:sendMessage"


def dead_letter_of(emu: Emulator, client: Any, target: dict[str, Any]) -> Any:
    emu.target(target.get("Arn", QUEUE)).fail(error_code="ValidationException", retryable=False)
    create(client, expression=AT, target={"DeadLetterConfig": {"Arn": DLQ}, **target})
    emu.clock.tick()
    (letter,) = emu.assert_dead_lettered(DLQ, count=1)
    return letter


def size(letter: Any) -> int:
    attributes = sum(
        len(name.encode()) + len("String") + len(value.encode())
        for name, value in letter.attributes.items()
    )
    return len(letter.body.encode()) + attributes


def test_a_small_message_is_sent_whole(emu: Emulator, client: Any) -> None:
    letter = dead_letter_of(emu, client, {"Input": "x" * 5000})
    assert letter.attributes["IS_PAYLOAD_TRUNCATED"] == "false"
    assert json.loads(letter.body)["MessageBody"] == "x" * 5000


def test_over_the_limit_the_payload_is_cut_inside_a_valid_body(emu: Emulator, client: Any) -> None:
    emu.reset(max_dead_letter_bytes=2048)
    letter = dead_letter_of(emu, client, {"Input": "é" * 5000})
    assert letter.attributes["IS_PAYLOAD_TRUNCATED"] == "true"
    body = json.loads(letter.body)
    assert body["QueueUrl"].endswith("/123456789012/queue")
    assert 0 < len(body["MessageBody"]) < 5000
    assert set(body["MessageBody"]) == {"é"}
    assert 2048 - 2 <= size(letter) <= 2048


def test_a_universal_target_keeps_its_input_valid_json(emu: Emulator, client: Any) -> None:
    emu.reset(max_dead_letter_bytes=1536)
    text = json.dumps({"QueueUrl": "https://q", "MessageBody": "m" * 4000})
    letter = dead_letter_of(emu, client, {"Arn": UNIVERSAL, "Input": text})
    assert letter.attributes["IS_PAYLOAD_TRUNCATED"] == "true"
    body = json.loads(letter.body)
    assert body["QueueUrl"] == "https://q"
    assert 0 < len(body["MessageBody"]) < 4000
    assert size(letter) <= 1536


def test_the_limit_returns_to_the_default_after_a_reset(emu: Emulator, client: Any) -> None:
    emu.reset(max_dead_letter_bytes=2048)
    emu.reset()
    assert emu.settings.max_dead_letter_bytes == 1_048_576
