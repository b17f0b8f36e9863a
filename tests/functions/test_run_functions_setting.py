"""The run_functions setting through the plugin's doors: the marker, the ini file and the
command line run the functions of the stacks the stacks setting loads; nothing else does."""

from __future__ import annotations

import pytest

TEMPLATE = """\
Transform: AWS::Serverless-2016-10-31
Resources:
  ChargeFn:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: python3.12
      Handler: app.handler
      CodeUri: src
"""

TESTS = """\
import pytest

START = "2026-03-01T00:00:00Z"


def running(schedemu):
    return [function.logical_id for function in schedemu.debug.functions.all()]


@pytest.mark.schedemu(start=START, stacks=["infra/template.yaml"], run_functions=True)
def test_the_marker_runs_them(schedemu):
    assert running(schedemu) == ["ChargeFn"]


@pytest.mark.schedemu(start=START, stacks=["infra/template.yaml"], run_functions=False)
def test_the_marker_keeps_them_from_running(schedemu):
    assert running(schedemu) == []


@pytest.mark.schedemu(start=START, stacks=["infra/template.yaml"])
def test_the_run_decides(schedemu):
    assert running(schedemu) == EXPECTED
"""


@pytest.mark.parametrize(
    ("how", "expected"),
    [
        ((), []),
        (("--schedemu-run-functions",), ["ChargeFn"]),
        (("-o", "schedemu_run_functions=true"), ["ChargeFn"]),
    ],
    ids=["default", "command-line", "ini"],
)
def test_the_setting_runs_the_stacks_functions(
    pytester: pytest.Pytester, how: tuple[str, ...], expected: list[str]
) -> None:
    pytester.mkdir("infra")
    pytester.path.joinpath("infra", "template.yaml").write_text(TEMPLATE)
    pytester.mkdir("infra/src")
    pytester.path.joinpath("infra", "src", "app.py").write_text(
        "def handler(e, c):\n    return e\n"
    )
    pytester.makepyfile(TESTS.replace("EXPECTED", repr(expected)))
    result = pytester.runpytest_inprocess(*how)
    result.assert_outcomes(passed=3)
