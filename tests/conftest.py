"""What every test shares: the network guard, the Hypothesis profiles and the session's
emulator.

The constants and helpers tests import live in plain modules, ``tests/constants.py`` and
``tests/helpers.py``: pytest imports a conftest under rules of its own, so no test imports
from one.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import settings

from pytest_schedemu import Emulator
from tests.constants import START

# -- the network guard: no test reaches further than this machine --------------------------

pytest_plugins = ["tests._network_guard"]


@pytest.fixture
def pytester(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """pytester, whose runs are guarded too, in this process or in a new one."""
    from tests._network_guard import guarding  # here: the plugin's import rewrites its asserts

    return guarding(pytester, monkeypatch)


# -- end of the network guard --------------------------------------------------------------


# -- Hypothesis profiles ---------------------------------------------------------------------
# The default suite draws a modest number of examples; "thorough", which the CI's hardening
# run selects (HYPOTHESIS_PROFILE=thorough, or pytest --hypothesis-profile=thorough), draws
# ten times as many. Neither has a deadline: on a loaded machine a slow example would fail a
# test that is right, and no test may depend on timing.
settings.register_profile("default", max_examples=100, deadline=None)
settings.register_profile("thorough", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


# -- The session's emulator ------------------------------------------------------------------
@pytest.fixture(scope="session")
def session_emulator(request: pytest.FixtureRequest) -> Iterator[Emulator]:
    """One emulator for the session, in process; a folder that parametrizes this fixture
    indirectly with transports (``tests/api``) gets one per transport."""
    transport = getattr(request, "param", "inprocess")
    with Emulator(start=START, transport=transport) as emulator:
        yield emulator


@pytest.fixture
def emu(session_emulator: Emulator) -> Emulator:
    """The session's emulator, emptied, its settings its own, its clock at ``START``."""
    session_emulator.reset(start=START)
    return session_emulator


@pytest.fixture
def client(emu: Emulator) -> Any:
    """The emulator's own Scheduler client (built once, reused)."""
    return emu.client()
