"""A test's target handlers: what their attempts come to, and the bugs they raise.

A handler that returns delivers its attempt; one that raises ``DeliveryError`` fails it
with the outcome the error names. A coroutine handler (``async def``) comes to the same once
awaited (``CoroutineCall``). Anything else it raises is a bug in the test, never a
delivery failure, so it is never retried in silence: the attempt is recorded as failed for
good (``HANDLER_ERROR``), and the bug comes back to the test as ``HandlerError``. The clock
move that made the attempt raises it; where no test waits on the move (the delivery
threads of a real-time clock, a move asked for over HTTP) ``HandlerErrors`` keeps it for
the pytest plugin to fail the test at teardown, and logs it for a service.

A handler that does not answer within ``delivery_timeout`` is not a bug: its attempt fails
retryably (``Unanswered``, ``TIMEOUT_CODE``), as a target's that does not answer in time.
"""

from __future__ import annotations

import inspect
import logging
import threading
import traceback
from collections.abc import Awaitable
from typing import Any, Callable

from pytest_schedemu.delivery.backends import OK, Outcome
from pytest_schedemu.errors import DeliveryError, HandlerError
from pytest_schedemu.formats.times import ztime

logger = logging.getLogger("pytest_schedemu.delivery")

Handler = Callable[[Any], Any]

#: The error code of an attempt whose handler raised something other than DeliveryError.
HANDLER_ERROR = "HandlerError"

#: The error code of an attempt that did not end within ``delivery_timeout``: a handler's,
#: a real-time delivery's.
TIMEOUT_CODE = "DeliveryTimeout"


def run_handler(handler: Handler, attempt: Any) -> Outcome | CoroutineCall:
    """The outcome of ``handler(attempt)``; a bug in the handler raises ``HandlerError``.

    A coroutine handler (one whose call returns an awaitable) has no outcome yet: its call
    is returned, for the dispatcher to await (``CoroutineCall``). ``attempt`` is the record
    the handler receives; KeyboardInterrupt, SystemExit and pytest's own outcomes
    (``pytest.fail``…) pass through untouched.
    """
    try:
        result = handler(attempt)
    except DeliveryError as error:
        return _failure(error)
    except Exception as error:
        raise _bug(attempt, error) from error
    if inspect.isawaitable(result):
        return CoroutineCall(result, attempt)
    return OK


class CoroutineCall:
    """A coroutine handler's call, to be awaited: in the running event loop of an async
    clock move, else in the emulator's own (``handler_loop.HandlerLoop``)."""

    def __init__(self, awaitable: Awaitable[Any], attempt: Any) -> None:
        self._awaitable = awaitable
        self._attempt = attempt

    async def outcome(self) -> Outcome:
        """What a sync handler's return or raise would come to, awaited."""
        try:
            await self._awaitable
        except DeliveryError as error:
            return _failure(error)
        except Exception as error:
            raise _bug(self._attempt, error) from error
        return OK


def _failure(error: DeliveryError) -> Outcome:
    return Outcome.failure(error.code, error.message, error.retryable)


def _bug(attempt: Any, error: Exception) -> HandlerError:
    # The traceback starts in the handler: the frame that caught the error says nothing.
    frames = error.__traceback__.tb_next if error.__traceback__ is not None else None
    raised = _raised(error).splitlines()[0]
    return HandlerError(
        f"The handler of {attempt.target_arn} raised {raised} (attempt "
        f"{attempt.attempt_number} of schedule {attempt.group_name}/{attempt.schedule_name}, "
        f"scheduled at {ztime(attempt.scheduled_time)}). The attempt is recorded as failed "
        f"({HANDLER_ERROR}) and not retried; a handler fails an attempt on purpose by raising "
        "DeliveryError.",
        handler_traceback="".join(traceback.format_exception(type(error), error, frames)),
    )


def _raised(error: BaseException) -> str:
    """``NameError: name 'x' is not defined``: the exception as its traceback ends."""
    return traceback.format_exception_only(type(error), error)[-1].strip()


class HandlerCall:
    """A sync handler's call on one attempt, not made yet: the dispatcher chooses the thread
    it runs in."""

    def __init__(self, handler: Handler, attempt: Any) -> None:
        self.handler = handler
        self.attempt = attempt

    @property
    def makes_coroutine(self) -> bool:
        """Whether the call only makes a coroutine, running none of the handler's code."""
        return inspect.iscoroutinefunction(self.handler)

    def run(self) -> Outcome | CoroutineCall:
        return run_handler(self.handler, self.attempt)


class Unanswered(Exception):
    """A handler that did not answer: past its deadline, or cut off by ``Emulator.stop``.

    Not a bug in the test's handler (a slow or stuck target is what a deadline is for), so
    its attempt fails retryably, as a target that does not answer in time does."""

    def __init__(self, stopped: bool = False) -> None:
        super().__init__()
        self.stopped = stopped

    def outcome(self, timeout: float) -> Outcome:
        if self.stopped:
            message = "The emulator stopped before the handler answered"
        else:
            message = f"The handler did not answer within {timeout:g} seconds"
        logger.warning("%s: the attempt failed (%s), to be retried", message, TIMEOUT_CODE)
        return Outcome.failure(TIMEOUT_CODE, message, True)


def failed_attempt(error: HandlerError) -> Outcome:
    """What an attempt whose handler had a bug is recorded as: failed, and not retried."""
    return Outcome.failure(HANDLER_ERROR, _raised(error.__cause__ or error), False)


class HandlerErrors:
    """The handler bugs that no test could see raised, oldest first, until the next reset."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._errors: list[HandlerError] = []

    def keep(self, error: HandlerError) -> None:
        with self._lock:
            self._errors.append(error)
        logger.error("%s", error.report())

    def list(self) -> list[HandlerError]:
        with self._lock:
            return list(self._errors)

    def clear(self) -> None:
        with self._lock:
            self._errors.clear()
