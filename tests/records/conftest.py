"""The records tests share the dispatch tests' emulator and helpers."""

from tests.dispatch.conftest import (  # noqa: F401 - fixtures are found by name
    DLQ,
    FUNCTION,
    QUEUE,
    ROLE,
    START,
    _client,
    client,
    create,
    emu,
    session_emulator,
)
