"""A template is bounded before it is built: its file's bytes, its values with YAML aliases
expanded, how deep they nest, and what its functions make. Every bad file is a StackError
that names the file and what is wrong (the limit, and the setting that raises it), in
process and from ``schedemu serve``, and never takes the time or memory it asks for."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pytest_schedemu import Emulator, StackError
from pytest_schedemu.stacks import ResolvedStack, TemplateLimits, read_stack
from tests.stacks.building import ACCOUNT, REGION, SEED, read, resources, write


def alias_bomb(wide: int = 10, deep: int = 7) -> str:
    """A template of a few hundred bytes whose one resource's properties hold
    ``wide ** deep`` values once its aliases are expanded."""
    anchors = [f"    l0: &l0 [{', '.join(['x'] * wide)}]"]
    anchors += [
        f"    l{level}: &l{level} [{', '.join([f'*l{level - 1}'] * wide)}]"
        for level in range(1, deep)
    ]
    return (
        "Metadata:\n  Anchors:\n"
        + "\n".join(anchors)
        + f"\nResources:\n  Bomb:\n    Type: AWS::SQS::Queue\n    Properties:\n"
        f"      Tags: *l{deep - 1}\n"
    )


def deep_json(depth: int) -> str:
    tags = "[" * depth + "]" * depth
    return json.dumps(resources(Deep={"Type": "AWS::SQS::Queue"})).replace(
        '"AWS::SQS::Queue"}', f'"AWS::SQS::Queue", "Properties": {{"Tags": {tags}}}}}'
    )


def deep_yaml(depth: int) -> str:
    """Block style, one mapping inside the next: no flow brackets for the parser to cap."""
    lines = ["Resources:", "  Deep:", "    Type: AWS::SQS::Queue", "    Properties:"]
    lines += [f"{'  ' * (3 + level)}k{level}:" for level in range(depth)]
    lines.append(f"{'  ' * (3 + depth)}leaf: x")
    return "\n".join(lines) + "\n"


def read_stack_with(path: Path, limits: TemplateLimits) -> ResolvedStack:
    return read_stack(path, account=ACCOUNT, region=REGION, seed=SEED, limits=limits)


NOT_UTF8 = b"Resources:\n  Q:\n    Type: AWS::SQS::Queue\n    Description: caf\xe9 \xff\n"


def test_an_alias_bomb_is_refused_at_once_naming_the_file_and_the_limit(tmp_path: Path) -> None:
    bomb = alias_bomb()
    assert len(bomb) < 1000
    began = time.perf_counter()
    with pytest.raises(StackError) as raised:
        read(tmp_path, bomb)
    assert time.perf_counter() - began < 10
    message = str(raised.value)
    assert message.startswith(f"{tmp_path / 'template.yaml'}: ")
    assert "with its aliases expanded, it holds more than 500000 values" in message
    assert "max_template_nodes=500000; the setting max_template_nodes raises it" in message


def test_aliases_within_the_limit_are_read_as_their_values(tmp_path: Path) -> None:
    template = (
        "Resources:\n  Q:\n    Type: AWS::SQS::Queue\n    Properties:\n"
        "      Tags: &tags [{Key: team, Value: billing}]\n"
        "  R:\n    Type: AWS::SQS::Queue\n    Properties:\n      Tags: *tags\n"
    )
    stack = read(tmp_path, template)
    expected = [{"Key": "team", "Value": "billing"}]
    assert [r.properties["Tags"] for r in stack.resources] == [expected, expected]


def test_the_node_limit_is_a_setting_of_the_emulator(tmp_path: Path) -> None:
    # 10 ** 4 leaves: inside the default, beyond a limit of 5,000.
    path = write(tmp_path, alias_bomb(deep=4))
    with Emulator(max_template_nodes=5000) as emulator:
        with pytest.raises(StackError, match=r"max_template_nodes=5000; the setting"):
            emulator.load_stack(path)
        emulator.configure(max_template_nodes=50_000)
        assert emulator.load_stack(path).resource("Bomb").properties["Tags"][9][9][9][9] == "x"


def test_an_alias_inside_the_value_it_names_is_refused(tmp_path: Path) -> None:
    template = "Resources:\n  Q:\n    Type: AWS::SQS::Queue\n    Properties: &p\n      Tags: [*p]\n"
    with pytest.raises(StackError, match=r"template\.yaml: its values nest more than 100 levels"):
        read(tmp_path, template)


@pytest.mark.parametrize("depth", [101, 100_000])
def test_deeply_nested_json_is_refused_naming_the_file_and_the_limit(
    tmp_path: Path, depth: int
) -> None:
    path = tmp_path / "deep.json"
    path.write_text(deep_json(depth))
    with Emulator() as emulator, pytest.raises(StackError) as raised:
        emulator.load_stack(path)
    assert str(raised.value) == (
        f"{path}: its values nest more than 100 levels deep "
        "(max_template_depth=100; the setting max_template_depth raises it)"
    )


def test_json_as_deep_as_the_limit_is_read(tmp_path: Path) -> None:
    # Template, Resources, Deep, Properties, Tags: five levels before the brackets.
    stack = read(tmp_path, json.loads(deep_json(95)))
    assert stack.resource("Deep").properties["Tags"] == json.loads("[" * 95 + "]" * 95)


def test_deeply_nested_yaml_is_refused_naming_the_file_and_the_limit(tmp_path: Path) -> None:
    with pytest.raises(StackError) as raised:
        read(tmp_path, deep_yaml(150))
    assert str(raised.value).startswith(f"{tmp_path / 'template.yaml'}: its values nest more")
    assert "max_template_depth=100" in str(raised.value)


def test_a_depth_limit_past_pythons_recursion_is_still_a_stack_error(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text(deep_json(sys.getrecursionlimit() - 100))
    limits = TemplateLimits(max_depth=100_000)
    with pytest.raises(StackError, match=r"deep\.json: its values nest too deep for Python"):
        read_stack_with(path, limits)


def test_a_cdk_manifest_nested_too_deep_is_a_stack_error(tmp_path: Path) -> None:
    assembly = tmp_path / "cdk.out"
    assembly.mkdir()
    depth = 100_000
    (assembly / "manifest.json").write_text('{"artifacts": ' + "[" * depth + "]" * depth + "}")
    with pytest.raises(
        StackError, match=r"cdk\.out/manifest\.json: not JSON: nested deeper than the JSON reader"
    ):
        read_stack_with(assembly, TemplateLimits())


def test_a_template_that_is_not_utf8_names_the_file_and_the_byte(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes(NOT_UTF8)
    with Emulator() as emulator, pytest.raises(StackError) as raised:
        emulator.load_stack(path)
    assert str(raised.value) == (
        f"{path}: not UTF-8 text: byte 0xe9 at offset 62 (line 4) is invalid continuation byte"
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no fifos here")
def test_a_template_path_that_is_a_fifo_is_refused_before_it_is_opened(tmp_path: Path) -> None:
    # Opening a fifo nobody writes to waits for a writer: the load would never return.
    path = tmp_path / "waiting.yaml"
    os.mkfifo(path)
    with Emulator() as emulator, pytest.raises(StackError) as raised:
        emulator.load_stack(path)
    assert str(raised.value) == f"{path}: not a regular file: it is a fifo"


def test_a_file_larger_than_the_limit_is_refused_naming_it(tmp_path: Path) -> None:
    template = resources(Q={"Type": "AWS::SQS::Queue", "Properties": {"Pad": "x" * 2000}})
    path = write(tmp_path, template)
    with Emulator(max_template_bytes=1000) as emulator:
        with pytest.raises(StackError) as raised:
            emulator.load_stack(path)
        assert str(raised.value) == (
            f"{path}: the file holds more than 1000 bytes "
            "(max_template_bytes=1000; the setting max_template_bytes raises it)"
        )
        emulator.configure(max_template_bytes=3000)
        assert emulator.load_stack(path).resource("Q").properties["Pad"] == "x" * 2000


@pytest.mark.parametrize(
    ("name", "content", "says"),
    [
        ("t.json", '{"Resources": {"Q": ', "not a template: Expecting"),
        ("t.yaml", "Resources: [unclosed\n", "not a template: while parsing"),
        ("t.yaml", "- a list\n", "not a template: its top level is not a mapping"),
    ],
)
def test_bad_syntax_names_the_file(tmp_path: Path, name: str, content: str, says: str) -> None:
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(StackError, match=rf"^{path}: {says}"):
        read_stack_with(path, TemplateLimits())


def test_the_text_functions_make_is_bounded(tmp_path: Path) -> None:
    # 600 substitutions of a 10,000-character parameter: 6 MB of text from a 14 KB file.
    template = {
        "Parameters": {"Big": {"Type": "String", "Default": "x" * 10_000}},
        **resources(
            Q={
                "Type": "AWS::SQS::Queue",
                "Properties": {"Tags": {"Fn::Sub": "${Big}" * 600}},
            }
        ),
    }
    with pytest.raises(StackError) as raised:
        read(tmp_path, template)
    message = str(raised.value)
    assert message.startswith(f"{tmp_path / 'template.json'}: resource Q: Fn::Sub: its functi")
    assert "more than 5000000 bytes of text (max_template_bytes=5000000;" in message


def test_the_values_functions_answer_are_bounded(tmp_path: Path) -> None:
    # 600 look-ups of a 1,000-item list: 600,000 values in the resolved stack.
    template = {
        "Mappings": {"M": {"k": {"items": ["x"] * 1000}}},
        **resources(
            Q={
                "Type": "AWS::SQS::Queue",
                "Properties": {"Tags": [{"Fn::FindInMap": ["M", "k", "items"]}] * 600},
            }
        ),
    }
    with pytest.raises(StackError) as raised:
        read(tmp_path, template)
    message = str(raised.value)
    assert message.startswith(f"{tmp_path / 'template.json'}: resource Q: Fn::FindInMap: its f")
    assert "answer more than 500000 values (max_template_nodes=500000;" in message


@pytest.mark.parametrize(
    ("name", "content", "says"),
    [
        ("bomb.yaml", alias_bomb().encode(), "max_template_nodes=500000"),
        ("deep.json", deep_json(100_000).encode(), "max_template_depth=100"),
        ("latin1.yaml", NOT_UTF8, "not UTF-8 text"),
    ],
)
def test_serve_refuses_a_bad_stack_at_once_without_a_traceback(
    tmp_path: Path, name: str, content: bytes, says: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    command = [sys.executable, "-m", "pytest_schedemu", "serve", "--port", "0"]
    began = time.perf_counter()
    done = subprocess.run(
        [*command, "--clock", "virtual", "--stacks", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert time.perf_counter() - began < 10
    assert done.returncode == 1
    assert done.stderr.startswith(f"schedemu: {path}: ")
    assert says in done.stderr
    assert "Traceback" not in done.stderr
