"""The engine against croniter 7.0.0 on the cron subset both understand, in UTC.

Each case is an AWS expression and its croniter translation:

* fields become croniter's 7-field ``minute hour dom month dow second year`` form, with
  second 0 and AWS's ``?`` as ``*`` (so croniter's OR of the two day fields never applies);
* day-of-week numbers drop by one (AWS 1 = SUN ... 7 = SAT, croniter 0 = SUN ... 6 = SAT),
  a bare ``L`` becomes ``6``, ``nL`` becomes ``L<n-1>`` and ``n#k`` becomes ``<n-1>#k``;
* names become numbers, and leading zeros go.

Known differences, kept out of the comparison on purpose:

1. croniter reads ``n-n`` as ``*`` (``5-5`` fires every minute); AWS reads it as n. The
   translation writes ``n``.
2. croniter restarts a wrapping stepped range one value late: ``55-54/13`` gives 55, 9,
   22, 35, 48 where Quartz-style cron, which AWS follows, gives 55, 8, 21, 34, 47. The
   translation gives croniter the two halves as plain ranges, ``55,8-47/13``.
3. croniter moves an ``nW`` beyond the month's length back to the month's last day; AWS
   matches nothing in that month. Cases use n <= 28.
4. croniter has no ``LW``; cases never use it.
5. croniter's years end at 2099 (an explicit year field cannot name later ones and stops
   there), while AWS's end at 2199 and the engine stops after that. Year values stay in
   2000-2099; occurrences are compared up to the end of 2099 when the year field is
   explicit, and up to the end of 2199 when it is ``*``, where croniter runs on.
6. croniter gives up after 50 years without a match by default; the oracle is asked for
   300.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from croniter import CroniterBadDateError, croniter
from hypothesis import HealthCheck, given, settings

from pytest_schedemu.expressions import timeline
from tests.helpers import examples

from .strategies import Case, shared_cases_with_base

UTC = timezone.utc
CREATED = datetime(2026, 1, 1, tzinfo=UTC)
OCCURRENCES = 5
# Cheap examples: ten times the profile's number, 10,000 in the thorough run.
EXPRESSIONS = examples(10)
_END_OF_2099 = int(datetime(2100, 1, 1, tzinfo=UTC).timestamp())
_END_OF_2199 = int(datetime(2200, 1, 1, tzinfo=UTC).timestamp())


def ours(case: Case, base: int) -> list[int]:
    line = timeline(case.aws, created_at=CREATED)
    found: list[int] = []
    after = base
    while len(found) < OCCURRENCES:
        following = line.next_after_epoch(after)
        if following is None:
            break
        found.append(following)
        after = following
    return found


def theirs(case: Case, base: int) -> list[int]:
    assert case.croniter is not None
    oracle = croniter(
        case.croniter, datetime.fromtimestamp(base, UTC), max_years_between_matches=300
    )
    found: list[int] = []
    while len(found) < OCCURRENCES:
        try:
            found.append(int(oracle.get_next(float)))
        except CroniterBadDateError:
            break
    return found


# Hypothesis runs inside the test, out of its plugin's sight: marked here for `-m hypothesis`.
@pytest.mark.hypothesis
def test_engine_agrees_with_croniter_on_the_shared_subset() -> None:
    seen: set[str] = set()

    @settings(
        max_examples=EXPRESSIONS + EXPRESSIONS // 20,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(shared_cases_with_base())
    def agree(case_and_base: tuple[Case, int]) -> None:
        case, base = case_and_base
        seen.add(case.aws)
        cutoff = _END_OF_2199 if case.croniter and case.croniter.endswith(" 0 *") else _END_OF_2099
        expected = [t for t in theirs(case, base) if t < cutoff]
        assert [t for t in ours(case, base) if t < cutoff] == expected, (case, base)

    agree()
    assert len(seen) >= EXPRESSIONS
