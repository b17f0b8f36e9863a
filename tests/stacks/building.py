"""Writing a template for a test, and reading it back as a stack; synthesising a CDK app."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pytest_schedemu.stacks import ResolvedStack, read_stack

#: The example CDK app, whose node_modules (aws-cdk-lib, constructs) every CDK app of the
#: tests uses: CI installs them there (``npm ci``) at the versions its lock file pins.
EXAMPLE_CDK_APP = Path(__file__).resolve().parents[2] / "examples" / "stacks" / "cdk"

ACCOUNT = "123456789012"
REGION = "us-east-1"
SEED = 7


def write(directory: Path, template: dict[str, Any] | str, name: str = "template") -> Path:
    """``template`` written into ``directory``: a dict as JSON, a string as YAML."""
    if isinstance(template, str):
        path = directory / f"{name}.yaml"
        path.write_text(template)
    else:
        path = directory / f"{name}.json"
        path.write_text(json.dumps(template))
    return path


def read(directory: Path, template: dict[str, Any] | str, **options: Any) -> ResolvedStack:
    """The stack ``template`` makes, in ``ACCOUNT`` and ``REGION`` unless told otherwise."""
    options = {"account": ACCOUNT, "region": REGION, "seed": SEED, **options}
    return read_stack(write(directory, template), **options)


def resources(**definitions: dict[str, Any]) -> dict[str, Any]:
    """A template of just these resources."""
    return {"Resources": definitions}


def _run(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
    done = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    if done.returncode != 0:
        pytest.fail(f"{' '.join(command)} failed in {cwd}:\n{done.stdout}\n{done.stderr}")


def synthesise(app: Path, outdir: Path) -> Path:
    """The cloud assembly of the CDK app ``app`` (its ``app.js``), written into ``outdir``
    as ``cdk synth`` would write it, with the example app's aws-cdk-lib.

    Without node and npm this fails rather than skips: the CDK reading is tested on what
    CDK really writes, and CI has both.
    """
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.fail(f"the CDK tests need node and npm on the PATH to synthesise {app}")
    modules = EXAMPLE_CDK_APP / "node_modules"
    if not (modules / "aws-cdk-lib").is_dir():
        _run([npm, "ci", "--no-audit", "--no-fund"], EXAMPLE_CDK_APP)
    # aws-cdk-lib's App writes its assembly where CDK_OUTDIR points (as the cdk CLI sets
    # it); NODE_PATH lends an app outside the example the example's packages.
    environment = {**os.environ, "CDK_OUTDIR": str(outdir), "NODE_PATH": str(modules)}
    _run([node, "app.js"], app, env=environment)
    return outdir
