"""The emulator's own event loop, where coroutine handlers are awaited outside async moves.

A coroutine handler (``async def``) made to attempt by a sync clock move, a move over the
control API or a real-time delivery thread has no running loop to be awaited in. One loop
per emulator, in a thread of its own, serves them all, rather than one loop per delivery
thread:

- what a handler keeps between deliveries (an ``asyncio.Queue``, an aiobotocore client, a
  task it started) is bound to the loop it was made in, and stays usable only if every
  delivery runs in that same loop, whichever thread made the attempt (the test's, the
  server's, any of the real-time workers);
- a sync move called from async code (a thread whose loop is running) cannot run a loop of
  its own in that thread, and real-time workers deliver at once, which one loop run from
  several threads cannot do; a loop in its own thread takes coroutines from any thread.

The thread starts at the first coroutine handler's attempt, so an emulator without one
costs nothing. The caller waits for the coroutine to end, so a virtual clock's deliveries
keep their order, but no longer than its deadline (``delivery_timeout``): then the
coroutine is cancelled and the caller told (``handlers.Unanswered``). ``close``
(``Emulator.stop``) cancels the coroutines under way and what handlers left running on the
loop, and closes it; their callers are told the emulator stopped. A later coroutine handler
starts a new loop.

A coroutine that blocks the loop's thread (``time.sleep`` where it should await) cannot be
cancelled until it returns: its caller still stops waiting at the deadline, and ``close``
waits for the thread no longer than its own bound. Such a thread is left to end by itself:
the loop's stop is queued behind the blocking call, so the thread ends as soon as it
returns, and a later coroutine handler gets a loop of its own meanwhile.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from concurrent.futures import CancelledError as FutureCancelled
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, TypeVar

from pytest_schedemu.delivery.handlers import Unanswered

T = TypeVar("T")


class HandlerLoop:
    """One event loop in a daemon thread, started when first needed, behind its own lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float) -> T:
        """Await ``coroutine`` in the loop and return its result, or raise its exception;
        ``Unanswered`` once ``timeout`` seconds pass, or when ``close`` cancels it."""
        future = asyncio.run_coroutine_threadsafe(coroutine, self._running_loop())
        try:
            return future.result(timeout)
        except FutureTimeout:
            if future.done():  # the coroutine itself raised TimeoutError
                raise
            future.cancel()
            raise Unanswered() from None
        except FutureCancelled:
            # Only ``close`` cancels what the loop runs: the emulator is stopping.
            raise Unanswered(stopped=True) from None
        except BaseException:
            # The caller was interrupted (KeyboardInterrupt): the attempt is made again
            # later, so this call of the handler must not carry on meanwhile.
            future.cancel()
            raise

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(
                    target=_serve, args=(loop,), name="schedemu-handlers", daemon=True
                )
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    def close(self, timeout: float) -> None:
        """Stop the loop, cancel the tasks handlers left on it, and wait up to ``timeout``
        seconds for its thread to end. Harmless when no loop was started."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None:
            return
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout)


def _serve(loop: asyncio.AbstractEventLoop) -> None:
    asyncio.set_event_loop(loop)
    try:
        loop.run_forever()
    finally:
        # Tasks a handler started and left running end with the emulator, so that closing
        # the loop does not leave them pending (and warned about).
        left = asyncio.all_tasks(loop)
        for task in left:
            task.cancel()
        loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()
