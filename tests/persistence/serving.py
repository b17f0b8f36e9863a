"""``schedemu serve --state`` in a subprocess, driven over HTTP, killed at will."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any
from urllib.parse import quote

from botocore.config import Config

from tests.serve.test_serve import Served


class Service(Served):
    """One ``schedemu serve`` process; its log goes to a file (a pipe left unread would
    block it once full)."""

    def __init__(self, *args: str, log: Path, env: dict[str, str] | None = None) -> None:
        self._log_path = log
        self._log = open(log, "a")  # noqa: SIM115 - closed in stop()
        super().__init__(*args, output=self._log, env=env)

    def failure(self) -> str:
        self._log.close()
        return self._log_path.read_text()[-2000:]

    def client(self, config: Config | None = None) -> Any:
        return super().client(
            config or Config(retries={"total_max_attempts": 1}, connect_timeout=5, read_timeout=30)
        )

    def records(self, kind: str) -> list[Any]:
        found: list[Any] = []
        token = None
        while True:
            query = f"{kind}?limit=10000" + (f"&next_token={quote(token)}" if token else "")
            page = self.control("GET", query)
            found += page[kind]
            token = page["next_token"]
            if token is None:
                return found

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)
        self._log.close()

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(timeout=30)
        self._log.close()
        return code
