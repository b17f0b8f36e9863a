"""What the plugin checks after each schedemu test: a handler's bug, a steered target no
attempt went to, an occurrence lost and not asserted, an internal error of the emulator.
Each fails the test, unless its marker keyword allows it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from pytest_schedemu.formats.times import ztime

if TYPE_CHECKING:
    from datetime import datetime

    from pytest_schedemu.emulator import Emulator
    from pytest_schedemu.settings.plugin_options import PluginOptions


def check_after_test(emulator: Emulator, options: PluginOptions, started: datetime) -> None:
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
