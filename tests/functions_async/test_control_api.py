"""The control API's attempts carry the runs of a stack's own function their event caused,
as the dashboard shows them beneath the attempt."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from pytest_schedemu import Emulator
from tests.constants import FUNCTION
from tests.functions_async.doubles import Handlers, function
from tests.helpers import create


def listed(emu: Emulator, path: str) -> Any:
    with urllib.request.urlopen(f"{emu.endpoint_url}/_schedemu/{path}") as answer:
        return json.loads(answer.read())


def declined_once(event: Any, number: int) -> Any:
    if number == 1:
        raise ValueError("card declined")
    return {"charged": event["order"]}


def test_an_attempt_lists_each_run_its_event_caused(
    emu: Emulator, client: Any, handlers: Handlers
) -> None:
    handlers.behaviours["remind"] = declined_once
    emu.functions.add(function())
    create(
        client, "once", "at(2026-03-01T10:30:00)", target={"Arn": FUNCTION, "Input": '{"order": 7}'}
    )
    emu.clock.advance(hours=1)

    (attempt,) = listed(emu, "attempts")["attempts"]
    runs = attempt["invocations"]
    shown = [
        (r["attempt"], r["invoked_at"], r["error_type"], r["error_message"], r["result"])
        for r in runs
    ]
    assert shown == [
        (1, "2026-03-01T10:30:00Z", "ValueError", "card declined", None),
        (2, "2026-03-01T10:31:00Z", None, None, {"charged": 7}),
    ]
    assert runs[0]["request_id"] == runs[1]["request_id"]
    assert runs[1]["logs"] == f"handled {runs[1]['request_id']}\n"
    assert listed(emu, "deliveries")["deliveries"][0]["invocations"] == runs


def test_an_attempt_that_ran_no_function_lists_none(emu: Emulator, client: Any) -> None:
    create(client, "once", "at(2026-03-01T10:30:00)")
    emu.clock.advance(hours=1)

    (attempt,) = listed(emu, "attempts?order=newest")["attempts"]
    assert attempt["invocations"] == []
