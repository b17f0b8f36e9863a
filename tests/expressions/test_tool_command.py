"""``schedemu next`` and ``schedemu check``, and the cron tool guide's examples of them."""

from __future__ import annotations

import doctest
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_schedemu.cli import main

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide" / "cron-tool.md"
SPRING_FORWARD = [
    "2026-03-07T07:30:00Z  2026-03-07 02:30:00-05:00 EST",
    "2026-03-09T06:30:00Z  2026-03-09 02:30:00-04:00 EDT",
    "2026-03-10T06:30:00Z  2026-03-10 02:30:00-04:00 EDT",
]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def test_next_prints_each_instant_in_utc_and_on_the_zone_s_clock(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, lines, err = run(
        capsys,
        *("next", "cron(30 2 * * ? *)", "--tz", "America/New_York"),
        *("-n", "3", "--from", "2026-03-07T00:00:00Z"),
    )
    assert (code, lines, err) == (0, SPRING_FORWARD, "")


def test_next_reads_from_with_any_offset(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = run(
        capsys,
        *("next", "cron(30 2 * * ? *)", "--tz", "America/New_York"),
        *("-n", "3", "--from", "2026-03-06T19:00:00-05:00"),
    )
    assert (code, lines) == (0, SPRING_FORWARD)


def test_next_shows_utc_when_no_zone_is_given(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = run(
        capsys, "next", "rate(90 minutes)", "-n", "2", "--from", "2026-03-07T23:00Z"
    )
    assert (code, lines) == (
        0,
        [
            "2026-03-07T23:00:00Z  2026-03-07 23:00:00+00:00 UTC",
            "2026-03-08T00:30:00Z  2026-03-08 00:30:00+00:00 UTC",
        ],
    )


def test_next_prints_ten_instants_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    _, lines, _ = run(capsys, "next", "rate(1 minute)", "--from", "2026-03-07T00:00Z")
    assert len(lines) == 10


def test_next_of_a_past_at_prints_nothing_and_succeeds(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, err = run(capsys, "next", "at(2026-03-01T08:00:00)", "--from", "2026-03-07T00:00Z")
    assert (code, lines, err) == (0, [], "")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["cron(0 9 * * MON *)"], "Invalid Schedule Expression cron(0 9 * * MON *)."),
        (["rate(1 hour)", "--tz", "+02:00"], "Invalid Schedule Expression Timezone +02:00."),
        (["rate(1 hour)", "-n", "0"], "n must be between 1 and 10000, got 0"),
        (
            ["rate(1 hour)", "--from", "2026-03-07T00:00"],
            "Unsupported start '2026-03-07T00:00': it has no time zone; "
            "add one, e.g. 'Z' or +00:00",
        ),
    ],
)
def test_next_refuses_with_the_message_on_stderr_and_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, lines, err = run(capsys, "next", *argv)
    assert (code, lines, err) == (2, [], f"schedemu: {message}\n")


def test_check_prints_valid_for_a_valid_expression(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, err = run(capsys, "check", "cron(0 9 ? * MON-FRI *)", "--tz", "Europe/Paris")
    assert (code, lines, err) == (0, ["valid"], "")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["rate(10 seconds)"], "Invalid Schedule Expression rate(10 seconds)."),
        (["rate(1 hour)", "--tz", "Mars/Base"], "Invalid Schedule Expression Timezone Mars/Base."),
    ],
)
def test_check_refuses_with_aws_s_message_and_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, lines, err = run(capsys, "check", *argv)
    assert (code, lines, err) == (2, [], f"schedemu: {message}\n")


def test_the_installed_command_exits_2_for_an_invalid_expression() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest_schedemu", "check", "cron(0 9 * * MON *)"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "schedemu: Invalid Schedule Expression cron(0 9 * * MON *).\n"


def _guide() -> str:
    return GUIDE.read_text(encoding="utf-8")


def test_the_guide_console_example_is_what_the_commands_print(
    capsys: pytest.CaptureFixture[str],
) -> None:
    block = re.search(r"```console\n(.*?)```", _guide(), re.DOTALL)
    assert block is not None
    commands = re.findall(r"^\$ schedemu (.*)\n((?:[^$].*\n)*)", block.group(1), re.MULTILINE)
    assert [args.split()[0] for args, _ in commands] == ["next", "check"]
    for args, shown in commands:
        main(shlex.split(args))
        out, err = capsys.readouterr()
        # The console shows both streams, as a terminal does.
        assert out + err == shown


def test_the_guide_python_example_runs_as_shown() -> None:
    block = re.search(r"```pycon\n(.*?)```", _guide(), re.DOTALL)
    assert block is not None
    example = doctest.DocTestParser().get_doctest(block.group(1), {}, "cron-tool", str(GUIDE), 0)
    assert len(example.examples) == 3
    results = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS).run(example)
    assert results.failed == 0
