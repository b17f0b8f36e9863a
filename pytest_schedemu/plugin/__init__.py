"""pytest plugin: fixtures, the ``schedemu`` marker, options and hooks; nothing else.

One emulator serves the whole session (one per xdist worker); each test that asks for
``schedemu`` gets it reset to empty state with its clock at the test's start. Every
setting a test may change (``Settings``, scope ``test``) is a marker keyword, an ini
option ``schedemu_<name>`` and a command-line option ``--schedemu-<name>``; the marker
wins over the command line, which wins over the ini file, which wins over the session
emulator's own value.
"""

from __future__ import annotations

import contextlib
import functools
import os
import types
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import pytest

from pytest_schedemu._version import __version__
from pytest_schedemu.errors import SchedemuError
from pytest_schedemu.plugin import report as report_timeline
from pytest_schedemu.settings.options import TEST, Option, options
from pytest_schedemu.settings.values import parse_bool
from pytest_schedemu.wire import intercept

# Before the helpers are first imported, so their asserts explain themselves too.
pytest.register_assert_rewrite("pytest_schedemu.records.assertions")

if TYPE_CHECKING:
    from pytest_schedemu.emulator import Emulator

_EMULATOR_KEY = pytest.StashKey["Emulator"]()
_TIMELINE_KEY = pytest.StashKey["_TimelineRequest"]()
_SESSION_TEXTS_KEY = pytest.StashKey[dict[str, list[Any]]]()

# Now, while the plugin loads: botocore sessions made from here on (by conftest.py files and
# test modules at collection, too) give every scheduler client the interception handlers.
intercept.install()


def _parse_freeze(text: str) -> bool | str:
    if text.strip().lower() in ("freezegun", "time_machine"):
        return text.strip().lower()
    return parse_bool(text)


# Options of the plugin itself, beside the emulator's settings: name -> (help, parse).
_PLUGIN_OPTIONS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "freeze": (
        "freeze process time in lockstep with the emulator clock: true (freezegun), "
        "time_machine, or false (default: false)",
        _parse_freeze,
    ),
    "intercept": (
        "serve every botocore scheduler client in the process from the emulator during "
        "schedemu tests: true or false (default: true)",
        parse_bool,
    ),
    "allow_unused_targets": (
        "let a test steer targets that no attempt uses (default: false)",
        parse_bool,
    ),
    "timeline": (
        "write the timeline of schedemu tests as an HTML file named in the report: always, "
        "failed or never (default: failed)",
        report_timeline.parse_timeline_mode,
    ),
    "timeline_dir": (
        "the folder of the timeline files (default: schedemu-timelines under pytest's base "
        "temporary folder)",
        str,
    ),
}
_MARKER_ONLY = {"allow_server_errors": "let the test pass although the emulator hit an error"}

# Environment application code reads to reach the emulator, and the dummy values it gets
# when it has none of its own.
_ENDPOINT_VARIABLE = "AWS_ENDPOINT_URL_SCHEDULER"
_DUMMY_CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}


@functools.cache
def _test_settings() -> Mapping[str, Option]:
    settings = {name: option for name, option in options().items() if option.scope == TEST}
    return types.MappingProxyType(settings)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("schedemu", "EventBridge Scheduler emulator")
    for name, option in _test_settings().items():
        default = option.default if option.default is not None else "none"
        help_text = f"{option.help} (default: {default})"
        group.addoption("--schedemu-" + name.replace("_", "-"), default=None, help=help_text)
        parser.addini(f"schedemu_{name}", help_text, default=None)
    for name, (help_text, _) in _PLUGIN_OPTIONS.items():
        flag = "--schedemu-" + name.replace("_", "-")
        if name == "freeze":
            group.addoption(
                flag, nargs="?", const="true", default=None, metavar="ENGINE", help=help_text
            )
        else:
            group.addoption(flag, default=None, help=help_text)
        parser.addini(f"schedemu_{name}", help_text, default=None)


def _keywords() -> list[str]:
    return sorted({*_test_settings(), *_PLUGIN_OPTIONS, *_MARKER_ONLY})


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"schedemu({', '.join(f'{k}=...' for k in _keywords())}): configure the schedemu "
        "fixture for this test",
    )


def pytest_report_header(config: pytest.Config) -> str:
    return (
        f"schedemu: pytest-schedemu {__version__}, one emulator per session on "
        "http://127.0.0.1 (a free port); see the schedemu_server fixture"
    )


@dataclass(frozen=True)
class _TestOptions:
    start: Any
    #: The emulator's settings this test chose, by name; the rest keep their own values.
    settings: dict[str, Any]
    #: The freeze engine, or None.
    freeze: str | None
    intercept: bool
    allow_server_errors: bool
    allow_unused_targets: bool
    timeline: str
    timeline_dir: str | None


@dataclass
class _TimelineRequest:
    """When and where a test's timeline is written, and the file once it is."""

    mode: str
    folder: Callable[[], Path]
    written: Path | None = None


def _session_texts(config: pytest.Config) -> dict[str, list[Any]]:
    """Each option's command-line and ini values, in that order; read once per session."""
    texts = config.stash.get(_SESSION_TEXTS_KEY, None)
    if texts is None:
        texts = {
            name: [config.getoption("schedemu_" + name), config.getini("schedemu_" + name)]
            for name in (*_test_settings(), *_PLUGIN_OPTIONS)
        }
        config.stash[_SESSION_TEXTS_KEY] = texts
    return texts


def _options(request: pytest.FixtureRequest) -> _TestOptions:
    """Marker over command line over ini over the emulator's own value."""
    config = request.config
    marker = request.node.get_closest_marker("schedemu")
    marked: dict[str, Any] = {}
    if marker is not None:
        if marker.args:
            pytest.fail("@pytest.mark.schedemu takes keyword arguments only", pytrace=False)
        unknown = set(marker.kwargs) - set(_keywords())
        if unknown:
            pytest.fail(
                f"Unsupported @pytest.mark.schedemu arguments {sorted(unknown)}: use {_keywords()}",
                pytrace=False,
            )
        marked = dict(marker.kwargs)

    session_texts = _session_texts(config)

    def pick(name: str, parse: Callable[[str], Any]) -> Any:
        candidates = session_texts[name]
        if marked.get(name) is not None:
            candidates = [marked[name]]
        for text in candidates:
            if not isinstance(text, str) and text is not None:
                return text  # a Python value from the marker
            if text not in (None, "", []):
                try:
                    return parse(str(text))
                except (TypeError, ValueError) as error:
                    problem = f"Unsupported schedemu_{name} {text!r}: {error}"
                pytest.fail(problem, pytrace=False)
        return None

    chosen = {
        name: value
        for name, option in _test_settings().items()
        if (value := pick(name, option.parse)) is not None
    }
    picked = pick("freeze", _parse_freeze) or None
    freeze = "freezegun" if picked is True else picked
    if freeze not in (None, "freezegun", "time_machine"):
        pytest.fail(
            f"Unsupported freeze {freeze!r}: use True (freezegun), 'time_machine' or False",
            pytrace=False,
        )
    return _TestOptions(
        start=chosen.pop("start", None),
        settings=chosen,
        freeze=freeze,
        intercept=pick("intercept", parse_bool) is not False,
        allow_server_errors=bool(marked.get("allow_server_errors", False)),
        allow_unused_targets=bool(pick("allow_unused_targets", parse_bool)),
        timeline=pick("timeline", report_timeline.parse_timeline_mode) or report_timeline.FAILED,
        timeline_dir=pick("timeline_dir", str),
    )


@pytest.fixture(scope="session")
def schedemu_server() -> Iterator[Emulator]:
    """The session's emulator, started on first use and stopped at the end of the session."""
    from pytest_schedemu.emulator import Emulator

    with Emulator() as emulator:
        yield emulator


@pytest.fixture
def schedemu(request: pytest.FixtureRequest, schedemu_server: Emulator) -> Iterator[Emulator]:
    """The emulator, reset to empty state for this test, with its environment set."""
    from pytest_schedemu.formats.times import wall_clock_now
    from pytest_schedemu.records import assertions

    assertions.configure(verbosity=int(request.config.getoption("verbose")))
    options = _options(request)
    emulator = schedemu_server
    # A real-time clock is where the wall clock is: it is reset in place (a start is refused).
    default_start = None if emulator.clock.real_time else wall_clock_now()
    try:
        emulator.reset(
            start=options.start if options.start is not None else default_start,
            **options.settings,
        )
    except (TypeError, ValueError) as error:
        pytest.fail(f"schedemu: {error}", pytrace=False)
    request.node.stash[_EMULATOR_KEY] = emulator
    chosen_dir = options.timeline_dir
    request.node.stash[_TIMELINE_KEY] = _TimelineRequest(
        options.timeline,
        (lambda: Path(chosen_dir))
        if chosen_dir
        else (lambda: report_timeline.default_folder(request.config)),
    )
    saved = _set_environment(emulator)
    try:
        freezer = None if options.freeze is None else emulator.freeze_time(options.freeze)
    except SchedemuError as error:
        _restore_environment(saved)
        pytest.fail(f"schedemu: {error}", pytrace=False)
    routed = emulator.intercept() if options.intercept else contextlib.nullcontext()
    try:
        with routed:
            yield emulator
    finally:
        if freezer is not None:
            freezer.stop()
        _restore_environment(saved)
    _check_after_test(emulator, options)


def _check_after_test(emulator: Emulator, options: _TestOptions) -> None:
    kept = emulator.handler_errors
    if kept:
        more = f"\n(and {len(kept) - 1} more: see schedemu.handler_errors)" if kept[1:] else ""
        pytest.fail(f"schedemu: {kept[0].report()}{more}", pytrace=False)
    unused = emulator.unused_target_rules()
    if unused and not options.allow_unused_targets:
        attempted = sorted({a.target_arn for a in emulator.attempts()})
        pytest.fail(
            f"schedemu: the test steered {', '.join(unused)}, but no attempt ever went there "
            f"(a mistyped ARN steers nothing). Attempted targets: "
            f"{', '.join(attempted) or 'none'}. Mark the test "
            "@pytest.mark.schedemu(allow_unused_targets=True) if that is intended.",
            pytrace=False,
        )
    errors = emulator.server_errors
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
    from pytest_schedemu.errors import DeliveryAssertionError

    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    emulator = item.stash.get(_EMULATOR_KEY, None)
    if emulator is None or call.when == "setup":
        return
    _report_timeline(item, report, emulator)
    if not report.failed or call.when != "call":
        return
    # An assertion of the emulator already listed the attempts; don't print them twice.
    if call.excinfo is None or not call.excinfo.errisinstance(DeliveryAssertionError):
        report.sections.append(("schedemu attempts", emulator.describe_attempts()))


def _report_timeline(item: pytest.Item, report: pytest.TestReport, emulator: Emulator) -> None:
    """Write the test's timeline once (after its call, or after a teardown that failed) and
    name it in the report."""
    request = item.stash.get(_TIMELINE_KEY, None)
    if request is None:
        return
    if request.written is None:
        if not report_timeline.wanted(request.mode, report.failed):
            return
        try:
            request.written = report_timeline.write_timeline(
                emulator, request.folder(), item.nodeid, report.outcome
            )
        except (OSError, ValueError) as error:
            report.sections.append((report_timeline.SECTION, f"timeline not written: {error}"))
            return
    elif not report.failed:
        return
    report.sections.append((report_timeline.SECTION, report_timeline.section_text(request.written)))
    if getattr(item.config.option, "htmlpath", None):  # pytest-html writes a report
        report_timeline.attach_to_html_report(report, request.written, emulator.timeline_svg())
