"""Every public query and assertion takes its filters the same way: named alike, in the one
order (``FILTERS``), keyword-only but for a method's first parameter, and each documented in
its docstring from the one table; the control API's lists take the same names."""

from __future__ import annotations

import inspect
from typing import Any, Callable

from pytest_schedemu import Emulator
from pytest_schedemu.control_api.records import LIST_FILTERS
from pytest_schedemu.records.filters import FILTER_DOCS, FILTERS

#: The public methods that filter records, so the checks below cannot pass on none.
FILTERING = {
    "assert_dead_lettered",
    "assert_delivered",
    "assert_dropped",
    "assert_not_dead_lettered",
    "assert_not_delivered",
    "attempts",
    "dead_letters",
    "deliveries",
    "drops",
    "executions",
    "pending",
    "timeline",
    "timeline_svg",
}
#: The methods that name one schedule (a name and its group, or an ARN) or one rule rather
#: than filter records: ``fire("nightly", "reports")`` is a lookup, whose errors
#: ``executions`` shares, and ``fire_rule("nightly")`` names the stored rule it fires.
LOOKUPS = {"fire", "fire_rule", "next_occurrence"}


def _filtering_methods() -> dict[str, Callable[..., Any]]:
    methods = {
        name: member
        for name, member in inspect.getmembers(Emulator, inspect.isfunction)
        if not name.startswith("_") and name not in LOOKUPS
    }
    return {
        name: method
        for name, method in methods.items()
        if set(inspect.signature(method).parameters) & set(FILTERS)
    }


def _filters_of(method: Callable[..., Any]) -> list[inspect.Parameter]:
    return [p for p in inspect.signature(method).parameters.values() if p.name in FILTERS]


def _words(text: str | None) -> str:
    """``text`` with its lines joined, as a reader sees a wrapped paragraph."""
    return " ".join((text or "").split())


def test_the_methods_that_filter_are_the_known_ones() -> None:
    assert set(_filtering_methods()) == FILTERING


def test_every_filter_a_method_takes_is_documented_in_its_docstring() -> None:
    undocumented = {
        (name, p.name)
        for name, method in _filtering_methods().items()
        for p in _filters_of(method)
        if f"- ``{p.name}``: {FILTER_DOCS[p.name]}" not in _words(inspect.getdoc(method))
    }
    assert undocumented == set()


def test_filters_after_the_first_parameter_are_keyword_only() -> None:
    positional = {
        (name, p.name)
        for name, method in _filtering_methods().items()
        for index, p in enumerate(inspect.signature(method).parameters.values())
        if p.name in FILTERS and index > 1 and p.kind is not p.KEYWORD_ONLY
    }
    assert positional == set()


def test_keyword_filters_come_in_the_one_order() -> None:
    out_of_order = {}
    for name, method in _filtering_methods().items():
        keywords = [p.name for p in _filters_of(method) if p.kind is p.KEYWORD_ONLY]
        if keywords != sorted(keywords, key=FILTERS.index):
            out_of_order[name] = keywords
    assert out_of_order == {}


def test_the_control_api_lists_filter_by_the_same_names() -> None:
    assert {name for names in LIST_FILTERS.values() for name in names} <= set(FILTERS)
