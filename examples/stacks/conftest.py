"""The CDK app of this example, synthesised once per session as ``cdk synth`` would: with
the real aws-cdk-lib (``npm ci`` in ``cdk/``) and node, no AWS account needed."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

CDK_APP = Path(__file__).parent / "cdk"


@pytest.fixture(scope="session")
def billing_assembly(tmp_path_factory: pytest.TempPathFactory) -> Path:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.fail("synthesising the CDK app needs node and npm on the PATH")
    if not (CDK_APP / "node_modules" / "aws-cdk-lib").is_dir():
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=CDK_APP, check=True)
    outdir = tmp_path_factory.mktemp("cdk.out")
    # The App writes its assembly where CDK_OUTDIR points, as the cdk CLI has it do.
    environment = {**os.environ, "CDK_OUTDIR": str(outdir)}
    subprocess.run([node, "app.js"], cwd=CDK_APP, env=environment, check=True)
    return outdir
