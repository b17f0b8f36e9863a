"""pytest plugin: fixtures, the ``schedemu`` marker, options and hooks; nothing else.

One emulator serves the whole session (one per xdist worker); each test that asks for
``schedemu`` gets it reset to empty state with its clock at the test's start.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest

from pytest_schedemu import intercept
from pytest_schedemu._version import __version__

# Before the helpers are first imported, so their asserts explain themselves too.
pytest.register_assert_rewrite("pytest_schedemu.assertions")

if TYPE_CHECKING:
    from pytest_schedemu.emulator import Emulator

_OPTIONS = ("start", "region", "account_id", "seed", "freeze", "transport", "intercept")
_MARKER_KEYWORDS = frozenset((*_OPTIONS, "allow_server_errors"))
_EMULATOR_KEY = pytest.StashKey["Emulator"]()
_BOOLEAN_TRUE = ("1", "true", "yes", "on")
_BOOLEAN_FALSE = ("0", "false", "no", "off")

# Now, while the plugin loads: botocore sessions made from here on (by conftest.py files and
# test modules at collection, too) give every scheduler client the interception handlers.
intercept.install()

# Environment application code reads to reach the emulator, and the dummy values it gets
# when it has none of its own.
_ENDPOINT_VARIABLE = "AWS_ENDPOINT_URL_SCHEDULER"
_DUMMY_CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("schedemu", "EventBridge Scheduler emulator")
    helps = {
        "start": "virtual start time of each test (ISO 8601 with an offset; default: now)",
        "region": "default region of the emulator (default: us-east-1)",
        "account_id": "default account id of the emulator (default: 123456789012)",
        "seed": "seed of flexible-window offsets and execution ids (default: 0)",
        "freeze": "freeze time with freezegun in lockstep with the emulator clock",
        "transport": "how schedemu clients reach the emulator: http or inprocess",
        "intercept": "serve every botocore scheduler client in the process from the emulator "
        "during schedemu tests: true or false (default: true)",
    }
    for name in _OPTIONS:
        flag = "--schedemu-" + name.replace("_", "-")
        if name == "freeze":
            group.addoption(flag, action="store_true", default=None, help=helps[name])
        else:
            group.addoption(flag, default=None, help=helps[name])
        parser.addini(f"schedemu_{name}", helps[name], default=None)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "schedemu(start=None, region=None, account_id=None, seed=None, freeze=False, "
        "transport='http', intercept=True, allow_server_errors=False): configure the schedemu "
        "fixture for this test",
    )


def pytest_report_header(config: pytest.Config) -> str:
    return (
        f"schedemu: pytest-schedemu {__version__}, one emulator per session on "
        "http://127.0.0.1 (a free port); see the schedemu_server fixture"
    )


@dataclass(frozen=True)
class _TestOptions:
    start: str | None
    region: str | None
    account_id: str | None
    seed: int | None
    freeze: bool
    transport: str
    allow_server_errors: bool
    intercept: bool


def _options(request: pytest.FixtureRequest) -> _TestOptions:
    """Marker over command line over ini over default."""
    config = request.config
    marker = request.node.get_closest_marker("schedemu")
    marked: dict[str, Any] = {}
    if marker is not None:
        if marker.args:
            pytest.fail("@pytest.mark.schedemu takes keyword arguments only", pytrace=False)
        unknown = set(marker.kwargs) - _MARKER_KEYWORDS
        if unknown:
            pytest.fail(
                f"Unsupported @pytest.mark.schedemu arguments {sorted(unknown)}: "
                f"use {sorted(_MARKER_KEYWORDS)}",
                pytrace=False,
            )
        marked = dict(marker.kwargs)

    def pick(name: str) -> Any:
        if marked.get(name) is not None:
            return marked[name]
        value = config.getoption("schedemu_" + name)
        if value is not None:
            return value
        ini = config.getini("schedemu_" + name)
        return ini if ini not in (None, "", []) else None

    seed = pick("seed")
    freeze = pick("freeze")
    return _TestOptions(
        start=pick("start"),
        region=pick("region"),
        account_id=pick("account_id"),
        seed=None if seed is None else int(seed),
        freeze=freeze if isinstance(freeze, bool) else str(freeze).lower() in _BOOLEAN_TRUE,
        transport=pick("transport") or "http",
        allow_server_errors=bool(marked.get("allow_server_errors", False)),
        intercept=_boolean("intercept", pick("intercept"), default=True),
    )


def _boolean(name: str, value: Any, *, default: bool) -> bool:
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _BOOLEAN_TRUE or text in _BOOLEAN_FALSE:
        return text in _BOOLEAN_TRUE
    pytest.fail(f"Unsupported schedemu {name} {value!r}: use true or false", pytrace=False)


@pytest.fixture(scope="session")
def schedemu_server() -> Iterator[Emulator]:
    """The session's emulator, started on first use and stopped at the end of the session."""
    from pytest_schedemu.emulator import Emulator

    with Emulator() as emulator:
        yield emulator


@pytest.fixture
def schedemu(request: pytest.FixtureRequest, schedemu_server: Emulator) -> Iterator[Emulator]:
    """The emulator, reset to empty state for this test, with its environment set."""
    from pytest_schedemu.clock import wall_clock_now

    options = _options(request)
    emulator = schedemu_server
    emulator.reset(
        start=options.start if options.start is not None else wall_clock_now(),
        region=options.region or "us-east-1",
        account_id=options.account_id or "123456789012",
        seed=options.seed if options.seed is not None else 0,
    )
    emulator.use_transport(options.transport)
    request.node.stash[_EMULATOR_KEY] = emulator
    saved = _set_environment(emulator)
    freezer = emulator.freeze_time() if options.freeze else None
    routed = emulator.intercept() if options.intercept else contextlib.nullcontext()
    try:
        with routed:
            yield emulator
    finally:
        if freezer is not None:
            freezer.stop()
        _restore_environment(saved)
    errors = list(emulator.server_errors)
    if errors and not options.allow_server_errors:
        details = "\n".join(str(error) for error in errors)
        pytest.fail(
            f"The Scheduler emulator hit {len(errors)} internal error(s) during this test "
            f"(mark it @pytest.mark.schedemu(allow_server_errors=True) to allow them):\n"
            f"{details}",
            pytrace=False,
        )


@pytest.fixture
def scheduler_client(schedemu: Emulator) -> Any:
    """A boto3 ``scheduler`` client bound to the emulator."""
    return schedemu.client()


def _set_environment(emulator: Emulator) -> dict[str, str | None]:
    wanted = {_ENDPOINT_VARIABLE: emulator.endpoint_url}
    if not (os.environ.get("AWS_ACCESS_KEY_ID") and os.environ.get("AWS_SECRET_ACCESS_KEY")):
        wanted.update(_DUMMY_CREDENTIALS)
    if not (os.environ.get("AWS_DEFAULT_REGION") or os.environ.get("AWS_REGION")):
        wanted["AWS_DEFAULT_REGION"] = emulator.region
    saved = {name: os.environ.get(name) for name in wanted}
    os.environ.update(wanted)
    return saved


def _restore_environment(saved: dict[str, str | None]) -> None:
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    emulator = item.stash.get(_EMULATOR_KEY, None)
    if emulator is not None and report.failed and call.when == "call":
        report.sections.append(("schedemu attempts", emulator.describe_attempts()))
