"""The stress suites' pacing: every step of the clock is crossed by the calls it promised, and
a run that does less fails with its figures."""

from __future__ import annotations

import random
import threading

import pytest

from tests.stress.pacing import run_in_step


def test_each_step_is_crossed_by_every_workers_calls_for_it() -> None:
    made: list[int] = []
    lock = threading.Lock()

    def call(rng: random.Random) -> str:
        with lock:
            made.append(1)
        return rng.choice(("a", "b"))

    seen_at_moves: list[int] = []

    def move() -> None:
        with lock:
            seen_at_moves.append(len(made))

    pace = run_in_step([call] * 3, move, steps=50, calls_per_step=2)
    pace.check()
    assert (pace.calls_done, pace.steps_done, len(made)) == (300, 50, 300)
    assert sum(pace.by_label.values()) == 300
    # When step k begins, the calls of the steps before it are all made, and none past its own.
    for step, seen in enumerate(seen_at_moves):
        assert step * 6 <= seen <= (step + 1) * 6


def test_a_worker_that_raises_fails_the_run_with_its_figures() -> None:
    def call(rng: random.Random) -> str:
        if rng.random() < 0.05:
            raise RuntimeError("the service answered 500")
        return "ok"

    pace = run_in_step([call] * 2, lambda: None, steps=200)
    with pytest.raises(AssertionError, match=r"a worker raised after \d+ of 400 calls") as failed:
        pace.check()
    assert "the service answered 500" in str(failed.value)
    assert pace.steps_done < 200


def test_a_stalled_run_stops_within_its_time_and_fails_with_its_figures() -> None:
    release = threading.Event()

    def call(rng: random.Random) -> str:
        release.wait()  # a call that never answers
        return "stuck"

    try:
        pace = run_in_step([call] * 2, lambda: None, steps=10, within=0.5)
    finally:
        release.set()
    shortfall = r"less than it set out to \(it stops after 0 s\): 0 of 20 calls"
    with pytest.raises(AssertionError, match=shortfall):
        pace.check()
    assert 0.5 <= pace.elapsed < 5
    assert (pace.calls_done, pace.steps_done) == (0, 0)
