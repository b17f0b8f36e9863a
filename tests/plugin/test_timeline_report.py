"""The timeline of a test in its report: written when it fails (or always, or never), under
pytest's base temporary folder or the chosen one, named in the "schedemu" section, and
attached to pytest-html's report."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest

from tests.plugin.test_fixtures import COMMON

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")

FAILING = (
    COMMON
    + """
def test_fails(schedemu, scheduler_client):
    create(scheduler_client, name="nightly-report")
    schedemu.clock.advance(hours=3)
    assert False, "the report was late"
"""
)
PASSING = (
    COMMON
    + """
def test_passes(schedemu, scheduler_client):
    create(scheduler_client, name="nightly-report")
    schedemu.clock.advance(hours=3)
"""
)


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    # pytester's own base temporary folder is shared by the tests of one session.
    return pytester.runpytest(f"--basetemp={pytester.path / 'basetemp'}", *args)


def _named_file(output: str) -> Path:
    found = re.search(r"^timeline: (.+\.html)$", output, re.MULTILINE)
    assert found is not None, output
    return Path(found.group(1))


def _timelines(pytester: pytest.Pytester) -> list[Path]:
    return sorted((pytester.path / "basetemp" / "schedemu-timelines").glob("*.html"))


def test_a_failing_test_names_its_timeline_in_the_schedemu_section(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(FAILING)
    result = _run(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*- schedemu -*", "timeline: *test_fails.html"])
    path = _named_file(result.stdout.str())
    assert path.parent == pytester.path / "basetemp" / "schedemu-timelines"
    page = path.read_text(encoding="utf-8")
    assert "nightly-report" in page
    assert "4 delivered" in page


def test_a_passing_test_writes_no_timeline_by_default(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(PASSING)
    result = _run(pytester)
    result.assert_outcomes(passed=1)
    assert _timelines(pytester) == []


def test_always_writes_the_timeline_of_a_passing_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(PASSING)
    result = _run(pytester, "--schedemu-timeline=always", "-rP")
    result.assert_outcomes(passed=1)
    [path] = _timelines(pytester)
    assert path.name == "test_always_writes_the_timeline_of_a_passing_test.py_test_passes.html"
    assert _named_file(result.stdout.str()) == path


def test_never_writes_no_timeline_for_a_failing_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(FAILING)
    result = _run(pytester, "--schedemu-timeline=never")
    result.assert_outcomes(failed=1)
    assert _timelines(pytester) == []
    assert "timeline:" not in result.stdout.str()


def test_the_ini_option_chooses_when(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nschedemu_timeline = always\n")
    pytester.makepyfile(PASSING)
    _run(pytester).assert_outcomes(passed=1)
    assert len(_timelines(pytester)) == 1


def test_the_marker_chooses_for_one_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        COMMON
        + """
import pytest

@pytest.mark.schedemu(timeline="never")
def test_fails(schedemu):
    assert False
"""
    )
    _run(pytester).assert_outcomes(failed=1)
    assert _timelines(pytester) == []


@pytest.mark.parametrize("value", ["True", '"always"', '"TRUE"', "1"])
def test_a_marker_true_writes_the_timeline_as_the_ini_s_true_does(
    pytester: pytest.Pytester, value: str
) -> None:
    pytester.makepyfile(
        PASSING.replace(
            "def test_passes",
            f"import pytest\n@pytest.mark.schedemu(timeline={value})\ndef test_passes",
        )
    )
    _run(pytester).assert_outcomes(passed=1)
    assert len(_timelines(pytester)) == 1


def test_the_ini_s_true_means_always_and_a_marker_false_never(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nschedemu_timeline = true\n")
    pytester.makepyfile(
        PASSING
        + """
import pytest

@pytest.mark.schedemu(timeline=False)
def test_not_drawn(schedemu):
    assert False
"""
    )
    _run(pytester).assert_outcomes(passed=1, failed=1)
    assert [path.name for path in _timelines(pytester)] == [
        "test_the_ini_s_true_means_always_and_a_marker_false_never.py_test_passes.html"
    ]


def test_a_marker_value_no_mode_reads_as_fails_naming_it(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        "import pytest\n\n@pytest.mark.schedemu(timeline=3)\ndef test_it(schedemu):\n    pass\n"
    )
    result = _run(pytester)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*Unsupported timeline 3: *always, failed, never*"])


def test_the_timeline_dir_option_chooses_the_folder(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pytester.makepyfile(FAILING)
    folder = tmp_path / "timelines"
    result = _run(pytester, f"--schedemu-timeline-dir={folder}")
    result.assert_outcomes(failed=1)
    path = _named_file(result.stdout.str())
    assert path == folder / "test_the_timeline_dir_option_chooses_the_folder.py_test_fails.html"
    assert path.exists()


def test_an_unknown_mode_fails_the_test_with_the_modes(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(PASSING)
    result = _run(pytester, "--schedemu-timeline=sometimes")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*--schedemu-timeline 'sometimes'*always, failed, never*"])


def test_a_failure_at_teardown_writes_the_timeline(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        COMMON
        + """
def test_steers_nothing(schedemu, scheduler_client):
    create(scheduler_client)
    schedemu.target("arn:aws:sqs:us-east-1:123456789012:typo").fail()
    schedemu.clock.advance(hours=1)
"""
    )
    result = _run(pytester)
    result.assert_outcomes(passed=1, errors=1)
    assert _named_file(result.stdout.str()).exists()


def test_without_pytest_s_temporary_folders_the_system_one_is_used(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(FAILING)
    result = _run(pytester, "-p", "no:tmpdir")
    result.assert_outcomes(failed=1)
    path = _named_file(result.stdout.str())
    assert path.parent == Path(tempfile.gettempdir()) / "schedemu-timelines"
    path.unlink()


def test_a_test_without_the_emulator_gets_no_timeline(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_fails():\n    assert False\n")
    result = _run(pytester, "--schedemu-timeline=always")
    result.assert_outcomes(failed=1)
    assert _timelines(pytester) == []


def test_pytest_html_reports_carry_the_timeline(pytester: pytest.Pytester) -> None:
    pytest.importorskip("pytest_html")
    pytester.makepyfile(FAILING)
    result = _run(pytester, "--html=report.html", "--self-contained-html")
    result.assert_outcomes(failed=1)
    report = (pytester.path / "report.html").read_text(encoding="utf-8")
    assert "schedemu timeline" in report
    assert _named_file(result.stdout.str()).as_uri() in report
    assert "schedemu-timeline" in report  # the picture's root class: the picture itself
