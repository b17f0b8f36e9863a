"""The stand-alone HTML page around the drawing."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import timedelta

from pytest_schedemu.timeline import render_timeline_html, render_timeline_svg
from tests.constants import DLQ

from .records import NOON, SVG, DeadLetter, Schedule, data, occurrence

S = Schedule("job")


def page_data() -> object:
    executions = [
        occurrence(S.arn, NOON, "ok"),
        occurrence(
            S.arn, NOON + timedelta(hours=1), "retry retry", exhausted="MaximumRetryAttempts"
        ),
    ]
    letter = DeadLetter(DLQ, S.arn, NOON + timedelta(hours=1), NOON + timedelta(hours=1, minutes=1))
    return data(schedules=[S], executions=executions, dead_letters=[letter])


def test_the_page_is_one_self_contained_document_holding_the_drawing() -> None:
    page = render_timeline_html(page_data(), title="nightly run")
    assert page.startswith("<!DOCTYPE html>")
    root = ET.fromstring(page.split("\n", 1)[1])
    assert root.find("head/style") is not None
    assert root.find("head/title").text == "nightly run"
    assert root.find(f"body/main/{SVG}svg") is not None
    assert "<link" not in page and "src=" not in page


def test_the_page_counts_attempts_by_outcome() -> None:
    page = render_timeline_html(page_data())
    root = ET.fromstring(page.split("\n", 1)[1])
    counts = [" ".join(li.itertext()) for li in root.iter("li")]
    assert counts == ["1 delivered", "2 failed, retryable", "1 dead-lettered"]
    assert "3 attempts" in "".join(root.find("body/header").itertext())


def test_the_drawing_alone_is_an_svg_element_with_its_own_scoped_style() -> None:
    svg = render_timeline_svg(page_data(), width=900)
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    assert root.get("width") == "900"
    style = root.find(f"{SVG}style")
    assert style is not None and style.text is not None
    rules = [rule for rule in style.text.split("}") if rule]
    assert all(rule.startswith(".schedemu-timeline") for rule in rules)
