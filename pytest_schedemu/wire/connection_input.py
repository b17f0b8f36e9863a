"""What the server reads from a connection: by a deadline, and with the headers bounded.

A timeout per read lets a client that sends a byte just before each read would time out
keep its connection, and its thread and slot, for as long as it likes: 260 of them held
every slot of a service. So a connection gets ``connection_timeout`` seconds in all, from
its acceptance to the last byte of its request's body, whatever it sends meanwhile; each
read waits only for what is left of them. The server answers one request per connection
(Werkzeug closes it after each answer), so that one deadline also bounds an idle
connection.

http.server bounds each header line to 65,536 bytes and their number to 100, which lets one
request hold 6.5 MB of headers; ``RequestReader`` bounds the request line and the headers
together to ``MAX_HEADER_BYTES``, about what AWS's front ends accept.
"""

from __future__ import annotations

import io
import socket
import time
from typing import Any

#: The request line and every header together, in bytes.
MAX_HEADER_BYTES = 65_536


class HeadersTooLarge(Exception):
    """The request line and headers came to more than ``MAX_HEADER_BYTES``.

    Not an ``http.client.HTTPException``, which http.server would answer itself.
    """

    def __init__(self) -> None:
        super().__init__(
            f"The request line and headers come to more than {MAX_HEADER_BYTES:,} bytes. "
            "Send fewer or shorter headers."
        )


class DeadlineInput(io.RawIOBase):
    """A connection's input, every read of which ends by one deadline."""

    def __init__(self, connection: socket.socket, timeout: float) -> None:
        super().__init__()
        self._connection = connection
        self._timeout = timeout
        self._deadline = time.monotonic() + timeout
        self._longest_wait = timeout

    def readable(self) -> bool:
        return True

    def answered(self, pause: float) -> None:
        """The request is answered: a read now waits ``pause`` at most for input still
        on its way, which the server reads only to drop."""
        self._longest_wait = pause

    def readinto(self, buffer: Any) -> int:
        remaining = self._deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("the request did not arrive within the connection timeout")
        self._connection.settimeout(min(remaining, self._longest_wait))
        try:
            return self._connection.recv_into(buffer)
        finally:
            # Writing the answer may take the connection's whole timeout, whatever is left
            # of the request's.
            self._connection.settimeout(self._timeout)


class RequestReader(io.BufferedReader):
    """The buffered request stream, whose lines count against a budget while the request
    line and headers are read."""

    def __init__(self, raw: DeadlineInput) -> None:
        super().__init__(raw)
        self._budget: int | None = None

    def count_headers(self, used: int) -> None:
        """Count every line read from now on, ``used`` bytes (the request line) already
        spent."""
        self._budget = MAX_HEADER_BYTES - used

    def headers_read(self) -> None:
        self._budget = None

    def readline(self, size: int | None = -1) -> bytes:
        budget = self._budget
        if budget is None:
            return super().readline(size)
        if budget < 0:
            raise HeadersTooLarge()
        wanted = budget + 1 if size is None or size < 0 else min(size, budget + 1)
        line = super().readline(wanted)
        self._budget = budget - len(line)
        if self._budget < 0:
            raise HeadersTooLarge()
        return line
