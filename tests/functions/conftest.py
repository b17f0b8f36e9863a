"""The functions' CDK app (tests/functions/cdk/app.js), synthesised once per session with
the real aws-cdk-lib."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.stacks.building import synthesise

FUNCTIONS_APP = Path(__file__).parent / "cdk"


@pytest.fixture(scope="session")
def payments_assembly(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The cloud assembly of its Payments stack."""
    return synthesise(FUNCTIONS_APP, tmp_path_factory.mktemp("payments.out"))
