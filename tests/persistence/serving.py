"""``schedemu serve --state`` in a subprocess, driven over HTTP, killed at will."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import quote

import boto3
from botocore.config import Config

from tests.serve.test_serve import Served, free_port


class Service(Served):
    """One ``schedemu serve`` process; its log goes to a file (a pipe left unread would
    block it once full)."""

    def __init__(self, *args: str, log: Path, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._log = open(log, "a")  # noqa: SIM115 - closed in stop()
        command = [sys.executable, "-m", "pytest_schedemu", "serve", "--port", str(self.port)]
        self.process = subprocess.Popen(
            [*command, *args],
            stdout=self._log,
            stderr=self._log,
            env={**os.environ, **(env or {})},
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                self.control("GET", "health")
                return
            except (urllib.error.URLError, ConnectionError):
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self._log.close()
                    raise RuntimeError(log.read_text()[-2000:]) from None
                time.sleep(0.02)

    def client(self) -> Any:
        return boto3.client(
            "scheduler",
            endpoint_url=self.url,
            region_name="us-east-1",
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
            config=Config(retries={"total_max_attempts": 1}, connect_timeout=5, read_timeout=30),
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
