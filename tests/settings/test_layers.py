"""A test's options: marker over command line over ini over the emulator's own values, each
layer's value read the same way."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import pytest

from pytest_schedemu.delivery.backends import RecordingDelivery
from pytest_schedemu.settings.layers import Chosen, layered
from pytest_schedemu.settings.options import DEFAULTS, Settings


def choose(
    marker: dict[str, Any] | None = None,
    command_line: dict[str, str | None] | None = None,
    ini: dict[str, str | None] | None = None,
    own: Settings = DEFAULTS,
) -> Chosen:
    return layered(marker=marker or {}, command_line=command_line or {}, ini=ini or {}, own=own)


@pytest.mark.parametrize("value", [0, "0", False, "false", "off", "NO"])
def test_every_form_of_off_turns_interception_off(value: Any) -> None:
    assert choose(marker={"intercept": value}).plugin.intercept is False
    if isinstance(value, str):
        assert choose(ini={"intercept": value}).plugin.intercept is False


@pytest.mark.parametrize("value", [1, "1", True, "true", "on"])
def test_every_form_of_on_keeps_interception_on(value: Any) -> None:
    assert choose(marker={"intercept": value}, ini={"intercept": "false"}).plugin.intercept


@pytest.mark.parametrize(
    ("value", "mode"),
    [(True, "always"), ("true", "always"), (False, "never"), ("Always", "always"), (0, "never")],
)
def test_a_timeline_value_means_in_a_marker_what_its_text_means_in_the_ini(
    value: Any, mode: str
) -> None:
    assert choose(marker={"timeline": value}).plugin.timeline == mode
    assert choose(ini={"timeline": str(value)}).plugin.timeline == mode


@pytest.mark.parametrize(
    ("marker", "message"),
    [
        ({"intercept": "maybe"}, "Unsupported intercept 'maybe': expected one of"),
        ({"intercept": 2}, "Unsupported intercept 2: expected one of"),
        ({"timeline": "sometimes"}, "Unsupported timeline 'sometimes': expected one of always"),
        ({"seed": "x"}, "Unsupported seed 'x'"),
        ({"seed": True}, "Unsupported seed True"),
        ({"region": 7}, "Unsupported region 7: expected a non-empty string"),
        ({"past_at": "sometimes"}, "Unsupported past_at 'sometimes': use one of"),
        ({"freeze": "chronos"}, "Unsupported freeze 'chronos': expected true"),
        ({"allow_server_errors": "perhaps"}, "Unsupported allow_server_errors 'perhaps'"),
    ],
)
def test_a_bad_marker_value_is_refused_naming_the_option_and_the_value(
    marker: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        choose(marker=marker)


def test_a_bad_text_is_refused_naming_the_flag_or_the_ini_key() -> None:
    with pytest.raises(ValueError, match="Unsupported --schedemu-max-records 'lots'"):
        choose(command_line={"max_records": "lots"})
    with pytest.raises(ValueError, match="Unsupported schedemu_transport 'pigeon': use one of"):
        choose(ini={"transport": "pigeon"})


def test_the_marker_wins_over_the_command_line_over_the_ini_over_the_emulator() -> None:
    own = Settings(seed=5, region="eu-west-1", past_at="skip")
    chosen = choose(
        marker={"seed": 7},
        command_line={"seed": "4", "region": "ap-south-1"},
        ini={"seed": "3", "region": "sa-east-1", "flexible_offsets": "zero"},
        own=own,
    )
    assert chosen.settings["seed"] == 7
    assert chosen.settings["region"] == "ap-south-1"
    assert chosen.settings["flexible_offsets"] == "zero"
    assert chosen.settings["past_at"] == "skip"


def test_empty_texts_are_not_given() -> None:
    chosen = choose(command_line={"seed": None}, ini={"seed": ""}, own=Settings(seed=9))
    assert chosen.settings["seed"] == 9


def test_the_plugin_s_options_fall_back_to_the_table() -> None:
    plugin = choose().plugin
    assert (plugin.freeze, plugin.intercept, plugin.timeline) == (None, True, "failed")
    assert (plugin.allow_unused_targets, plugin.allow_server_errors) == (False, False)
    assert plugin.timeline_dir is None


def test_numbers_are_read_as_their_text_would_be() -> None:
    chosen = choose(marker={"group_deletion_delay": 2, "max_records": 40, "freeze": True})
    assert chosen.settings["group_deletion_delay"] == 2.0
    assert isinstance(chosen.settings["group_deletion_delay"], float)
    assert chosen.settings["max_records"] == 40
    assert chosen.plugin.freeze == "freezegun"


def test_a_none_means_none_where_an_option_takes_it_and_not_given_elsewhere() -> None:
    chosen = choose(marker={"max_records": None, "region": None}, ini={"region": "eu-west-1"})
    assert chosen.settings["max_records"] is None
    assert chosen.settings["region"] == "eu-west-1"


def test_values_without_a_text_form_are_taken_as_they_are() -> None:
    start = datetime(2030, 1, 1, tzinfo=timezone.utc)
    delivery = RecordingDelivery()
    chosen = choose(marker={"start": start, "delivery": delivery})
    assert chosen.settings["start"] == start
    assert chosen.settings["delivery"] is delivery


def test_each_test_starts_at_the_wall_clock_now_unless_told_otherwise() -> None:
    own = Settings(start="2030-01-01T00:00:00Z")
    assert choose(own=own).settings["start"] is None
    assert choose(ini={"start": "2031-01-01T00:00:00Z"}, own=own).settings["start"] == (
        "2031-01-01T00:00:00Z"
    )
