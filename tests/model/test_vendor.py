"""The re-vendoring tool (``python -m tools.vendor``) and its listing of
differences, on small synthetic models and on copies of the vendored files, never on the
package's own."""

from __future__ import annotations

import copy
import gzip
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tools.vendor import (
    EVENTS,
    MODELS,
    Botocore,
    Layout,
    changed_files,
    check,
    differences,
    model_differences,
    paginator_differences,
    partition_differences,
    rewrite_notice,
    vendor,
    version_key,
)

# The package as installed (a checkout, or site-packages in CI) and NOTICE from this
# checkout, which sits beside the package only in a checkout.
PACKAGE = Layout(Layout.of_package().package, Path(__file__).resolve().parents[2] / "NOTICE")

MODEL: dict[str, Any] = {
    "version": "2.0",
    "metadata": {"protocol": "rest-json", "serviceId": "Things"},
    "operations": {
        "GetThing": {
            "name": "GetThing",
            "http": {"method": "GET", "requestUri": "/things/{Name}"},
            "input": {"shape": "GetThingInput"},
            "errors": [{"shape": "NotFound"}],
            "documentation": "<p>Reads a thing.</p>",
        }
    },
    "shapes": {
        "GetThingInput": {
            "type": "structure",
            "required": ["Name"],
            "members": {
                "Name": {"shape": "Name", "location": "uri", "locationName": "Name"},
                "Size": {"shape": "Size", "documentation": "<p>How big.</p>"},
            },
        },
        "Name": {"type": "string", "max": 64, "min": 1, "pattern": "[0-9a-z]+"},
        "Size": {"type": "integer", "box": True},
        "State": {"type": "string", "enum": ["ENABLED", "DISABLED"]},
        "NotFound": {"type": "structure", "members": {}, "exception": True},
    },
}


def changed(edit: Any) -> list[str]:
    """The differences from ``MODEL`` to a copy ``edit`` changed."""
    current = copy.deepcopy(MODEL)
    edit(current)
    return model_differences(MODEL, current)


def test_the_same_model_has_no_differences() -> None:
    assert model_differences(MODEL, copy.deepcopy(MODEL)) == []


def test_a_model_changed_in_its_documentation_only_has_no_differences() -> None:
    def edit(model: dict[str, Any]) -> None:
        model["operations"]["GetThing"]["documentation"] = "<p>Reads one thing.</p>"
        model["shapes"]["GetThingInput"]["members"]["Size"]["documentation"] = "<p>Size.</p>"
        model["shapes"]["GetThingInput"]["members"]["Name"]["documentation"] = "<p>New.</p>"
        model["shapes"]["Name"]["documentation"] = "<p>A name.</p>"
        model["operations"]["GetThing"]["documentationUrl"] = "https://example.com"

    assert changed(edit) == []


def test_a_member_added() -> None:
    def edit(model: dict[str, Any]) -> None:
        model["shapes"]["GetThingInput"]["members"]["State"] = {"shape": "State"}

    assert changed(edit) == ["shape GetThingInput: member added: State (shape State)"]


def test_a_member_removed_and_one_of_another_shape() -> None:
    def edit(model: dict[str, Any]) -> None:
        del model["shapes"]["GetThingInput"]["members"]["Size"]
        model["shapes"]["GetThingInput"]["members"]["Name"]["shape"] = "State"

    assert changed(edit) == [
        "shape GetThingInput: member removed: Size",
        "shape GetThingInput: member Name: shape Name -> State",
    ]


def test_members_made_required_or_optional() -> None:
    def edit(model: dict[str, Any]) -> None:
        model["shapes"]["GetThingInput"]["required"] = ["Size"]

    assert changed(edit) == [
        "shape GetThingInput: member Size is now required",
        "shape GetThingInput: member Name is no longer required",
    ]


def test_a_pattern_changed() -> None:
    def edit(model: dict[str, Any]) -> None:
        model["shapes"]["Name"]["pattern"] = "[0-9a-zA-Z-_.]+"

    assert changed(edit) == ["shape Name: pattern '[0-9a-z]+' -> '[0-9a-zA-Z-_.]+'"]


def test_an_enum_value_added_and_one_removed() -> None:
    def edit(model: dict[str, Any]) -> None:
        model["shapes"]["State"]["enum"] = ["ENABLED", "PAUSED"]

    assert changed(edit) == [
        "shape State: enum value added: PAUSED",
        "shape State: enum value removed: DISABLED",
    ]


def test_min_and_max_changed() -> None:
    def edit(model: dict[str, Any]) -> None:
        model["shapes"]["Name"]["max"] = 128
        del model["shapes"]["Name"]["min"]
        model["shapes"]["Size"]["min"] = 0

    assert changed(edit) == [
        "shape Name: max 64 -> 128",
        "shape Name: min removed (was 1)",
        "shape Size: min added: 0",
    ]


def test_operations_and_shapes_added_or_removed() -> None:
    def edit(model: dict[str, Any]) -> None:
        model["operations"]["PutThing"] = {"name": "PutThing", "http": {"method": "PUT"}}
        model["shapes"]["Colour"] = {"type": "string"}
        del model["shapes"]["State"]

    assert changed(edit) == [
        "model: operation added: PutThing",
        "model: shape added: Colour (string)",
        "model: shape removed: State",
    ]


def test_an_operation_changed() -> None:
    def edit(model: dict[str, Any]) -> None:
        model["operations"]["GetThing"]["http"]["requestUri"] = "/v2/things/{Name}"

    assert changed(edit) == [
        'operation GetThing: http {"method": "GET", "requestUri": "/things/{Name}"}'
        ' -> {"method": "GET", "requestUri": "/v2/things/{Name}"}'
    ]


def test_metadata_a_type_and_another_trait_changed() -> None:
    def edit(model: dict[str, Any]) -> None:
        model["metadata"]["protocol"] = "json"
        model["shapes"]["Size"] = {"type": "long", "box": True}
        model["shapes"]["GetThingInput"]["members"]["Name"]["location"] = "querystring"

    assert changed(edit) == [
        "metadata: protocol 'rest-json' -> 'json'",
        "shape GetThingInput: member Name: location 'uri' -> 'querystring'",
        "shape Size: type integer -> long",
    ]


PARTITIONS: dict[str, Any] = {
    "partitions": [
        {
            "id": "aws",
            "outputs": {"dnsSuffix": "amazonaws.com", "name": "aws"},
            "regionRegex": "^(us|eu)\\-\\w+\\-\\d+$",
            "regions": {"us-east-1": {"description": "US East (N. Virginia)"}},
        },
        {
            "id": "aws-cn",
            "outputs": {"dnsSuffix": "amazonaws.com.cn", "name": "aws-cn"},
            "regionRegex": "^cn\\-\\w+\\-\\d+$",
            "regions": {"cn-north-1": {"description": "China (Beijing)"}},
        },
    ],
    "version": "1.1",
}


def test_partitions_added_and_changed() -> None:
    current = copy.deepcopy(PARTITIONS)
    aws = current["partitions"][0]
    aws["regionRegex"] = "^(us|eu|ap)\\-\\w+\\-\\d+$"
    aws["regions"]["ap-east-2"] = {"description": "Asia Pacific (Taipei)"}
    current["partitions"][1]["outputs"]["dnsSuffix"] = "amazonaws.cn"
    del current["partitions"][1]["regions"]["cn-north-1"]
    current["partitions"].append(
        {
            "id": "aws-x",
            "outputs": {"dnsSuffix": "example.x", "name": "aws-x"},
            "regionRegex": "^x\\-\\w+\\-\\d+$",
            "regions": {"x-east-1": {"description": "X"}},
        }
    )
    assert partition_differences(PARTITIONS, current) == [
        "partition added: aws-x (dnsSuffix example.x, regionRegex ^x\\-\\w+\\-\\d+$, "
        "regions x-east-1)",
        "partition aws: regionRegex '^(us|eu)\\-\\w+\\-\\d+$' -> '^(us|eu|ap)\\-\\w+\\-\\d+$'",
        "partition aws: region added: ap-east-2",
        "partition aws-cn: dnsSuffix 'amazonaws.com.cn' -> 'amazonaws.cn'",
        "partition aws-cn: region removed: cn-north-1",
    ]


def test_partitions_reordered_removed_or_only_described_anew() -> None:
    current = copy.deepcopy(PARTITIONS)
    current["partitions"][0]["regions"]["us-east-1"]["description"] = "US East"
    assert partition_differences(PARTITIONS, current) == []
    current["partitions"].reverse()
    assert partition_differences(PARTITIONS, current) == [
        "partitions: order aws, aws-cn -> aws-cn, aws"
    ]
    assert partition_differences(
        PARTITIONS, {"partitions": [PARTITIONS["partitions"][0]], "version": "1.1"}
    ) == ["partition removed: aws-cn"]


def test_paginators_added_and_changed() -> None:
    vendored = {"pagination": {"ListThings": {"input_token": "NextToken", "limit_key": "Max"}}}
    current = {
        "pagination": {
            "ListThings": {"input_token": "NextToken", "limit_key": "MaxResults"},
            "ListOthers": {"input_token": "NextToken"},
        }
    }
    assert paginator_differences(vendored, current) == [
        "paginators: paginator added: ListOthers",
        "paginator ListThings: limit_key 'Max' -> 'MaxResults'",
    ]


def test_release_numbers_compare_as_numbers() -> None:
    assert version_key("1.44.18") > version_key("1.44.9") > version_key("1.43.11")
    assert version_key("1.44.18") == (1, 44, 18)
    with pytest.raises(ValueError, match="not a release number"):
        version_key("latest")


NOTICE = """pytest-schedemu

holds the EventBridge Scheduler service model
as published in botocore 1.44.18 (https://github.com/boto/botocore), unchanged.

pytest_schedemu/model/data/partitions.json is botocore 1.43.11's partition table
(https://github.com/boto/botocore).
"""


def test_the_notice_names_the_new_release_in_both_paragraphs() -> None:
    rewritten = rewrite_notice(NOTICE, "1.45.0")
    assert rewritten == NOTICE.replace("1.44.18", "1.45.0").replace("1.43.11", "1.45.0")


def test_a_notice_that_no_longer_names_a_release_is_refused() -> None:
    with pytest.raises(ValueError, match="partition"):
        rewrite_notice(NOTICE.replace("1.43.11's partition table", "the partition table"), "2")


# -- the tool on copies of the vendored files ------------------------------------------------


def copy_of_package(root: Path) -> Layout:
    """A layout under ``root`` holding copies of the package's vendored files and NOTICE."""
    layout = Layout(root / "pytest_schedemu", root / "NOTICE")
    for path in (layout.partitions, layout.version_file, layout.sdk_service_names):
        path.parent.mkdir(parents=True, exist_ok=True)
    for model in MODELS:
        layout.model_folder(model).mkdir(parents=True)
        shutil.copyfile(PACKAGE.service_file(model), layout.service_file(model))
        shutil.copyfile(PACKAGE.paginators_file(model), layout.paginators_file(model))
    shutil.copyfile(PACKAGE.partitions, layout.partitions)
    shutil.copyfile(PACKAGE.version_file, layout.version_file)
    shutil.copyfile(PACKAGE.notice, layout.notice)
    return layout


def fake_botocore(
    root: Path, model: dict[str, Any], version: str, events: dict[str, Any] | None = None
) -> Botocore:
    """A botocore data folder holding ``model`` as the scheduler model and ``events`` (the
    vendored one when None) as the events model, gzipped, as botocore ships them."""
    source = Botocore(root / "data", version)
    events = json.loads(PACKAGE.service_file(EVENTS).read_text()) if events is None else events
    for vendored, data in zip(MODELS, (model, events)):
        folder = source.data / vendored.service / vendored.api_version
        folder.mkdir(parents=True)
        (folder / "service-2.json.gz").write_bytes(gzip.compress(json.dumps(data).encode()))
        shutil.copyfile(PACKAGE.paginators_file(vendored), folder / "paginators-1.json")
    shutil.copyfile(PACKAGE.partitions, source.data / "partitions.json")
    # A service botocore names otherwise than the SDKs do, and one it names alike.
    for name, service_id in (("cognito-idp", "Cognito Identity Provider"), ("sqs", "SQS")):
        other = source.data / name / "2016-04-18"
        other.mkdir(parents=True)
        metadata = {"metadata": {"serviceId": service_id}}
        (other / "service-2.json.gz").write_bytes(gzip.compress(json.dumps(metadata).encode()))
    return source


def test_vendoring_writes_the_model_decompressed_and_records_the_release(tmp_path: Path) -> None:
    layout = copy_of_package(tmp_path / "checkout")
    model = json.loads(PACKAGE.service.read_text())
    model["shapes"]["Target"]["members"]["NewParameters"] = {"shape": "SqsParameters"}
    source = fake_botocore(tmp_path, model, "9.1.2")
    assert differences(layout, source) == [
        "scheduler: shape Target: member added: NewParameters (shape SqsParameters)"
    ]
    vendor(layout, source)
    assert layout.service.read_bytes() == json.dumps(model).encode()
    assert json.loads(layout.sdk_service_names.read_text()) == {
        "cognitoidentityprovider": "cognito-idp",
        "eventbridge": "events",
    }
    assert layout.version_file.read_text() == "9.1.2\n"
    notice = layout.notice.read_text()
    assert "as published in botocore 9.1.2 (" in notice
    assert "is botocore 9.1.2's partition table" in notice
    assert differences(layout, source) == []
    assert changed_files(layout, source) == []


def test_the_installed_botocore_vendored_into_a_copy_is_its_files_byte_for_byte(
    tmp_path: Path,
) -> None:
    layout = copy_of_package(tmp_path)
    source = Botocore.installed()
    vendor(layout, source)
    for model in MODELS:
        assert layout.service_file(model).read_bytes() == gzip.decompress(
            (source.data / model.service / model.api_version / "service-2.json.gz").read_bytes()
        )
    assert layout.partitions.read_bytes() == (source.data / "partitions.json").read_bytes()
    assert layout.version_file.read_text().strip() == source.version
    out = io.StringIO()
    assert check(layout, source, out) == 0
    assert out.getvalue().splitlines()[-1] == "no differences"


def test_check_lists_the_differences_and_fails(tmp_path: Path) -> None:
    layout = copy_of_package(tmp_path / "checkout")
    model = json.loads(PACKAGE.service.read_text())
    model["shapes"]["ScheduleState"]["enum"].append("PAUSED")
    out = io.StringIO()
    assert check(layout, fake_botocore(tmp_path, model, "9.0.0"), out) == 1
    assert out.getvalue().splitlines()[1:] == [
        "scheduler: shape ScheduleState: enum value added: PAUSED"
    ]


def test_check_passes_a_change_of_documentation_and_says_so(tmp_path: Path) -> None:
    layout = copy_of_package(tmp_path / "checkout")
    model = json.loads(PACKAGE.service.read_text())
    model["shapes"]["Target"]["documentation"] = "<p>Another word.</p>"
    out = io.StringIO()
    assert check(layout, fake_botocore(tmp_path, model, "9.0.0"), out) == 0
    assert out.getvalue().splitlines()[1:] == ["only documentation differs"]


def test_check_lists_a_change_to_the_events_model_under_its_name(tmp_path: Path) -> None:
    layout = copy_of_package(tmp_path / "checkout")
    scheduler = json.loads(PACKAGE.service.read_text())
    events = json.loads(PACKAGE.service_file(EVENTS).read_text())
    events["shapes"]["RuleState"]["enum"].append("PAUSED")
    events["shapes"]["RetryPolicy"]["members"]["MaximumRetryAttempts"]["documentation"] = "x"
    out = io.StringIO()
    assert check(layout, fake_botocore(tmp_path, scheduler, "9.0.0", events), out) == 1
    assert out.getvalue().splitlines()[1:] == ["events: shape RuleState: enum value added: PAUSED"]


def test_vendoring_writes_the_events_model_where_none_was(tmp_path: Path) -> None:
    layout = copy_of_package(tmp_path / "checkout")
    shutil.rmtree(layout.model_folder(EVENTS))
    source = fake_botocore(tmp_path, json.loads(PACKAGE.service.read_text()), "9.1.0")
    assert "events: metadata: targetPrefix added: 'AWSEvents'" in differences(layout, source)
    assert {
        "pytest_schedemu/protocol/data/events/2015-10-07/service-2.json",
        "pytest_schedemu/protocol/data/events/2015-10-07/paginators-1.json",
    } <= set(changed_files(layout, source))
    vendor(layout, source)
    vendored = json.loads(layout.service_file(EVENTS).read_text())
    assert vendored == json.loads(PACKAGE.service_file(EVENTS).read_text())
    assert differences(layout, source) == []
