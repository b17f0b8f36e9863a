"""Which function's handler the current thread is running, if any: what the interception
reads to keep a handler's requests from leaving the process."""

from __future__ import annotations

import contextvars

#: The name of the function whose handler runs in this context; None outside a call.
RUNNING_FUNCTION: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "schedemu_running_function", default=None
)


def running_function() -> str | None:
    return RUNNING_FUNCTION.get()
