"""The emulator's handler thread, where a clock move runs sync handlers with a deadline.

Python cannot interrupt a call that blocks (a lock, a socket, ``time.sleep``), so a move
that ran a sync handler in its own thread would wait as long as the handler blocks. A move
hands the call to this thread instead and waits at most ``delivery_timeout`` for it: one
call at a time, the move waiting on each, so deliveries keep their order. The call runs in
a copy of the mover's context, so it is inside its delivery (the clock refuses to move from
it) and sees the test's context variables.

A call that outlives its deadline keeps the thread: the thread is abandoned, to end as
soon as that call returns, and the next call starts a fresh one. ``close``
(``Emulator.stop``) ends an idle thread and waits a bounded time for a busy one; it
cannot end a call that never returns, so such a thread (a daemon) lives until it does.
"""

from __future__ import annotations

import contextvars
import queue
import threading
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, Callable, TypeVar

from pytest_schedemu.delivery.handlers import Unanswered

T = TypeVar("T")

_Work = tuple["Future[Any]", Callable[[], Any], contextvars.Context]


class HandlerThread:
    """One daemon thread running sync handler calls, started when first needed."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._worker: _Worker | None = None

    def run(self, call: Callable[[], T], timeout: float | None) -> T:
        """``call()``'s result or exception, from the handler thread; ``Unanswered`` if it
        has not ended within ``timeout`` seconds (None: no limit)."""
        with self._lock:
            worker = self._worker
            if worker is None:
                worker = self._worker = _Worker()
        future: Future[T] = Future()
        worker.jobs.put((future, call, contextvars.copy_context()))
        try:
            return future.result(timeout)
        except FutureTimeout:
            if future.done():  # the call itself raised TimeoutError
                raise
            self._abandon(worker)
            raise Unanswered() from None
        except BaseException:
            if not future.done():
                # The mover was interrupted (KeyboardInterrupt): the attempt is made again
                # later, and this thread is left to the call that is still running.
                self._abandon(worker)
            raise

    def _abandon(self, worker: _Worker) -> None:
        with self._lock:
            if self._worker is worker:
                self._worker = None
        worker.jobs.put(None)

    def close(self, timeout: float) -> None:
        """End the thread, waiting up to ``timeout`` seconds for a call under way."""
        with self._lock:
            worker, self._worker = self._worker, None
        if worker is None:
            return
        worker.jobs.put(None)
        worker.thread.join(timeout)


class _Worker:
    def __init__(self) -> None:
        self.jobs: queue.SimpleQueue[_Work | None] = queue.SimpleQueue()
        self.thread = threading.Thread(
            target=_serve, args=(self.jobs,), name="schedemu-handler-calls", daemon=True
        )
        self.thread.start()


def _serve(jobs: queue.SimpleQueue[_Work | None]) -> None:
    while True:
        work = jobs.get()
        if work is None:
            return
        _answer(*work)
        del work


def _answer(future: Future[Any], call: Callable[[], Any], context: contextvars.Context) -> None:
    # A frame of its own, not inlined in _serve: freezegun reads the real time for code
    # called from ``threading`` within five frames, so a handler's ``time.time()`` must sit
    # deeper than that above the thread's start (handler, run_handler, HandlerCall.run,
    # _answer, _serve) to read the frozen one, as in the mover's thread.
    try:
        result = context.run(call)
    except BaseException as error:  # a handler's SystemExit is the mover's to raise
        future.set_exception(error)
    else:
        future.set_result(result)
