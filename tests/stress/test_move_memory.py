"""A clock move's memory is what it keeps: a year of a per-minute schedule (525,601
attempts) at ``max_records=1000``, in a fresh process whose peak RSS is read before and
after the move."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

# A year of a per-minute schedule, journaled to SQLite with a state file: 200 s on a busy
# machine.
pytestmark = [pytest.mark.stress, pytest.mark.timeout(900)]

SCRIPT = textwrap.dedent(
    """
    import json, resource
    from pytest_schedemu import Emulator

    with Emulator(start="2026-01-01T00:00:00Z", max_records=1000{extra}) as emu:
        emu.client().create_schedule(
            Name="m", ScheduleExpression="rate(1 minute)", FlexibleTimeWindow={{"Mode": "OFF"}},
            Target={{"Arn": "arn:aws:sqs:us-east-1:123456789012:q",
                     "RoleArn": "arn:aws:iam::123456789012:role/r"}})
        {before_move}
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        made = emu.clock.advance(days=365)
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(json.dumps({{"grew_mib": (after - before) / 1024, "made": made.attempts_made,
                          "kept": len(made)}}))
    """
)


@pytest.mark.parametrize(
    "extra, before_move",
    [("", ""), ("", "emu.debug.play_in_bulk_from(None)"), (", state=STATE", "")],
    ids=["in bulk", "item by item", "with a state file"],
)
def test_a_year_long_move_holds_no_more_than_it_keeps(
    extra: str, before_move: str, tmp_path: object
) -> None:
    script = SCRIPT.format(extra=extra, before_move=before_move).replace(
        "STATE", repr(str(tmp_path) + "/state.db")
    )
    finished = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=900, check=True
    )
    answer = json.loads(finished.stdout.splitlines()[-1])
    assert (answer["made"], answer["kept"]) == (365 * 1440 + 1, 1000)
    assert answer["grew_mib"] < 200, answer
