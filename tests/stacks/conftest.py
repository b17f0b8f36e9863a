"""The CDK example app, synthesised once per session with the real aws-cdk-lib."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.stacks.building import EXAMPLE_CDK_APP, synthesise


@pytest.fixture(scope="session")
def cdk_assembly(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The cloud assembly of examples/stacks/cdk/app.js, as ``cdk synth`` would write it.

    Without node and npm this fails rather than skips: the CDK reading is tested on what
    CDK really writes, and CI has both.
    """
    return synthesise(EXAMPLE_CDK_APP, tmp_path_factory.mktemp("cdk.out"))
