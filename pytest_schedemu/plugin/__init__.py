"""pytest plugin: fixtures, the ``schedemu`` marker, options and hooks, and the checks after
each test; nothing else.

One emulator serves the whole session (one per xdist worker); each test that asks for
``schedemu``, or is marked ``schedemu``, gets it reset to empty state with its clock at the
test's start. Every option a test may set (the options table's scopes ``test``, ``plugin``
and ``marker``) is a marker keyword, and all but the marker-only ones an ini option
``schedemu_<name>`` and a command-line option ``--schedemu-<name>``;
``settings.layers.layered`` chooses each test's values from them. The run's own options
(scope ``run``) are read once, as the run starts.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import pytest

from pytest_schedemu._version import __version__
from pytest_schedemu.errors import SchedemuError
from pytest_schedemu.formats.times import Instant, wall_clock_now, ztime
from pytest_schedemu.plugin import lending, placement
from pytest_schedemu.plugin import report as report_timeline
from pytest_schedemu.settings.layers import Chosen, for_the_run, layered, per_run, per_test
from pytest_schedemu.settings.options import PluginOptions, Settings
from pytest_schedemu.wire import intercept

# Before the helpers are first imported, so their asserts explain themselves too.
pytest.register_assert_rewrite("pytest_schedemu.records.assertions")

if TYPE_CHECKING:
    from datetime import datetime

    from pytest_schedemu.emulator import Emulator

_EMULATOR_KEY = pytest.StashKey["Emulator"]()
_TIMELINE_KEY = pytest.StashKey["_TimelineRequest"]()
_SESSION_TEXTS_KEY = pytest.StashKey["_SessionTexts"]()
# The options of a test without a marker depend only on the session and the emulator's own
# settings: worked out once, for the emulator they were worked out for.
_UNMARKED_KEY = pytest.StashKey[tuple[Settings, "_TestOptions"]]()
# The AWS_DEFAULT_REGION the plugin set for the run, when botocore found none.
_LENT_REGION_KEY = pytest.StashKey[str]()

# Now, while the plugin loads: from here on every scheduler client's request, whatever
# session built the client, reaches the interception.
intercept.install()

# Environment application code reads to reach the emulator.
_ENDPOINT_VARIABLE = "AWS_ENDPOINT_URL_SCHEDULER"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("schedemu", "EventBridge Scheduler emulator")
    for option in per_run().values():
        help_text = f"{option.help} (default: {option.shown_default()})"
        if option.bare is None:
            group.addoption(option.pytest_flag, default=None, help=help_text)
        else:
            group.addoption(
                option.pytest_flag,
                nargs="?",
                const=option.bare,
                default=None,
                metavar=option.metavar,
                help=help_text,
            )
        parser.addini(option.ini_key, help_text, default=None)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    # Before the first conftest.py is imported: it and the application modules it imports
    # may build clients at import, and botocore refuses to build one without a region, and
    # asks this machine's credential endpoints for credentials when it finds none.
    texts = _texts(early_config, early_config.known_args_namespace)
    try:
        run, region = for_the_run(texts.command_line, texts.ini)
    except ValueError as error:
        raise pytest.UsageError(f"schedemu: {error}") from None
    if run.set_default_region and not lending.botocore_finds_a_region():
        lent = os.environ.get("AWS_REGION") or region
        early_config.add_cleanup(lending.lend({"AWS_DEFAULT_REGION": lent}))
        early_config.stash[_LENT_REGION_KEY] = lent
    if run.set_default_credentials and not lending.botocore_finds_credentials():
        early_config.add_cleanup(lending.lend(lending.credentials_to_lend()))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"schedemu({', '.join(f'{k}=...' for k in sorted(per_test()))}): configure the "
        "schedemu fixture for this test",
    )


def pytest_report_header(config: pytest.Config) -> str:
    return (
        f"schedemu: pytest-schedemu {__version__}, one emulator per session on "
        "http://127.0.0.1 (a free port); see the schedemu_server fixture"
    )


@dataclass
class _TimelineRequest:
    """When and where a test's timeline is written, and the file once it is."""

    mode: str
    folder: Callable[[], Path]
    written: Path | None = None


@dataclass(frozen=True)
class _TestOptions:
    """What the ``schedemu`` fixture does for a test, worked out from its chosen options."""

    #: The clock's start; None for the wall-clock now.
    start: Instant | None
    #: The settings a reset changes: only those that differ from the emulator's own, so that
    #: the reset of a test that changes nothing compares nothing.
    changes: dict[str, Any]
    plugin: PluginOptions


def _test_options(chosen: Chosen, own: Settings) -> _TestOptions:
    settings = dict(chosen.settings)
    start = settings.pop("start")
    return _TestOptions(start, own.differences(settings), chosen.plugin)


@dataclass(frozen=True)
class _SessionTexts:
    """Each option's command-line and ini texts, by name; read once per session."""

    command_line: dict[str, str | None]
    ini: dict[str, str | None]


def _session_texts(config: pytest.Config) -> _SessionTexts:
    texts = config.stash.get(_SESSION_TEXTS_KEY, None)
    if texts is None:
        texts = config.stash[_SESSION_TEXTS_KEY] = _texts(config, config.option)
    return texts


def _texts(config: pytest.Config, arguments: Any) -> _SessionTexts:
    """Each option's texts; ``arguments`` is pytest's parsed command line (early in the run
    only the preliminary parse, ``known_args_namespace``, exists)."""
    named = per_run().values()
    return _SessionTexts(
        command_line={o.name: getattr(arguments, o.pytest_dest, None) for o in named},
        ini={o.name: config.getini(o.ini_key) for o in named},
    )


def _options(item: pytest.Item, emulator: Emulator) -> _TestOptions:
    """The test's options: marker over command line over ini over the emulator's own."""
    marker = item.get_closest_marker("schedemu")
    marked: dict[str, Any] = {}
    if marker is not None:
        keywords = sorted(per_test())
        if marker.args:
            pytest.fail("@pytest.mark.schedemu takes keyword arguments only", pytrace=False)
        unknown = set(marker.kwargs) - set(keywords)
        if unknown:
            pytest.fail(
                f"Unsupported @pytest.mark.schedemu arguments {sorted(unknown)}: use {keywords}",
                pytrace=False,
            )
        marked = dict(marker.kwargs)
    own = emulator.own_settings
    if marker is None:
        cached = item.config.stash.get(_UNMARKED_KEY, None)
        if cached is not None and cached[0] is own:
            return cached[1]
    texts = _session_texts(item.config)
    try:
        chosen = layered(marker=marked, command_line=texts.command_line, ini=texts.ini, own=own)
    except ValueError as error:
        problem = str(error)
    else:
        worked_out = _test_options(_stacks_from_rootdir(chosen, item.config.rootpath), own)
        if marker is None:
            item.config.stash[_UNMARKED_KEY] = (own, worked_out)
        return worked_out
    # Outside the handler, so that the failure is not shown as raised while handling it.
    pytest.fail(f"schedemu: {problem}", pytrace=False)


def _stacks_from_rootdir(chosen: Chosen, rootdir: Path) -> Chosen:
    """The test's stacks with relative paths read from the rootdir, wherever pytest runs."""
    stacks = chosen.settings.get("stacks")
    if not stacks:
        return chosen
    found = tuple(str(rootdir / entry) for entry in stacks)  # an absolute path stays whole
    return dataclasses.replace(chosen, settings={**chosen.settings, "stacks": found})


@pytest.fixture(scope="session")
def schedemu_server() -> Iterator[Emulator]:
    """The session's emulator, started on first use and stopped at the end of the session."""
    from pytest_schedemu.emulator import Emulator
    from pytest_schedemu.records import assertions

    # Not from pytest's ``pytestconfig``: a fixture that asks for it (or for ``request``)
    # makes every test that uses the emulator build a fixture definition of its own.
    assertions.configure(verbosity=int(_running[-1].config.getoption("verbose")))

    with Emulator() as emulator:
        yield emulator


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    placement.place_fixtures(items, __name__, _emulator_for_test)


#: The tests whose run is under way, innermost last (a test may run a pytest of its own):
#: the ``schedemu`` fixture's test. Asking for pytest's ``request`` instead costs every
#: schedemu test a fixture definition of its own (pytest builds one for each fixture that
#: asks for it, each time), a good part of the fixture's cost.
_running: list[pytest.Item] = []


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    _running.append(item)
    try:
        return (yield)
    finally:
        _running.pop()


@pytest.fixture
def schedemu(schedemu_server: Emulator) -> Iterator[Emulator]:
    """The emulator, reset to empty state for this test, with its environment set."""
    # Most tests never run this: placement.py sets the emulator up for them, the same way.
    yield from _emulator_for_test(_running[-1], schedemu_server)


def _emulator_for_test(item: pytest.Item, emulator: Emulator) -> Iterator[Emulator]:
    """The ``schedemu`` fixture's setup, one yield, and its teardown."""
    config = item.config
    chosen = _options(item, emulator)
    start = chosen.start
    # A real-time clock is where the wall clock is: it is reset in place (a start is refused).
    if start is None and not emulator.clock.real_time:
        start = wall_clock_now()
    try:
        emulator.reset(start=start, **chosen.changes)
    except (TypeError, ValueError) as error:
        refused: Exception | None = error
    else:
        refused = None
    # Failed outside the handler, so that the report says it once, not "during handling".
    if refused is not None:
        pytest.fail(f"schedemu: {refused}", pytrace=False)
    options = chosen.plugin
    started = emulator.clock.now()
    item.stash[_EMULATOR_KEY] = emulator
    chosen_dir = options.timeline_dir
    item.stash[_TIMELINE_KEY] = _TimelineRequest(
        options.timeline,
        (lambda: Path(chosen_dir))
        if chosen_dir is not None
        else (lambda: report_timeline.default_folder(config)),
    )
    saved = _set_environment(emulator, config.stash.get(_LENT_REGION_KEY, None))
    try:
        freezer = None if options.freeze is None else emulator.freeze_time(options.freeze)
    except SchedemuError as error:
        _restore_environment(saved)
        pytest.fail(f"schedemu: {error}", pytrace=False)
    routed = (
        emulator.intercept(rules=options.intercept_rules)
        if options.intercept
        else contextlib.nullcontext()
    )
    try:
        with routed:
            if item.stash.get(placement.HANDS_CLIENT_KEY, False):
                item.funcargs["scheduler_client"] = emulator.client()  # type: ignore[attr-defined]
            yield emulator
    finally:
        if freezer is not None:
            freezer.stop()
        _restore_environment(saved)
    _check_after_test(emulator, options, started)


def _check_after_test(emulator: Emulator, options: PluginOptions, started: datetime) -> None:
    """What the plugin checks after each schedemu test: a handler's bug, a steered target no
    attempt went to, an occurrence lost and not asserted, an internal error of the emulator.
    Each fails the test, unless its marker keyword allows it."""
    kept = emulator.handler_errors
    if kept:
        more = f"\n(and {len(kept) - 1} more: see schedemu.handler_errors)" if kept[1:] else ""
        pytest.fail(f"schedemu: {kept[0].report()}{more}", pytrace=False)
    unused = emulator.unused_target_rules()
    if unused and not options.allow_unused_targets:
        attempted = sorted({a.target_arn for a in emulator.attempts()})
        if attempted or emulator.clock.real_time or emulator.clock.now() > started:
            why = (
                "(a mistyped ARN steers nothing). Attempted targets: "
                f"{', '.join(attempted) or 'none'}"
            )
        else:
            why = (
                f"(the clock never moved from {ztime(started)}, so no attempt was made at "
                "all: advance it, move_to or tick first)"
            )
        pytest.fail(
            f"schedemu: the test steered {', '.join(unused)}, but no attempt ever went there "
            f"{why}. Mark the test @pytest.mark.schedemu(allow_unused_targets=True) if that "
            "is intended.",
            pytrace=False,
        )
    drops = emulator.unasserted_drops()
    if drops and not options.allow_drops:
        # Imported only here: an import statement costs every test that runs it a lookup.
        from pytest_schedemu.records import assertions

        lost = "1 occurrence was" if len(drops) == 1 else f"{len(drops)} occurrences were"
        pytest.fail(
            f"schedemu: {lost} lost during this test (ended failed with no dead letter "
            "sent) and not asserted:\n"
            f"{assertions.describe_drops(drops)}\n"
            "Assert drops with schedemu.assert_dropped(...), or mark the test "
            "@pytest.mark.schedemu(allow_drops=True) if that is intended.",
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
    """A boto3 ``scheduler`` client bound to the emulator, built by boto3's default session:
    its ``exceptions`` are the classes application clients (``boto3.client``) raise."""
    # Most tests never run this: ``schedemu`` hands them the same client (placement.py).
    return schedemu.client()


def _set_environment(emulator: Emulator, lent_region: str | None) -> dict[str, str | None]:
    environ = os.environ
    wanted = {_ENDPOINT_VARIABLE: emulator.endpoint_url}
    if not (environ.get("AWS_ACCESS_KEY_ID") and environ.get("AWS_SECRET_ACCESS_KEY")):
        wanted.update(lending.TEST_CREDENTIALS)
    # The region the plugin lent the run is no one's choice: the test's region wins over it.
    default_region = environ.get("AWS_DEFAULT_REGION")
    if not (default_region not in (None, "", lent_region) or environ.get("AWS_REGION")):
        wanted["AWS_DEFAULT_REGION"] = emulator.region
    saved: dict[str, str | None] = {}
    for name, value in wanted.items():
        # The region was read just above: each read of os.environ is a lookup of its own.
        was = default_region if name == "AWS_DEFAULT_REGION" else environ.get(name)
        saved[name] = was
        # Each write of os.environ is a putenv: a variable that already holds the value (most
        # often the region the plugin lent the run) is left as it is.
        if was != value:
            environ[name] = value
    return saved


def _restore_environment(saved: dict[str, str | None]) -> None:
    environ = os.environ
    for name, value in saved.items():
        # Every saved variable is put back, the ones the test itself changed too.
        if environ.get(name) == value:
            continue
        if value is None:
            del environ[name]
        else:
            environ[name] = value


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    emulator = item.stash.get(_EMULATOR_KEY, None)
    if emulator is None or call.when == "setup":
        return report
    _report_timeline(item, report, emulator)
    if report.failed and call.when == "call":
        from pytest_schedemu.errors import raised_for_the_caller

        # An assertion of the emulator already listed the attempts, and they say nothing
        # of a misspelt name or a template that cannot load.
        if call.excinfo is None or not raised_for_the_caller(call.excinfo):
            report.sections.append(("schedemu attempts", emulator.describe_attempts()))
    return report


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
