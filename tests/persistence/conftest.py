from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.persistence.lives import Lives


@pytest.fixture
def lives(tmp_path: Path) -> Iterator[Lives]:
    life = Lives(tmp_path / "state.db")
    yield life
    life.close()
