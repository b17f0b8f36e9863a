"""The CDK example app, synthesised once per session with the real aws-cdk-lib."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

CDK_APP = Path(__file__).resolve().parents[2] / "examples" / "stacks" / "cdk"


def _run(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
    done = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    if done.returncode != 0:
        pytest.fail(f"{' '.join(command)} failed in {cwd}:\n{done.stdout}\n{done.stderr}")


@pytest.fixture(scope="session")
def cdk_assembly(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The cloud assembly of examples/stacks/cdk/app.js, as ``cdk synth`` would write it.

    Without node and npm this fails rather than skips: the CDK reading is tested on what
    CDK really writes, and CI has both.
    """
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.fail("the CDK tests need node and npm on the PATH to synthesise examples/stacks/cdk")
    if not (CDK_APP / "node_modules" / "aws-cdk-lib").is_dir():
        _run([npm, "ci", "--no-audit", "--no-fund"], CDK_APP)
    outdir = tmp_path_factory.mktemp("cdk.out")
    # aws-cdk-lib's App writes its assembly where CDK_OUTDIR points (as the cdk CLI sets it).
    _run([node, "app.js"], CDK_APP, env={**os.environ, "CDK_OUTDIR": str(outdir)})
    return outdir
