"""A CDK assembly is read only inside itself: every file its manifest names resolves inside
the assembly's directory, is a regular file, and is read up to a limit; anything else is a
StackError naming the manifest, the name and why, before the file is opened."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_schedemu import Emulator, StackError
from pytest_schedemu.stacks.assembly import FILE_LIMIT

LOGICAL_ID = "ChargeQueueAB12CD34"
TEMPLATE = {"Resources": {LOGICAL_ID: {"Type": "AWS::SQS::Queue"}}}
METADATA = {"/Billing/ChargeQueue/Resource": [{"type": "aws:cdk:logicalId", "data": LOGICAL_ID}]}
# Enough steps up to reach the root from any temporary directory.
UP_TO_ROOT = "../" * 40


def _assembly(root: Path) -> Path:
    """A one-stack assembly as CDK writes it: the template and the metadata in files of
    their own, beside the manifest that names them."""
    assembly = root / "cdk.out"
    assembly.mkdir()
    (assembly / "Billing.template.json").write_text(json.dumps(TEMPLATE))
    (assembly / "Billing.metadata.json").write_text(json.dumps(METADATA))
    _name(assembly, "templateFile", "Billing.template.json")
    _name(assembly, "additionalMetadataFile", "Billing.metadata.json")
    return assembly


def _name(assembly: Path, field: str, named: str) -> None:
    """The manifest of ``assembly`` with its stack's ``field`` naming ``named``."""
    manifest_path = assembly / "manifest.json"
    if manifest_path.exists():
        manifest = json.loads(manifest_path.read_text())
    else:
        manifest = {
            "version": "36.0.0",
            "artifacts": {
                "Billing": {
                    "type": "aws:cloudformation:stack",
                    "environment": "aws://unknown-account/unknown-region",
                    "properties": {},
                }
            },
        }
    artifact = manifest["artifacts"]["Billing"]
    (artifact["properties"] if field == "templateFile" else artifact)[field] = named
    manifest_path.write_text(json.dumps(manifest))


def _outside(assembly: Path) -> Path:
    """A valid template beside the assembly, that it may not read."""
    path = assembly.parent / "outside.json"
    path.write_text(json.dumps(TEMPLATE))
    return path


def _dev_zero(assembly: Path, field: str) -> tuple[str, str]:
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero here")
    return "/dev/zero", "is outside the assembly: an absolute path"


def _absolute(assembly: Path, field: str) -> tuple[str, str]:
    return str(_outside(assembly)), "is outside the assembly: an absolute path"


def _passwd(assembly: Path, field: str) -> tuple[str, str]:
    named = UP_TO_ROOT + "etc/passwd"
    return named, f"is outside the assembly {assembly}: it leads to {Path('/etc/passwd').resolve()}"


def _dot_dot(assembly: Path, field: str) -> tuple[str, str]:
    outside = _outside(assembly).resolve()
    return "../outside.json", f"is outside the assembly {assembly}: it leads to {outside}"


def _symlink_out(assembly: Path, field: str) -> tuple[str, str]:
    outside = _outside(assembly).resolve()
    (assembly / "linked.json").symlink_to(outside)
    return "linked.json", f"is outside the assembly {assembly}: it leads to {outside}"


def _fifo(assembly: Path, field: str) -> tuple[str, str]:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no fifos here")
    os.mkfifo(assembly / "waiting.json")
    return "waiting.json", "not a regular file: it is a fifo"


def _directory(assembly: Path, field: str) -> tuple[str, str]:
    (assembly / "templates").mkdir()
    return "templates", "not a regular file: it is a directory"


def _oversized(assembly: Path, field: str) -> tuple[str, str]:
    content = json.dumps(METADATA)
    (assembly / "big.json").write_text(content + " " * (FILE_LIMIT + 1 - len(content)))
    return "big.json", f"too large: over the limit of 16 MiB ({FILE_LIMIT:,} bytes)"


#: Each way a manifest can name a file the assembly may not read: the name it gives and
#: the reason the error states.
BREAKS: dict[str, Callable[[Path, str], tuple[str, str]]] = {
    "/dev/zero": _dev_zero,
    "an absolute path": _absolute,
    "../../etc/passwd": _passwd,
    "a .. out": _dot_dot,
    "a symlink out": _symlink_out,
    "a fifo": _fifo,
    "a directory": _directory,
    "an oversized file": _oversized,
}
CASES = [
    pytest.param(field, make, id=f"{field}: {name}")
    for field in ("templateFile", "additionalMetadataFile")
    for name, make in BREAKS.items()
    # A template's size is bounded as every template's is (tests/stacks/test_bounds.py).
    if (field, make) != ("templateFile", _oversized)
]


def _broken(tmp_path: Path, field: str, make: Callable[[Path, str], tuple[str, str]]) -> Any:
    """An assembly whose ``field`` names what ``make`` made, and the message expected."""
    assembly = _assembly(tmp_path)
    named, reason = make(assembly, field)
    _name(assembly, field, named)
    return assembly, f"{assembly / 'manifest.json'}: {field} {named!r}", reason


# A fifo the loader opened would wait for a writer: the test fails instead of waiting.
@pytest.mark.timeout(30)
@pytest.mark.parametrize(("field", "make"), CASES)
def test_a_file_the_assembly_may_not_read_fails_the_load_naming_it(
    emu: Emulator, tmp_path: Path, field: str, make: Callable[[Path, str], tuple[str, str]]
) -> None:
    assembly, named, reason = _broken(tmp_path, field, make)
    with pytest.raises(StackError) as error:
        emu.load_stack(assembly)
    message = str(error.value)
    assert message.startswith(named), message
    assert reason in message
    assert emu.stacks == []


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("field", "make"), CASES)
def test_serve_stops_with_the_message_and_no_traceback(
    tmp_path: Path, field: str, make: Callable[[Path, str], tuple[str, str]]
) -> None:
    assembly, named, reason = _broken(tmp_path, field, make)
    command = [sys.executable, "-m", "pytest_schedemu", "serve", "--port", "0"]
    done = subprocess.run(
        [*command, "--clock", "virtual", "--stack", str(assembly)],
        capture_output=True,
        text=True,
        timeout=45,
    )
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert f"schedemu: {named}" in done.stderr
    assert reason in done.stderr


def test_links_and_steps_back_that_stay_inside_are_read(emu: Emulator, tmp_path: Path) -> None:
    assembly = _assembly(tmp_path)
    (assembly / "stacks").mkdir()
    (assembly / "Billing.template.json").rename(assembly / "stacks" / "Billing.json")
    (assembly / "Billing.template.json").symlink_to(Path("stacks") / "Billing.json")
    _name(assembly, "additionalMetadataFile", "stacks/../Billing.metadata.json")
    stack = emu.load_stack(assembly)
    assert stack.resolved.resource("ChargeQueue").cdk_path == "Billing/ChargeQueue/Resource"


def test_a_file_of_the_limits_size_is_read(tmp_path: Path, emu: Emulator) -> None:
    assembly = _assembly(tmp_path)
    content = json.dumps(METADATA)
    (assembly / "Billing.metadata.json").write_text(content + " " * (FILE_LIMIT - len(content)))
    stack = emu.load_stack(assembly)
    assert stack.resolved.resource("ChargeQueue").cdk_path == "Billing/ChargeQueue/Resource"


def test_an_assemblys_template_is_bounded_as_every_template_is(
    tmp_path: Path, emu: Emulator
) -> None:
    assembly = _assembly(tmp_path)
    template = assembly / "Billing.template.json"
    content = json.dumps(TEMPLATE)
    template.write_text(content + " " * (1000 - len(content)))
    emu.configure(max_template_bytes=999)
    with pytest.raises(StackError) as error:
        emu.load_stack(assembly)
    assert str(error.value) == (
        f"{template}: the file holds more than 999 bytes "
        "(max_template_bytes=999; the setting max_template_bytes raises it)"
    )


def test_a_manifest_that_is_no_regular_file_is_refused(emu: Emulator, tmp_path: Path) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no fifos here")
    assembly = tmp_path / "cdk.out"
    assembly.mkdir()
    os.mkfifo(assembly / "manifest.json")
    with pytest.raises(StackError) as error:
        emu.load_stack(assembly)
    assert str(error.value) == (f"{assembly / 'manifest.json'}: not a regular file: it is a fifo")


def test_metadata_that_is_no_mapping_is_refused(emu: Emulator, tmp_path: Path) -> None:
    assembly = _assembly(tmp_path)
    (assembly / "Billing.metadata.json").write_text("[1, 2]")
    with pytest.raises(StackError) as error:
        emu.load_stack(assembly)
    assert str(error.value) == (
        f"{assembly / 'manifest.json'}: additionalMetadataFile 'Billing.metadata.json': "
        "not CDK metadata: its top level is not a mapping"
    )
