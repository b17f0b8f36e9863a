"""The vendored service models (scheduler, events) and partition table keep up with AWS.

The emulator answers from copies of botocore's files, recorded with the release they come
from (``pytest_schedemu/protocol/data/scheduler/botocore-version.txt``); CI installs the newest
botocore on every run. When that botocore is newer and its files say something the copies
do not (documentation aside), AWS has moved: this test fails with what changed. When it is
the recorded release, the copies must be its files byte for byte. An older botocore (the
oldest supported, in tox) is skipped: it cannot say whether the copies are current.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tools.vendor import Botocore, Layout, changed_files, differences, version_key

# The package as installed (a checkout, or site-packages in CI) and NOTICE from this
# checkout, which sits beside the package only in a checkout.
LAYOUT = Layout(Layout.of_package().package, Path(__file__).resolve().parents[2] / "NOTICE")
INSTALLED = Botocore.installed()
RECORDED = LAYOUT.version()


def test_the_vendored_model_and_partition_table_are_the_installed_botocores() -> None:
    if version_key(INSTALLED.version) < version_key(RECORDED):
        pytest.skip(
            f"botocore {INSTALLED.version} is older than the release the vendored model and "
            f"partition table come from ({RECORDED}): it cannot tell whether they are current"
        )
    if INSTALLED.version == RECORDED:
        edited = changed_files(LAYOUT, INSTALLED)
        assert edited == [], (
            f"these files are recorded as botocore {RECORDED}'s but differ from it, so they "
            f"were edited by hand: {', '.join(edited)}. Restore them with "
            "`python -m tools.vendor`."
        )
        return
    changes = differences(LAYOUT, INSTALLED)
    assert changes == [], (
        f"AWS moved: botocore {INSTALLED.version}'s scheduler or events model or partition "
        f"table differs from the vendored one (botocore {RECORDED}):\n"
        + "\n".join(f"  {line}" for line in changes)
        + "\nRun `python -m tools.vendor` and model what changed "
        "(tests/api/test_model_coverage.py then names the members left to model)."
    )


def test_notice_names_the_recorded_release() -> None:
    notice = " ".join(LAYOUT.notice.read_text().split())
    assert re.findall(r"botocore (\d+(?:\.\d+)+)", notice) == [RECORDED, RECORDED]
