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


def _hashed(name: str) -> str:
    """A pattern of the file name of a test whose id, made safe, reads ``name``: a test id
    always changes (its ``::``), so a hash of it follows."""
    return re.escape(name) + r"-[0-9a-f]{10}\.html"


def test_a_failing_test_names_its_timeline_in_the_schedemu_section(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(FAILING)
    result = _run(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*- schedemu -*", "timeline: *test_fails-*.html"])
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
    assert re.fullmatch(
        _hashed("test_always_writes_the_timeline_of_a_passing_test.py_test_passes"), path.name
    )
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
    [path] = _timelines(pytester)
    assert re.fullmatch(
        _hashed("test_the_ini_s_true_means_always_and_a_marker_false_never.py_test_passes"),
        path.name,
    )


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
    assert path.parent == folder
    assert re.fullmatch(
        _hashed("test_the_timeline_dir_option_chooses_the_folder.py_test_fails"), path.name
    )
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


def test_without_pytest_s_temporary_folders_a_private_one_is_made(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    # Someone else's link where a fixed name would have been: it is not used.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "schedemu-timelines").symlink_to(elsewhere)
    pytester.makepyfile(FAILING)
    result = _run(pytester, "-p", "no:tmpdir")
    result.assert_outcomes(failed=1)
    path = _named_file(result.stdout.str())
    assert path.parent.parent == tmp_path
    assert path.parent.name.startswith("schedemu-timelines-")
    assert path.parent.stat().st_mode & 0o777 == 0o700
    assert list(elsewhere.iterdir()) == []


def test_every_test_id_gets_a_file_of_its_own(pytester: pytest.Pytester) -> None:
    ids = ["a b", "a_b", "a/b", "a?b"]
    pytester.makepyfile(
        COMMON
        + f"""
import pytest

@pytest.mark.parametrize("x", range(4), ids={ids!r})
def test_p(schedemu, scheduler_client, x):
    create(scheduler_client, name=f"marks-{{x}}")
"""
    )
    result = _run(pytester, "--schedemu-timeline=always", "-rP")
    result.assert_outcomes(passed=4)
    files = _timelines(pytester)
    assert len(files) == 4
    # Each file is its own test's picture.
    for x in range(4):
        [own] = [path for path in files if f"marks-{x}" in path.read_text(encoding="utf-8")]
        assert f"test_p[{ids[x]}]" in own.read_text(encoding="utf-8")


def test_a_link_where_the_timeline_goes_is_replaced_not_followed(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pytester.makepyfile(FAILING)
    folder = tmp_path / "timelines"
    path = _named_file(_run(pytester, f"--schedemu-timeline-dir={folder}").stdout.str())
    victim = tmp_path / "victim.txt"
    victim.write_text("precious", encoding="utf-8")
    path.unlink()
    path.symlink_to(victim)
    result = _run(pytester, f"--schedemu-timeline-dir={folder}")
    result.assert_outcomes(failed=1)
    assert _named_file(result.stdout.str()) == path
    assert victim.read_text(encoding="utf-8") == "precious"
    assert not path.is_symlink()
    assert "nightly-report" in path.read_text(encoding="utf-8")
    assert [p.name for p in folder.iterdir()] == [path.name]  # no temporary file left


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
