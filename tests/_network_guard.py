"""The suite's network guard: no test reaches further than this machine.

While the suite runs, a socket connection to any address but a loopback one (127.0.0.0/8,
::1, ``localhost``) fails at once with ``NetworkRefused``, and so does resolving an AWS name
(``*.api.aws`` and every partition's own, ``*.amazonaws.com``, ``*.amazonaws.com.cn``,
``*.c2s.ic.gov``...): a Scheduler call that
escaped the emulator fails loudly instead of reaching AWS. Each refusal is also kept, and
fails the test it happened in if the test would otherwise pass, so code under test that
swallows the error (a delivery recorded as failed, a retry loop) cannot hide it.

``tests/conftest.py`` loads this module as a plugin; ``guarding`` makes pytester's runs load
it too, so a run in a process of its own is guarded as well.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Callable, NoReturn

import pytest

# Every partition's DNS suffix (tests/model/test_partitions.py checks them against the
# emulator's table). Written out: importing the package here would load it before the
# runs that test what happens when it is loaded late.
AWS_DOMAINS = (
    "api.aws",
    "amazonaws.com",
    "amazonaws.com.cn",
    "amazonaws.eu",
    "c2s.ic.gov",
    "cloud.adc-e.uk",
    "csp.hci.ic.gov",
    "sc2s.sgov.gov",
)
_INTERNET = (socket.AF_INET, socket.AF_INET6)
# The folder that holds the ``tests`` package: a pytester run in a new process imports this
# module from there.
_ROOT = Path(__file__).resolve().parent.parent


class NetworkRefused(AssertionError):
    """A test tried to reach further than this machine."""


class Refusals:
    """What the guard refused and no test has been failed for yet, behind its own lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._refused: list[str] = []

    def add(self, what: str) -> None:
        with self._lock:
            self._refused.append(what)

    def take(self) -> list[str]:
        """Every refusal since the last ``take``, now forgotten."""
        with self._lock:
            refused, self._refused = self._refused, []
            return refused


REFUSALS = Refusals()


def _refuse(what: str) -> NoReturn:
    REFUSALS.add(what)
    raise NetworkRefused(f"the test suite reaches no further than this machine: refused {what}")


def is_local(host: str) -> bool:
    """Whether ``host`` (an address or a name) is this machine."""
    name = host.strip("[]").split("%", 1)[0].rstrip(".").lower()
    if name in ("", "localhost") or name.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False  # any other name would be looked up, and could be anywhere
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback or address.is_unspecified


def _is_aws(host: Any) -> bool:
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if not isinstance(host, str):
        return False
    name = host.rstrip(".").lower()
    return any(name == domain or name.endswith(f".{domain}") for domain in AWS_DOMAINS)


def _guard_connect(connect: Callable[..., Any]) -> Callable[..., Any]:
    def guarded(sock: socket.socket, address: Any) -> Any:
        if sock.family in _INTERNET and not is_local(str(address[0])):
            _refuse(f"a connection to {address[0]}:{address[1]}")
        return connect(sock, address)

    return guarded


def _guard_create_connection(create: Callable[..., Any]) -> Callable[..., Any]:
    # Checked before the name is looked up: the lookup itself would leave the machine.
    def guarded(address: Any, *args: Any, **kwargs: Any) -> Any:
        if not is_local(str(address[0])):
            _refuse(f"a connection to {address[0]}:{address[1]}")
        return create(address, *args, **kwargs)

    return guarded


def _guard_lookup(lookup: Callable[..., Any]) -> Callable[..., Any]:
    def guarded(host: Any, *args: Any, **kwargs: Any) -> Any:
        if _is_aws(host):
            _refuse(f"resolving {host!r}")
        return lookup(host, *args, **kwargs)

    return guarded


def install() -> None:
    """Guard the process's sockets (once: this module's import does it)."""
    for name in ("connect", "connect_ex"):
        setattr(socket.socket, name, _guard_connect(getattr(socket.socket, name)))
    socket.create_connection = _guard_create_connection(socket.create_connection)
    for name in ("getaddrinfo", "gethostbyname", "gethostbyname_ex"):
        setattr(socket, name, _guard_lookup(getattr(socket, name)))


def guarding(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """``pytester``, whose runs load this guard, in this process or in a new one."""
    pytester.plugins.append(__name__)
    path = os.environ.get("PYTHONPATH")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(_ROOT), path])))
    return pytester


install()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    refused = REFUSALS.take()
    if refused and report.passed:
        report.outcome = "failed"
        report.longrepr = (
            f"The network guard refused, during this test's {call.when} (and the code under "
            "test carried on):\n" + "\n".join(refused)
        )
