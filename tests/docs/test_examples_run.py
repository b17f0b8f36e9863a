"""Every Python example in README.md and docs/ runs as written.

The convention (docs/contributing.md, "Examples that run"): each ```python block is run, unless
the line just before it is ``<!-- not run: <why> -->``. A block that defines a ``test_``
function is a test module, run by pytest with this plugin (and the ``billing_assembly``
fixture of ``examples/stacks``), and each of its tests must pass. Any other block is a
snippet, executed in a namespace holding ``emu``, an ``Emulator`` started at ``START``, and
the names the examples share: ``QUEUE``, ``DLQ``, ``ROLE``, ``FUNCTION``. A
``<!-- run with: <keywords> -->`` line before a snippet builds its ``emu`` with those keyword
arguments instead. A ```pycon block runs as a doctest.
"""

from __future__ import annotations

import ast
import doctest
import re
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_schedemu import Emulator
from tests.constants import DLQ, FUNCTION, QUEUE, ROLE, START

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]

FENCE = re.compile(r"^```(\w*)$")
DIRECTIVE = re.compile(r"^<!-- (not run|run with|example): ?(.*?) ?-->$")
RUN = ("python", "pycon")
APPLICATION_ENVIRONMENT = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}


@dataclass(frozen=True)
class Block:
    """A fenced block of Python in a document, with the directive on the line before it."""

    document: Path
    line: int  # of the opening fence, 1-based
    language: str
    code: str
    directive: str  # "not run", "run with", "example" or ""
    argument: str

    @property
    def where(self) -> str:
        return f"{self.document.relative_to(ROOT)}:{self.line}"

    @property
    def is_test_module(self) -> bool:
        return bool(defined_tests(self.code))


def blocks(document: Path) -> list[Block]:
    """The Python blocks of one document, in order."""
    found: list[Block] = []
    lines = document.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        end = next(i for i in range(index + 1, len(lines)) if lines[i].startswith("```"))
        if opening.group(1) in RUN:
            directive = DIRECTIVE.match(lines[index - 1]) if index else None
            found.append(
                Block(
                    document=document,
                    line=index + 1,
                    language=opening.group(1),
                    code="\n".join(lines[index + 1 : end]) + "\n",
                    directive=directive.group(1) if directive else "",
                    argument=directive.group(2) if directive else "",
                )
            )
        index = end + 1
    return found


def defined_tests(code: str) -> list[str]:
    """The names of the module-level ``test_`` functions a block defines."""
    return [
        node.name
        for node in ast.parse(code).body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.name.startswith("test_")
    ]


ALL = [block for document in DOCUMENTS for block in blocks(document)]
RUNNING = [block for block in ALL if block.directive != "not run"]


def test_the_examples_are_found_and_each_left_out_says_why() -> None:
    assert len(RUNNING) >= 10, [block.where for block in ALL]
    unexplained = [b.where for b in ALL if b.directive == "not run" and not b.argument]
    assert unexplained == [], "<!-- not run: ... --> needs a reason"
    misplaced = [b.where for b in ALL if b.directive == "run with" and b.is_test_module]
    assert misplaced == [], "<!-- run with: ... --> is for snippets; a test module sets its own"


@pytest.mark.parametrize("block", RUNNING, ids=[block.where for block in RUNNING])
def test_the_example_runs(
    block: Block,
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    if block.language == "pycon":
        run_doctest(block)
    elif block.is_test_module:
        run_test_module(block, pytester)
    else:
        monkeypatch.chdir(tmp_path)  # where a snippet writes a file of its own
        # An application's configuration, which its own clients read; without it boto3 would
        # look for credentials on the network.
        for name, value in APPLICATION_ENVIRONMENT.items():
            monkeypatch.setenv(name, value)
        run_snippet(block)


def run_snippet(block: Block) -> None:
    keywords: dict[str, Any] = {"start": START}
    if block.directive == "run with":
        keywords.update(eval(f"dict({block.argument})", {}))
    with Emulator(**keywords) as emu:
        namespace = {"emu": emu, "QUEUE": QUEUE, "DLQ": DLQ, "ROLE": ROLE, "FUNCTION": FUNCTION}
        # Compiled with the document's name and the block's lines, so a traceback points at
        # the line of the document.
        code = compile("\n" * block.line + block.code, str(block.document), "exec")
        try:
            exec(code, namespace)
        except Exception as error:
            # Told as Python tells it, a line a frame: pytest's own report would print the
            # document from its first line, the "module" the snippet was compiled as.
            told = "".join(traceback.format_exception(type(error), error, error.__traceback__))
            raise AssertionError(f"the example at {block.where} failed:\n{told}") from None
        assert emu.server_errors == []


def run_test_module(block: Block, pytester: pytest.Pytester) -> None:
    pytester.makeconftest("from examples.stacks.conftest import billing_assembly  # noqa: F401")
    pytester.makepyfile(**{"test_example": block.code})
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=len(defined_tests(block.code)))


def run_doctest(block: Block) -> None:
    parser = doctest.DocTestParser()
    test = parser.get_doctest(block.code, {}, block.where, str(block.document), block.line)
    assert test.examples, f"{block.where}: a pycon block without a >>> line"
    results = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS).run(test)
    assert results.failed == 0, f"{block.where}: {results.failed} example(s) printed otherwise"
