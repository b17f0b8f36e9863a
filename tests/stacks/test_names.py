"""Generated names: CloudFormation's form, the same for the same inputs, within the type's
limit, with FIFO's suffix and S3's lower case; and the stack's own name, valid as
CloudFormation checks it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pytest_schedemu.errors import StackError
from pytest_schedemu.stacks import read_stack
from tests.stacks.building import ACCOUNT, REGION, SEED, read, resources

_GENERATED = re.compile(r"^(?P<stack>.*)-(?P<logical>.*)-(?P<suffix>[0-9A-Z]{13})$")


def test_a_resource_without_a_name_gets_stack_logical_id_and_suffix(tmp_path: Path) -> None:
    stack = read(tmp_path, resources(Jobs={"Type": "AWS::SQS::Queue"}), stack_name="Billing")
    match = _GENERATED.match(stack.resource("Jobs").physical_name or "")
    assert match is not None
    assert (match["stack"], match["logical"]) == ("Billing", "Jobs")


def test_the_same_inputs_give_the_same_names(tmp_path: Path) -> None:
    template = resources(Jobs={"Type": "AWS::SQS::Queue"}, Fn={"Type": "AWS::Lambda::Function"})
    first, again = (read(tmp_path, template) for _ in range(2))
    assert first == again
    assert first.stack_id == again.stack_id


def test_another_seed_or_stack_name_gives_other_names(tmp_path: Path) -> None:
    template = resources(Jobs={"Type": "AWS::SQS::Queue"})
    names = {
        read(tmp_path, template, seed=1).resource("Jobs").physical_name,
        read(tmp_path, template, seed=2).resource("Jobs").physical_name,
        read(tmp_path, template, seed=1, stack_name="Other").resource("Jobs").physical_name,
    }
    assert len(names) == 3


def test_two_resources_of_a_stack_never_share_a_suffix(tmp_path: Path) -> None:
    stack = read(tmp_path, resources(A={"Type": "AWS::SQS::Queue"}, B={"Type": "AWS::SQS::Queue"}))
    suffixes = {(r.physical_name or "").rsplit("-", 1)[1] for r in stack.resources}
    assert len(suffixes) == 2


def test_a_long_name_is_shortened_to_the_types_limit_keeping_the_suffix(tmp_path: Path) -> None:
    logical_id = "ProcessEveryInvoiceOfTheMonthAndSendTheReminders"
    stack_name = "billing-production-eu-central-invoices"
    template = resources(**{logical_id: {"Type": "AWS::Lambda::Function"}})
    name = read(tmp_path, template, stack_name=stack_name).resource(logical_id).physical_name
    assert name is not None
    assert len(name) == 64
    match = _GENERATED.match(name)
    assert match is not None
    assert stack_name.startswith(match["stack"]) and logical_id.startswith(match["logical"])
    assert len(match["stack"]) >= 20 and len(match["logical"]) >= 20


def test_a_short_stack_name_leaves_the_logical_id_the_room(tmp_path: Path) -> None:
    logical_id = "A" * 80
    template = resources(**{logical_id: {"Type": "AWS::Lambda::Function"}})
    name = read(tmp_path, template, stack_name="app").resource(logical_id).physical_name
    assert name is not None
    assert name.startswith("app-AAAA") and len(name) == 64


def test_a_fifo_queue_without_a_name_gets_a_fifo_name(tmp_path: Path) -> None:
    template = resources(
        Orders={"Type": "AWS::SQS::Queue", "Properties": {"FifoQueue": True}},
        Named={
            "Type": "AWS::SQS::Queue",
            "Properties": {"QueueName": "o.fifo", "FifoQueue": "true"},
        },
    )
    stack = read(tmp_path, template, stack_name="s" * 90)
    generated = stack.resource("Orders").physical_name or ""
    assert generated.endswith(".fifo") and len(generated) == 80
    assert stack.resource("Named").physical_name == "o.fifo"


def test_a_generated_bucket_name_is_lower_case(tmp_path: Path) -> None:
    template = resources(Uploads={"Type": "AWS::S3::Bucket"})
    name = read(tmp_path, template, stack_name="Billing").resource("Uploads").physical_name or ""
    assert name == name.lower() and name.startswith("billing-uploads-") and len(name) <= 63


def test_a_schedule_without_a_name_gets_one_within_64(tmp_path: Path) -> None:
    template = resources(**{"Nightly" * 10: {"Type": "AWS::Scheduler::Schedule"}})
    name = read(tmp_path, template).resource("Nightly" * 10).physical_name or ""
    assert name.startswith("template-Nightly") and len(name) == 64


def test_an_explicit_name_is_kept_as_written(tmp_path: Path) -> None:
    template = resources(
        Uploads={"Type": "AWS::S3::Bucket", "Properties": {"BucketName": "MixedCase"}}
    )
    assert read(tmp_path, template).resource("Uploads").physical_name == "MixedCase"


@pytest.mark.parametrize(
    ("file_name", "stack_name"),
    [
        ("billing.prod.template.json", "billing-prod-template"),
        ("sam-transformed.template.json", "sam-transformed-template"),
        ("orders.yaml", "orders"),
        ("Nightly_Jobs v2.yaml", "Nightly-Jobs-v2"),
        ("_hidden.yaml", "hidden"),
        ("2026_jobs.yaml", "stack-2026-jobs"),
        ("a" * 200 + ".json", "a" * 128),
    ],
)
def test_a_template_files_name_gives_a_stack_name_cloudformation_accepts(
    tmp_path: Path, file_name: str, stack_name: str
) -> None:
    path = tmp_path / file_name
    path.write_text(json.dumps(resources(Jobs={"Type": "AWS::SQS::Queue"})))
    stack = read_stack(path, account=ACCOUNT, region=REGION, seed=SEED)
    assert stack.name == stack_name
    assert stack.stack_id.split(":")[-1].startswith(f"stack/{stack_name}/")


@pytest.mark.parametrize(
    ("stack_name", "failures"),
    [
        ("bad.name", ["satisfy regular expression pattern: [a-zA-Z][-a-zA-Z0-9]*"]),
        ("9lives", ["satisfy regular expression pattern: [a-zA-Z][-a-zA-Z0-9]*"]),
        ("x" * 129, ["have length less than or equal to 128"]),
        (
            "_" * 129,
            [
                "satisfy regular expression pattern: [a-zA-Z][-a-zA-Z0-9]*",
                "have length less than or equal to 128",
            ],
        ),
    ],
)
def test_an_explicit_stack_name_cloudformation_would_refuse_is_refused_with_its_message(
    tmp_path: Path, stack_name: str, failures: list[str]
) -> None:
    with pytest.raises(StackError) as refused:
        read(tmp_path, resources(Jobs={"Type": "AWS::SQS::Queue"}), stack_name=stack_name)
    count = f"{len(failures)} validation error{'s' if len(failures) > 1 else ''} detected: "
    constraint = f"Value '{stack_name}' at 'stackName' failed to satisfy constraint: Member must "
    expected = count + "; ".join(constraint + failure for failure in failures)
    assert expected in str(refused.value)


def test_a_valid_explicit_stack_name_is_kept_as_written(tmp_path: Path) -> None:
    stack = read(tmp_path, resources(Jobs={"Type": "AWS::SQS::Queue"}), stack_name="Billing-2")
    assert stack.name == "Billing-2"
