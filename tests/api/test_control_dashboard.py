"""The control API routes the dashboard reads: its page, the summary, schedules and groups
in pages, the timeline as SVG, records newest first; and the page's security."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import boto3
import pytest

from pytest_schedemu import Emulator
from tests.constants import DLQ, FUNCTION, ROLE
from tests.helpers import create

#: The expected next occurrences and timeline windows below are worked out from here.
SATURDAY_NOON = "2026-03-07T12:00:00Z"


class Answer:
    def __init__(self, status: int, content_type: str, body: bytes) -> None:
        self.status = status
        self.content_type = content_type
        self.body = body

    @property
    def text(self) -> str:
        return self.body.decode()

    @property
    def json(self) -> Any:
        return json.loads(self.body)


def get(emu: Emulator, route: str, method: str = "GET") -> Answer:
    request = urllib.request.Request(f"{emu.endpoint_url}/_schedemu/{route}", method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return Answer(response.status, response.headers["Content-Type"], response.read())
    except urllib.error.HTTPError as error:
        return Answer(error.code, error.headers["Content-Type"], error.read())


@pytest.fixture(scope="module")
def served() -> Iterator[Emulator]:
    with Emulator(start=SATURDAY_NOON) as emu:
        yield emu


@pytest.fixture
def emu(served: Emulator) -> Emulator:
    served.reset(start=SATURDAY_NOON)
    return served


def client(emu: Emulator, region: str = "us-east-1", account: str = "testing") -> Any:
    return boto3.client(
        "scheduler",
        endpoint_url=emu.endpoint_url,
        region_name=region,
        aws_access_key_id=account,
        aws_secret_access_key="testing",
    )


@pytest.fixture
def several(emu: Emulator) -> Emulator:
    """Five schedules: two groups, a disabled one, a zoned cron, another region and account."""
    scheduler = client(emu)
    scheduler.create_schedule_group(Name="billing")
    create(scheduler, "alpha")
    create(scheduler, "beta", State="DISABLED")
    create(
        scheduler,
        "morning",
        "cron(0 9 * * ? *)",
        ScheduleExpressionTimezone="America/New_York",
        GroupName="billing",
    )
    create(
        client(emu, region="eu-west-1"),
        "gamma",
        target={"Arn": "arn:aws:sqs:eu-west-1:123456789012:queue", "RoleArn": ROLE},
    )
    create(
        client(emu, account="111122223333"),
        "delta",
        target={
            "Arn": "arn:aws:sqs:us-east-1:111122223333:queue",
            "RoleArn": "arn:aws:iam::111122223333:role/scheduler",
        },
    )
    return emu


# -- the page ---------------------------------------------------------------------------


def test_the_page_and_its_files_are_served_from_the_package(emu: Emulator) -> None:
    page = get(emu, "ui")
    assert (page.status, page.content_type) == (200, "text/html; charset=utf-8")
    assert '<script src="/_schedemu/ui/app.js"' in page.text
    assert get(emu, "ui/").status == 200
    script, style = get(emu, "ui/app.js"), get(emu, "ui/style.css")
    assert script.content_type.startswith("text/javascript") and "import " in script.text
    assert style.content_type.startswith("text/css") and ".topbar" in style.text


def test_the_page_loads_nothing_from_the_network(emu: Emulator) -> None:
    for route in ("ui", "ui/app.js", "ui/style.css"):
        text = get(emu, route).text
        assert "http://" not in text and "https://" not in text and "//cdn" not in text


def test_the_page_answers_get_only(emu: Emulator) -> None:
    answer = get(emu, "ui", method="POST")
    assert answer.status == 404
    assert answer.json["__type"] == "UnknownOperationException"


def test_with_signatures_verified_the_page_is_disabled_and_says_why() -> None:
    with Emulator(
        start=SATURDAY_NOON, verify_signatures=True, credentials={"AKID": "secret"}
    ) as emu:
        page = get(emu, "ui")
        assert (page.status, page.content_type) == (403, "text/html; charset=utf-8")
        assert "dashboard is disabled" in page.text and "verify_signatures" in page.text
        assert get(emu, "ui/app.js").status == 403
        unsigned = get(emu, "schedules")
        assert unsigned.status == 403
        assert unsigned.content_type == "application/json"


# -- the summary ------------------------------------------------------------------------


def test_the_summary_counts_what_changed(several: Emulator) -> None:
    before = get(several, "summary").json
    assert before["now"] == "2026-03-07T12:00:00Z"
    assert (before["clock"], before["schedule_count"], before["group_count"]) == ("virtual", 5, 4)
    assert before["accounts"] == ["111122223333", "123456789012"]
    assert before["regions"] == ["eu-west-1", "us-east-1"]
    several.clock.advance(hours=1)
    after = get(several, "summary").json
    assert after["written"]["attempts"] > before["written"]["attempts"]
    several.reset()
    assert get(several, "summary").json["written"]["generation"] == (
        after["written"]["generation"] + 1
    )


# -- schedules and groups ---------------------------------------------------------------


def test_schedules_come_in_pages_by_account_region_group_and_name(several: Emulator) -> None:
    first = get(several, "schedules?limit=2").json
    assert first["total"] == 5
    names = [s["name"] for s in first["schedules"]]
    token = first["next_token"]
    while token is not None:
        page = get(several, f"schedules?limit=2&next_token={token}").json
        names += [s["name"] for s in page["schedules"]]
        token = page["next_token"]
    assert names == ["delta", "gamma", "morning", "alpha", "beta"]


def test_each_schedule_has_its_next_occurrence_in_utc_and_on_its_clock(
    several: Emulator,
) -> None:
    [morning] = get(several, "schedules?group=billing").json["schedules"]
    assert morning["next_occurrence"] == "2026-03-07T14:00:00Z"
    assert morning["next_occurrence_local"] == "2026-03-07 09:00:00 EST"
    assert morning["timezone"] == "America/New_York"
    assert morning["arn"].endswith(":schedule/billing/morning")
    [beta] = get(several, "schedules?state=DISABLED").json["schedules"]
    assert beta["name"] == "beta" and beta["next_occurrence"] is None


def test_each_schedule_says_what_its_target_is_and_calls(emu: Emulator) -> None:
    bus = "arn:aws:events:us-east-1:123456789012:event-busv2/orders/abcdefghij0123456789klmno"
    raw = {"EventBridgePutRawEventsParameters": {}}
    create(client(emu), "raw", target={"Arn": bus, "Input": "x", **raw})
    create(client(emu), "queue")
    shown = {
        s["name"]: (s["target_kind"], s["target_resource"], s["target_operation"])
        for s in get(emu, "schedules").json["schedules"]
    }
    assert shown == {
        "raw": ("eventsv2", "orders", "PutRawEvents"),
        "queue": ("sqs", "queue", "SendMessage"),
    }


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ("account_id=111122223333", ["delta"]),
        ("region=eu-west-1", ["gamma"]),
        ("group=default&region=us-east-1&account_id=123456789012", ["alpha", "beta"]),
        ("state=ENABLED", ["delta", "gamma", "morning", "alpha"]),
        ("prefix=mo", ["morning"]),
    ],
)
def test_schedules_filter_by_account_region_group_state_and_prefix(
    several: Emulator, filters: str, expected: list[str]
) -> None:
    answer = get(several, "schedules?" + filters).json
    assert [s["name"] for s in answer["schedules"]] == expected
    assert answer["total"] == len(expected)


def test_a_token_made_for_other_filters_is_refused(several: Emulator) -> None:
    token = get(several, "schedules?limit=1").json["next_token"]
    answer = get(several, f"schedules?limit=1&state=ENABLED&next_token={token}")
    assert answer.status == 400
    assert answer.json["Message"] == "The NextToken provided is invalid."


def test_an_unknown_state_is_a_clear_error(several: Emulator) -> None:
    answer = get(several, "schedules?state=PAUSED")
    assert answer.status == 400
    assert "expected ENABLED, DISABLED or DELETED" in answer.json["Message"]


def test_groups_are_listed_with_their_schedule_counts(several: Emulator) -> None:
    answer = get(several, "groups?account_id=123456789012&region=us-east-1").json
    assert [(g["name"], g["schedule_count"], g["state"]) for g in answer["groups"]] == [
        ("billing", 1, "ACTIVE"),
        ("default", 2, "ACTIVE"),
    ]
    everywhere = get(several, "groups?limit=3").json
    assert everywhere["total"] == 4 and everywhere["next_token"] is not None


# -- the timeline -----------------------------------------------------------------------


def test_the_timeline_is_an_svg_of_the_chosen_schedule(several: Emulator) -> None:
    several.clock.advance(hours=3)
    answer = get(several, "timeline?schedule=alpha&group=default")
    assert (answer.status, answer.content_type) == (200, "image/svg+xml; charset=utf-8")
    assert answer.text.startswith("<svg")
    assert answer.text.count("<title>Attempt 1 · delivered") == 4
    assert 'data-arn="arn:aws:scheduler:us-east-1:123456789012:schedule/default/beta"' not in (
        answer.text
    )


def test_the_timeline_of_listed_arns_draws_their_lanes_and_next_occurrences(
    several: Emulator,
) -> None:
    schedules = get(several, "schedules?group=billing").json["schedules"]
    arns = ",".join(s["arn"] for s in schedules)
    answer = get(
        several,
        f"timeline?schedules={arns}&since=2026-03-07T00:00:00Z&until=2026-03-09T00:00:00Z",
    )
    assert answer.text.count("data-arn=") == 1
    assert answer.text.count('class="next-occurrence"') == 2  # 14:00Z on the 7th and the 8th


@pytest.mark.parametrize(
    ("query", "status", "words"),
    [
        ("schedule=nothing", 404, "No schedule 'nothing' ever existed"),
        ("group=nowhere", 404, "No schedule group 'nowhere' ever existed"),
        ("since=2026-03-08T00:00:00Z&until=2026-03-07T00:00:00Z", 400, "must come before"),
        ("since=yesterday", 400, "Unsupported since 'yesterday'"),
        ("width=10", 400, "Invalid width '10'"),
    ],
)
def test_a_bad_timeline_request_says_what_is_wrong(
    several: Emulator, query: str, status: int, words: str
) -> None:
    answer = get(several, "timeline?" + query)
    assert answer.status == status
    assert words in answer.json["Message"]


# -- records newest first ---------------------------------------------------------------


def test_attempts_come_newest_first_with_order_newest(several: Emulator) -> None:
    several.clock.advance(hours=2)
    oldest = [a["attempted_at"] for a in get(several, "attempts?schedule=alpha").json["attempts"]]
    first = get(several, "attempts?schedule=alpha&order=newest&limit=2").json
    second = get(
        several, f"attempts?schedule=alpha&order=newest&limit=2&next_token={first['next_token']}"
    ).json
    newest = [a["attempted_at"] for a in first["attempts"] + second["attempts"]]
    assert newest == oldest[::-1]
    assert second["next_token"] is None


def test_activity_comes_newest_first_and_filtered_with_order_newest(several: Emulator) -> None:
    oldest = get(several, "activity?kind=created").json["activity"]
    assert len(oldest) >= 2
    newest = get(several, "activity?kind=created&order=newest").json["activity"]
    assert newest == oldest[::-1]
    assert {a["kind"] for a in newest} == {"created"}


def test_an_unknown_order_is_a_clear_error(several: Emulator) -> None:
    answer = get(several, "attempts?order=random")
    assert answer.status == 400
    assert "expected oldest or newest" in answer.json["Message"]


def test_dead_letters_filter_by_schedule(emu: Emulator) -> None:
    scheduler = client(emu)
    target = {
        "Arn": FUNCTION,
        "RoleArn": ROLE,
        "RetryPolicy": {"MaximumRetryAttempts": 0},
        "DeadLetterConfig": {"Arn": DLQ},
    }
    create(scheduler, "charge", target=target)
    create(scheduler, "other")
    emu.target(FUNCTION).fail(error_code="ThrottlingException")
    emu.clock.advance(hours=1)
    letters = get(emu, "dead-letters?schedule=charge&order=newest").json["dead_letters"]
    assert [d["attributes"]["ERROR_CODE"] for d in letters] == ["ThrottlingException"] * 2
    assert get(emu, "dead-letters?schedule=other").json["dead_letters"] == []
    assert get(emu, "dead-letters?schedule=typo").status == 404


def test_a_dead_letters_json_shows_its_input_beside_the_body(emu: Emulator) -> None:
    target = {
        "Arn": FUNCTION,
        "RoleArn": ROLE,
        "Input": '{"user": "<aws.scheduler.execution-id>"}',
        "RetryPolicy": {"MaximumRetryAttempts": 0},
        "DeadLetterConfig": {"Arn": DLQ},
    }
    create(client(emu), "charge", target=target)
    emu.target(FUNCTION).fail(retryable=False)
    emu.clock.advance(hours=1)
    letters = get(emu, "dead-letters?schedule=charge").json["dead_letters"]
    attempts = get(emu, "attempts?schedule=charge").json["attempts"]
    assert len(letters) == len(attempts) > 0
    for letter, attempt in zip(letters, attempts):
        assert json.loads(letter["input"]) == {"user": attempt["execution_id"]}
        assert letter["input"] == attempt["input"]
        assert letter["payload"]["FunctionName"] == FUNCTION  # the body: Lambda's Invoke


def test_attempts_filter_by_outcome(emu: Emulator) -> None:
    scheduler = client(emu)
    create(scheduler, "charge", target={"Arn": FUNCTION, "RoleArn": ROLE})
    create(scheduler, "ping")
    emu.target(FUNCTION).fail(error_code="ThrottlingException", times=1)
    emu.clock.advance(hours=1)

    def outcomes(query: str) -> list[tuple[str, bool]]:
        answer = get(emu, "attempts" + query).json["attempts"]
        return [(a["schedule_arn"].rsplit("/", 1)[1], a["succeeded"]) for a in answer]

    everything = outcomes("")
    assert outcomes("?outcome=all") == everything
    assert outcomes("?outcome=failed") == [("charge", False)]
    assert outcomes("?outcome=succeeded") == [a for a in everything if a[1]]
    assert len(outcomes("?outcome=succeeded")) == len(everything) - 1
    # The outcome is one of the filters a page token was made for.
    token = get(emu, "attempts?outcome=succeeded&limit=1").json["next_token"]
    assert get(emu, f"attempts?outcome=failed&limit=1&next_token={token}").status == 400
    answer = get(emu, "attempts?outcome=delivered")
    assert answer.status == 400
    assert "expected all, succeeded or failed" in answer.json["Message"]


@pytest.fixture
def deletions(emu: Emulator) -> Emulator:
    """Schedules deleted every way: after their last occurrence, by a call, with their
    group; one deleted and made again, one kept."""
    scheduler = client(emu)
    create(scheduler, "trial", "at(2026-03-07T12:30:00)", ActionAfterCompletion="DELETE")
    create(scheduler, "cancelled")
    create(scheduler, "again")
    create(scheduler, "kept")
    scheduler.create_schedule_group(Name="team")
    create(scheduler, "in-team", GroupName="team")
    emu.clock.advance(hours=1)
    scheduler.delete_schedule(Name="cancelled")
    scheduler.delete_schedule(Name="again")
    create(scheduler, "again", "rate(2 hours)")
    emu.clock.advance(minutes=10)
    scheduler.delete_schedule_group(Name="team")
    return emu


def test_deleted_schedules_are_listed_with_when_and_how_on_request(deletions: Emulator) -> None:
    stored = get(deletions, "schedules").json
    assert [s["name"] for s in stored["schedules"]] == ["again", "kept"]
    assert {(s["deleted_at"], s["deleted_by"]) for s in stored["schedules"]} == {(None, None)}
    listed = get(deletions, "schedules?include_deleted=true").json
    assert listed["total"] == 5
    assert [
        (s["group_name"], s["name"], s["state"], s["deleted_at"], s["deleted_by"])
        for s in listed["schedules"]
    ] == [
        ("default", "again", "ENABLED", None, None),
        ("default", "cancelled", "DELETED", "2026-03-07T13:00:00Z", "DeleteSchedule"),
        ("default", "kept", "ENABLED", None, None),
        ("default", "trial", "DELETED", "2026-03-07T12:30:00Z", "ActionAfterCompletion"),
        ("team", "in-team", "DELETED", "2026-03-07T13:10:00Z", "DeleteScheduleGroup"),
    ]
    [trial] = [s for s in listed["schedules"] if s["name"] == "trial"]
    # The last definition, as the timeline draws its lane; nothing comes next.
    assert trial["schedule_expression"] == "at(2026-03-07T12:30:00)"
    assert trial["next_occurrence"] is None
    [again] = [s for s in listed["schedules"] if s["name"] == "again"]
    assert again["schedule_expression"] == "rate(2 hours)"


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ("state=DELETED", ["cancelled", "trial", "in-team"]),
        ("state=DELETED&group=team", ["in-team"]),
        ("state=ENABLED&include_deleted=true", ["again", "kept"]),
        ("include_deleted=true&prefix=t", ["trial"]),
        ("include_deleted=false", ["again", "kept"]),
    ],
)
def test_deleted_schedules_filter_like_stored_ones(
    deletions: Emulator, filters: str, expected: list[str]
) -> None:
    answer = get(deletions, "schedules?" + filters).json
    assert [s["name"] for s in answer["schedules"]] == expected


def test_deleted_schedules_come_in_the_same_pages(deletions: Emulator) -> None:
    names, token = [], ""
    while token is not None:
        page = get(deletions, f"schedules?include_deleted=true&limit=2{token}").json
        names += [s["name"] for s in page["schedules"]]
        token = page["next_token"] and f"&next_token={page['next_token']}"
    assert names == ["again", "cancelled", "kept", "trial", "in-team"]
    first = get(deletions, "schedules?include_deleted=true&limit=1").json["next_token"]
    assert get(deletions, f"schedules?limit=1&next_token={first}").status == 400


def test_a_bad_include_deleted_is_a_clear_error(deletions: Emulator) -> None:
    answer = get(deletions, "schedules?include_deleted=yes")
    assert answer.status == 400
    assert "expected true or false" in answer.json["Message"]
    state = get(deletions, "schedules?state=GONE")
    assert "expected ENABLED, DISABLED or DELETED" in state.json["Message"]


def test_a_reset_forgets_deleted_schedules(deletions: Emulator) -> None:
    deletions.reset(start=SATURDAY_NOON)
    assert get(deletions, "schedules?include_deleted=true").json["schedules"] == []
