"""The pytest plugin's own rows of the options table (``options.OPTIONS``): per test
(``PluginOptions``) and per run (``RunOptions``)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from pytest_schedemu.settings import values
from pytest_schedemu.settings.option import MARKER, PLUGIN, RUN, declare, rows, validate
from pytest_schedemu.settings.values import parse_bool


@dataclass(frozen=True)
class PluginOptions:
    """The pytest plugin's own options for one test."""

    #: The engine that freezes process time, or None.
    freeze: str | None = declare(
        None,
        "freeze process time in lockstep with the emulator clock: true (freezegun), "
        "time_machine, or false",
        scope=PLUGIN,
        parse=values.freeze_engine,
        check=values.freeze,
        shown="false",
        bare="true",
        metavar="ENGINE",
    )
    intercept: bool = declare(
        True,
        "serve every botocore scheduler client in the process from the emulator during "
        "schedemu tests: true or false",
        scope=PLUGIN,
        parse=parse_bool,
        check=values.boolean,
    )
    intercept_rules: bool = declare(
        True,
        "with intercept, serve the EventBridge rule operations (PutRule, PutTargets...) of "
        "every botocore events client from the emulator too; their other operations go to "
        "moto under mock_aws, or fail: true or false",
        scope=PLUGIN,
        parse=parse_bool,
        check=values.boolean,
    )
    allow_unused_targets: bool = declare(
        False,
        "let a test steer targets that no attempt uses",
        scope=PLUGIN,
        parse=parse_bool,
        check=values.boolean,
    )
    allow_drops: bool = declare(
        False,
        "let a test pass although occurrences were lost (ended failed with no dead letter "
        "sent) that it did not assert with assert_dropped",
        scope=PLUGIN,
        parse=parse_bool,
        check=values.boolean,
    )
    timeline: str = declare(
        values.FAILED,
        "write the timeline of schedemu tests as an HTML file named in the report: always, "
        "failed or never (true: always, false: never)",
        scope=PLUGIN,
        parse=values.timeline_mode,
        check=values.one_of(values.TIMELINE_MODES),
    )
    timeline_dir: str | os.PathLike[str] | None = declare(
        None,
        "the folder of the timeline files",
        scope=PLUGIN,
        check=values.optional_folder,
        shown="schedemu-timelines under pytest's base temporary folder",
    )
    allow_server_errors: bool = declare(
        False,
        "let the test pass although the emulator hit an error",
        scope=MARKER,
        parse=parse_bool,
        check=values.boolean,
    )

    def __post_init__(self) -> None:
        validate(PLUGIN_OPTIONS, self)


@dataclass(frozen=True)
class RunOptions:
    """The pytest plugin's options for a whole run, read once as it starts."""

    set_default_region: bool = declare(
        True,
        "when botocore finds no region (no AWS_DEFAULT_REGION, no profile region), set "
        "AWS_DEFAULT_REGION for the run, to AWS_REGION or else the run's region, so that "
        "clients built at import or collection can be made: true or false",
        scope=RUN,
        parse=parse_bool,
        check=values.boolean,
    )

    def __post_init__(self) -> None:
        validate(RUN_OPTIONS, self)


PLUGIN_OPTIONS = rows(PluginOptions)
RUN_OPTIONS = rows(RunOptions)
