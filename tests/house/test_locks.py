"""Each shared structure takes its own lock for every read and write.

The threaded scenarios are repeated, as races show only now and then: a structure that
wrote outside its lock fails some repetition with a lost record, a torn rule or an
injected error used more often than asked.
"""

from __future__ import annotations

import threading
from typing import Callable

import pytest

from pytest_schedemu.delivery.backends import Outcome
from pytest_schedemu.delivery.steering import TargetControl, TargetControls
from pytest_schedemu.errors import ThrottlingException
from pytest_schedemu.formats.times import EPOCH
from pytest_schedemu.protocol.faults import ApiErrorInjections, ServerError, ServerErrors
from pytest_schedemu.records import Activity, History

REPEATS = 15
THREADS = 8


def run_together(work: Callable[[int], None], threads: int = THREADS) -> None:
    barrier = threading.Barrier(threads)
    failures: list[BaseException] = []

    def body(index: int) -> None:
        barrier.wait()
        try:
            work(index)
        except BaseException as error:
            failures.append(error)

    workers = [threading.Thread(target=body, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert failures == []


@pytest.mark.parametrize("repeat", range(REPEATS))
def test_history_keeps_every_record_written_from_many_threads(repeat: int) -> None:
    history = History()
    seen: list[int] = []

    def work(index: int) -> None:
        for n in range(500):
            history.add_activity(Activity("dropped", EPOCH, f"s{index}", detail=str(n)))
            if n % 50 == 0:
                seen.append(len(history.activity()))

    run_together(work)
    assert len(history.activity()) == THREADS * 500
    assert seen  # readers ran alongside the writers


@pytest.mark.parametrize("repeat", range(REPEATS))
def test_history_counts_what_the_cap_drops_from_many_threads(repeat: int) -> None:
    history = History(max_records=lambda: 100)

    def work(index: int) -> None:
        for _ in range(300):
            history.add_activity(Activity("dropped", EPOCH, f"s{index}"))

    run_together(work)
    assert len(history.activity()) + history.dropped_records.activity == THREADS * 300


@pytest.mark.parametrize("repeat", range(REPEATS))
def test_a_rule_is_never_seen_half_changed(repeat: int) -> None:
    controls = TargetControls()
    target = TargetControl(controls, "arn:t", lambda key: [])
    outcomes: list[Outcome | None] = []

    def work(index: int) -> None:
        for n in range(300):
            if index % 2:
                target.fail(error_code=f"E{index}-{n}", message=f"M{index}-{n}")
            else:
                outcomes.append(controls.steer(("arn:t",), None, lambda: None))

    run_together(work)
    torn = [o for o in outcomes if o is not None and o.code[1:] != (o.message or "")[1:]]
    assert torn == []


@pytest.mark.parametrize("repeat", range(REPEATS))
def test_a_limited_failure_fails_exactly_that_many_attempts(repeat: int) -> None:
    controls = TargetControls()
    TargetControl(controls, "arn:t", lambda key: []).fail(times=500)
    failed: list[bool] = []

    def work(index: int) -> None:
        for _ in range(200):
            outcome = controls.steer(("arn:t",), None, lambda: None)
            failed.append(outcome is not None and not outcome.ok)

    run_together(work)
    assert sum(failed) == 500


@pytest.mark.parametrize("repeat", range(REPEATS))
def test_an_injected_error_is_used_exactly_as_often_as_asked(repeat: int) -> None:
    injections = ApiErrorInjections(["ListSchedules"])
    injections.add("ListSchedules", "ThrottlingException", "slow down", 300)
    raised: list[int] = []

    def work(index: int) -> None:
        for _ in range(100):
            try:
                injections.raise_for("ListSchedules")
            except ThrottlingException:
                raised.append(index)

    run_together(work)
    assert len(raised) == 300


@pytest.mark.parametrize("repeat", range(REPEATS))
def test_server_errors_recorded_from_many_threads_are_all_kept(repeat: int) -> None:
    errors = ServerErrors()

    def work(index: int) -> None:
        for n in range(200):
            errors.record(ServerError("GET", f"/{index}/{n}", None, ValueError(), ""))
            errors.list()

    run_together(work)
    assert len(errors.list()) == THREADS * 200
