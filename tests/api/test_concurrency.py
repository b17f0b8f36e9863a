"""The store under concurrent requests from many threads."""

from __future__ import annotations

import threading
from typing import Any

from pytest_schedemu import Emulator
from tests.helpers import schedule_args


def test_concurrent_creates_lose_nothing_and_duplicates_conflict(emu: Emulator) -> None:
    threads = 8
    per_thread = 25
    clients = [emu.client() for _ in range(threads)]
    conflicts: list[int] = []
    errors: list[BaseException] = []

    def work(index: int, client: Any) -> None:
        try:
            for i in range(per_thread):
                client.create_schedule(**schedule_args(f"t{index}-{i}"))
                # Every thread also races for the same shared names.
                try:
                    client.create_schedule(**schedule_args(f"shared-{i}"))
                except client.exceptions.ConflictException:
                    conflicts.append(i)
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    workers = [
        threading.Thread(target=work, args=(index, client)) for index, client in enumerate(clients)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert errors == []
    listed = [
        s["Name"]
        for page in clients[0].get_paginator("list_schedules").paginate()
        for s in page["Schedules"]
    ]
    assert len(listed) == threads * per_thread + per_thread
    assert len(set(listed)) == len(listed)
    assert len(conflicts) == (threads - 1) * per_thread
    assert emu.server_errors == []
