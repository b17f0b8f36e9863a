"""With default settings a clock move's memory is bounded: a year of a per-minute schedule
keeps the newest ``max_records`` (100,000) and grows the process by less than 250 MiB; a
move by steps holds what one move keeps, and takes a bounded number of steps."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import textwrap
import time
import tracemalloc

import pytest

from pytest_schedemu import Emulator
from pytest_schedemu.settings.options import Settings
from tests.constants import QUEUE, ROLE, START

#: A year of a per-minute schedule: its first occurrence is at the start.
A_YEAR = 365 * 1440 + 1

SCRIPT = (
    textwrap.dedent(
        """
    import json, resource
    from pytest_schedemu import Emulator

    with Emulator(start="2026-01-01T00:00:00Z") as emu:
        emu.client().create_schedule(
            Name="m", ScheduleExpression="rate(1 minute)", FlexibleTimeWindow={"Mode": "OFF"},
            Target={"Arn": QUEUE, "RoleArn": ROLE})
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        made = emu.clock.advance(days=365)
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(json.dumps({"grew_mib": (after - before) / 1024, "made": made.attempts_made,
                          "kept": len(made), "history": len(emu.attempts())}))
    """
    )
    .replace("QUEUE", repr(QUEUE))
    .replace("ROLE", repr(ROLE))
)


def every_minute(emu: Emulator) -> None:
    emu.client().create_schedule(
        Name="m",
        ScheduleExpression="rate(1 minute)",
        FlexibleTimeWindow={"Mode": "OFF"},
        Target={"Arn": QUEUE, "RoleArn": ROLE},
    )


def test_a_year_of_a_per_minute_schedule_with_default_settings_grows_less_than_250_mib() -> None:
    # A fresh process, so its peak RSS is the move's alone.
    finished = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=240, check=True
    )
    answer = json.loads(finished.stdout.splitlines()[-1])
    assert answer["made"] == A_YEAR
    assert answer["kept"] == Settings().max_records == 100_000
    assert 95_000 <= answer["history"] <= 100_000
    assert answer["grew_mib"] < 250, answer


def test_a_move_by_steps_holds_what_one_move_keeps() -> None:
    with Emulator(start=START, max_records=100) as emu:
        every_minute(emu)
        emu.clock.advance_to_next(200)
        gc.collect()
        tracemalloc.start()
        try:
            made = emu.clock.advance_to_next(10_000)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert (made.attempts_made, len(made)) == (10_000, 100)
        assert made[-1].scheduled_time.isoformat() == "2026-03-08T11:59:00+00:00"
        # Holding every step's attempts until the end took 13 MiB; holding 100 takes 2.
        assert peak < 6 * 2**20, peak


@pytest.mark.parametrize("n", [10**30, 100_001])
def test_too_many_steps_are_refused_at_once(n: int) -> None:
    with Emulator(start=START) as emu:
        every_minute(emu)
        began = time.monotonic()
        with pytest.raises(ValueError, match="expected a whole number from 1 to 100000"):
            emu.clock.advance_to_next(n)
        assert time.monotonic() - began < 1
        assert emu.clock.now().isoformat() == "2026-03-01T10:00:00+00:00"
        assert emu.attempts() == []
