"""The CDK app of the eight IAM cases (tests/iam_stacks/cdk/app.js), synthesised once per
session with the real aws-cdk-lib."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.stacks.building import synthesise

IAM_CASES_APP = Path(__file__).parent / "cdk"


@pytest.fixture(scope="session")
def iam_assembly(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The cloud assembly of its three stacks: Permissions, LambdaTrust, ForeignTrust."""
    return synthesise(IAM_CASES_APP, tmp_path_factory.mktemp("iam.out"))
