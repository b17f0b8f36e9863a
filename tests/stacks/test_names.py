"""Generated names: CloudFormation's form, the same for the same inputs, within the type's
limit, with FIFO's suffix and S3's lower case."""

from __future__ import annotations

import re
from pathlib import Path

from tests.stacks.building import read, resources

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
