"""Anything in a record is shown as text: never markup, never a crash, never a fetch."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import timedelta

import pytest

from pytest_schedemu.timeline import render_timeline_html, render_timeline_svg

from .records import NOON, Activity, Schedule, data, find, lane, occurrence, parse, text, title

HOSTILE = [
    "]]><script>alert(1)</script>",
    '"/><image href="http://evil.example/x.png"/>',
    "lone \ud800 surrogate and \udfff another",
    "controls \x00\x01\x08\x0b\x1f\x7f and \ufffe\uffff",
    "&amp; &lt; <!-- comment --> <?pi?> <![CDATA[ x ]]>",
    "emoji 🦜 and right-to-left \u202e text",
]


def hostile_data(payload: str) -> object:
    schedule = Schedule(payload[:40] or "x", payload[:20] or "g", payload, "Not/A_Zone")
    execution = occurrence(schedule.arn, NOON, "retry ok", payload=payload, error_code=payload)
    activity = [Activity("updated", NOON + timedelta(minutes=5), schedule.arn, None, payload)]
    return data(
        schedules=[schedule],
        executions=[execution],
        activity=activity,
        now=NOON + timedelta(hours=1),
    )


@pytest.mark.parametrize("payload", HOSTILE)
def test_hostile_text_is_escaped_into_well_formed_xml(payload: str) -> None:
    svg = render_timeline_svg(hostile_data(payload))
    svg.encode("utf-8")
    root = parse(svg)
    assert not [e for e in root.iter() if e.tag.endswith("script")]
    assert not [e for e in root.iter() if e.tag.endswith("image")]
    (first, _) = find(find(root, "lane")[0], "attempt")
    assert "payload: " in title(first)


def test_escaped_text_reads_back_as_the_original_characters() -> None:
    payload = "<b>\"bold\" & 'quoted'</b>"
    root = parse(render_timeline_svg(hostile_data(payload)))
    (first, _) = find(find(root, "lane")[0], "attempt")
    assert f"payload: {payload}" in title(first)


def test_characters_xml_cannot_carry_become_replacement_characters() -> None:
    root = parse(render_timeline_svg(hostile_data("a\ud800b\x00c")))
    (first, _) = find(find(root, "lane")[0], "attempt")
    assert "payload: a\ufffdb\ufffdc" in title(first)


@pytest.mark.parametrize("render", [render_timeline_svg, render_timeline_html])
def test_the_output_has_no_script_and_no_address_but_the_svg_namespace(render: object) -> None:
    output = render(hostile_data(HOSTILE[0]))
    assert "<script" not in output
    addresses = set(re.findall(r"https?://[^\s\"'<>]*", output))
    assert addresses == {"http://www.w3.org/2000/svg"}


def test_a_hostile_title_is_escaped_in_the_page() -> None:
    page = render_timeline_html(data(), title="</title><script>x</script>")
    root = ET.fromstring(page.split("\n", 1)[1])
    assert not [e for e in root.iter() if e.tag == "script"]
    assert root.find("head/title").text == "</title><script>x</script>"


def test_an_unknown_zone_name_is_shown_but_not_used() -> None:
    root = parse(render_timeline_svg(hostile_data("plain")))
    found = find(root, "lane")[0]
    assert "Not/A_Zone" in text(found)
    assert find(found, "local-label") == []


def test_naive_datetimes_are_read_as_utc() -> None:
    schedule = Schedule("naive")
    naive = NOON.replace(tzinfo=None)
    execution = occurrence(schedule.arn, naive, "ok")
    root = parse(render_timeline_svg(data(schedules=[schedule], executions=[execution], now=naive)))
    (mark,) = find(lane(root, schedule.arn), "attempt")
    assert "2026-03-01 12:00:00Z" in title(mark)
