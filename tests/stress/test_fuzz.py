"""Fuzzing the wire: requests generated from the service model, sent raw over HTTP and
through boto3, and garbage.

Every answer must be an AWS-shaped JSON error or success, never a 500 or HTML, and a
rejected request must leave the store exactly as it was.
"""

from __future__ import annotations

import http.client
import json
import string
from collections import Counter
from collections.abc import Iterator
from datetime import datetime, timezone
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_schedemu import Emulator
from pytest_schedemu.scheduler_api.app import service_validator

pytestmark = pytest.mark.stress

MODEL = service_validator().model
OPERATIONS = sorted(MODEL.operation_names)
ALLOWED_ERRORS = {
    "ValidationException",
    "SerializationException",
    "ResourceNotFoundException",
    "ConflictException",
    "ServiceQuotaExceededException",
    "UnknownOperationException",
    "RequestEntityTooLargeException",
    "UnsupportedMediaTypeException",
}
ODD_TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)
NEAR_NAMES = st.sampled_from(["default", "g", "s1", "a/b", "", "x" * 65, "ünï", "g.1-_"])


def valid_string(shape: Any) -> st.SearchStrategy[str]:
    enum = getattr(shape, "enum", None)
    if enum:
        return st.sampled_from(list(enum))
    low = shape.metadata.get("min", 0)
    high = min(shape.metadata.get("max", 80), 80)
    pattern = shape.metadata.get("pattern")
    if pattern and "(?" not in pattern:
        return st.from_regex(pattern, fullmatch=True).filter(lambda s: low <= len(s) <= high)
    return st.text(string.ascii_letters + string.digits + "-_.", min_size=low, max_size=high)


def value(shape: Any, depth: int = 0) -> st.SearchStrategy[Any]:
    """Mostly valid values, sometimes near-valid, sometimes of the wrong type."""
    kind = shape.type_name
    garbage = st.one_of(
        st.none(), st.integers(), st.booleans(), ODD_TEXT, st.lists(st.integers(), max_size=2)
    )
    if kind == "string":
        good: st.SearchStrategy[Any] = valid_string(shape)
        near: st.SearchStrategy[Any] = st.one_of(NEAR_NAMES, ODD_TEXT, st.just("y" * 3000))
    elif kind == "integer":
        low, high = shape.metadata.get("min", -10), shape.metadata.get("max", 10**6)
        good = st.integers(low, high)
        near = st.sampled_from([low - 1, high + 1, 2**63, -(2**63), 1.5])
    elif kind == "boolean":
        good, near = st.booleans(), st.sampled_from(["true", 1])
    elif kind == "timestamp":
        good = st.integers(1772352000 - 600, 1772352000 + 10**7)
        near = st.sampled_from(["2026-03-01T08:00:00Z", "yesterday", 1e300, -1e20])
    elif kind == "list":
        good = st.lists(value(shape.member, depth + 1), max_size=3)
        near = st.lists(value(shape.member, depth + 1), min_size=0, max_size=7)
    elif kind == "map":
        good = st.dictionaries(st.text(max_size=5), st.text(max_size=5), max_size=3)
        near = st.dictionaries(ODD_TEXT, ODD_TEXT, max_size=2)
    else:
        if depth > 4:
            return st.just({})
        members = {
            name: value(member, depth + 1)
            for name, member in shape.members.items()
            if member.serialization.get("location") is None
        }
        required = {name: s for name, s in members.items() if name in shape.required_members}
        optional = {name: s for name, s in members.items() if name not in required}
        good = st.fixed_dictionaries(required, optional=optional)
        near = st.fixed_dictionaries({}, optional=members)
    return st.one_of(good, good, good, near, garbage)


def request_for(operation: str) -> st.SearchStrategy[tuple[str, str, bytes]]:
    model = MODEL.operation_model(operation)
    shape = model.input_shape
    labels, queries = {}, {}
    for name, member in shape.members.items():
        location = member.serialization.get("location")
        wire = member.serialization.get("name", name)
        if location == "uri":
            labels[wire] = st.one_of(valid_string(member), NEAR_NAMES, ODD_TEXT.filter(bool))
        elif location == "querystring":
            queries[wire] = st.one_of(
                valid_string(member)
                if member.type_name == "string"
                else st.integers(-5, 200).map(str),
                ODD_TEXT,
            )

    @st.composite
    def build(draw: Any) -> tuple[str, str, bytes]:
        path = model.http["requestUri"]
        for wire, strategy in labels.items():
            path = path.replace("{" + wire + "}", quote(draw(strategy), safe=""))
        query = draw(st.fixed_dictionaries({}, optional=queries))
        body = draw(value(shape)) if model.http["method"] in ("POST", "PUT") else None
        target = path + ("?" + urlencode(query) if query else "")
        data = b"" if body is None else json.dumps(body).encode()
        return model.http["method"], target, data

    return build()


GARBAGE = st.tuples(
    st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"]),
    st.one_of(
        st.sampled_from(
            [
                "/",
                "/schedules",
                "/schedules/",
                "/schedule-groups//x",
                "/tags/",
                "/%00",
                "/..",
                "/schedules/a%2Fb",
                "/tags/arn%3Aaws",
                "/_schedemu/",
                "/schedules?MaxResults=x",
            ]
        ),
        st.text(string.printable.strip(), max_size=40).map(lambda p: "/" + quote(p, safe="/?=&")),
    ),
    st.one_of(
        st.binary(max_size=60),
        st.sampled_from([b"{", b"[]", b"null", b'{"Name": {"x": 1}}', b"\xff" * 10]),
        st.just(b'{"Description": "' + b"z" * (1024 * 1024) + b'"}'),
    ),
    st.sampled_from(["application/json", "text/html", "application/x-www-form-urlencoded", ""]),
)


@pytest.fixture(scope="module")
def target() -> Iterator[tuple[Emulator, http.client.HTTPConnection]]:
    with Emulator(start=datetime(2026, 3, 1, 8, tzinfo=timezone.utc)) as emu:
        host, port = emu.endpoint_url.removeprefix("http://").split(":")
        yield emu, http.client.HTTPConnection(host, int(port), timeout=30)


def send(
    target: tuple[Emulator, http.client.HTTPConnection],
    method: str,
    path: str,
    body: bytes,
    content_type: str = "application/json",
) -> str:
    """Sends one request and checks the answer; says how far it went."""
    emu, connection = target
    before = emu.debug.state_snapshot()
    headers = {"Content-Type": content_type} if content_type else {}
    try:
        connection.request(method, path, body=body or None, headers=headers)
    except ValueError:
        return "refused by the HTTP client"
    try:
        response = connection.getresponse()
    except (http.client.HTTPException, OSError):
        # The server hung up on a request line it could not read: nothing reached the API.
        connection.close()
        assert emu.debug.state_snapshot() == before
        return "hung up on"
    data = response.read()
    status = response.status
    assert status != 500, data
    assert emu.server_errors == []
    if method == "HEAD":
        return "answered"
    assert response.getheader("Content-Type") == "application/json", (status, data[:200])
    document = json.loads(data)
    assert isinstance(document, dict)
    if status == 200:
        return "answered"
    assert set(document) == {"Message", "__type"}, document
    assert document["__type"] in ALLOWED_ERRORS, document
    assert response.getheader("x-amzn-ErrorType") == document["__type"]
    assert emu.debug.state_snapshot() == before, (method, path, document)
    return "answered"


FUZZ = settings(
    max_examples=850,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)


def assert_every_case_ran(cases: Counter[str], what: str) -> None:
    """A fuzz test's claim: it tried as many cases as it draws, whatever became of them."""
    drawn = sum(cases.values())
    assert drawn >= FUZZ.max_examples, (
        f"{what}: {drawn} cases of {FUZZ.max_examples} ({dict(cases)})"
    )


@pytest.mark.parametrize("operation", OPERATIONS)
def test_model_generated_requests(
    target: tuple[Emulator, http.client.HTTPConnection], operation: str
) -> None:
    cases: Counter[str] = Counter()

    @FUZZ
    @given(request_for(operation))
    def run(request: tuple[str, str, bytes]) -> None:
        cases[send(target, *request)] += 1

    run()
    assert_every_case_ran(cases, operation)


def test_garbage_requests(target: tuple[Emulator, http.client.HTTPConnection]) -> None:
    cases: Counter[str] = Counter()

    @FUZZ
    @given(GARBAGE)
    def run(garbage: Any) -> None:
        method, path, body, content_type = garbage
        cases[send(target, method, path, body, content_type)] += 1

    run()
    assert_every_case_ran(cases, "garbage")


MODELLED_ERRORS = {
    "ValidationException",
    "ResourceNotFoundException",
    "ConflictException",
    "ServiceQuotaExceededException",
}


def boto3_arguments(operation: str) -> st.SearchStrategy[dict[str, Any]]:
    """Keyword arguments for the boto3 method: every member, wherever it travels."""
    shape = MODEL.operation_model(operation).input_shape
    members = {name: value(member) for name, member in shape.members.items()}
    required = {name: s for name, s in members.items() if name in shape.required_members}
    optional = {name: s for name, s in members.items() if name not in required}
    return st.fixed_dictionaries(required, optional=optional)


@pytest.fixture(scope="module")
def lax_client(target: tuple[Emulator, http.client.HTTPConnection]) -> Iterator[Any]:
    """A client that sends what botocore's own validation would stop, over HTTP."""
    from botocore.config import Config

    emu = target[0]
    client = emu.client(
        config=Config(parameter_validation=False, retries={"total_max_attempts": 1})
    )
    yield client
    client.close()


@pytest.mark.parametrize("operation", OPERATIONS)
def test_model_generated_calls_through_boto3(
    target: tuple[Emulator, http.client.HTTPConnection], lax_client: Any, operation: str
) -> None:
    from botocore import xform_name
    from botocore.exceptions import ClientError

    emu = target[0]
    method = getattr(lax_client, xform_name(operation))
    sent: list[object] = []
    lax_client.meta.events.register("before-send.scheduler", lambda **_: sent.append(1))
    cases: Counter[str] = Counter()

    @FUZZ
    @given(boto3_arguments(operation))
    def run(arguments: dict[str, Any]) -> None:
        before = emu.debug.state_snapshot()
        sent.clear()
        try:
            method(**arguments)
            cases["answered"] += 1
        except ClientError as error:
            code = error.response["Error"]["Code"]
            assert error.response["ResponseMetadata"]["HTTPStatusCode"] != 500, error
            assert code in ALLOWED_ERRORS, error
            if code in MODELLED_ERRORS:
                assert type(error) is getattr(lax_client.exceptions, code)
            assert emu.debug.state_snapshot() == before, (operation, arguments, code)
            cases["answered"] += 1
        except Exception:
            # botocore could not serialize the arguments (a missing label, a timestamp
            # it cannot convert…): that is fine only if nothing was sent.
            assert not sent
            cases["refused by boto3"] += 1
            assert emu.debug.state_snapshot() == before
        assert emu.server_errors == []

    run()
    assert_every_case_ran(cases, f"{operation} through boto3")
