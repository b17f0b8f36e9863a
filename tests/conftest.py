"""Shared by every test of the suite."""

from __future__ import annotations

import pytest

# -- the network guard: no test reaches further than this machine --------------------------

pytest_plugins = ["tests._network_guard"]


@pytest.fixture
def pytester(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """pytester, whose runs are guarded too, in this process or in a new one."""
    from tests._network_guard import guarding  # here: the plugin's import rewrites its asserts

    return guarding(pytester, monkeypatch)


# -- end of the network guard --------------------------------------------------------------
