"""The handler runner replaced by ``doubles.Handlers`` in every test of this folder."""

from __future__ import annotations

import pytest

from pytest_schedemu.functions import runner
from tests.functions_async.doubles import Handlers


@pytest.fixture
def handlers(monkeypatch: pytest.MonkeyPatch) -> Handlers:
    made = Handlers()
    monkeypatch.setattr(runner, "run_handler", made)
    return made
