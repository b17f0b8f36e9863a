"""The dashboard: ``GET /_schedemu/ui``, one page served from the package (HTML, CSS and
vanilla JavaScript modules, nothing from the network), and what it reads besides the
record lists: a summary to poll for news, and the timeline drawn as SVG.

The page's files are the ``ui`` folder's scripts and style sheets, each at
``ui/<name>``, served as they are: the browser loads ``app.js`` as a module and follows its
imports, so there is no build step. The routes are the files found in the folder, by exact
name, so a path that leaves the folder names no route.

``GET summary`` answers the clock, the counts of schedules, rules, rule targets and groups,
the accounts and regions in use, and how many records of each kind were ever written and how
many resets there were (a poller compares them). ``GET timeline?schedule=&group=&rule=&schedules=&
target_arn=&since=&until=&width=`` answers the picture of ``emu.timeline()`` as
``image/svg+xml`` (``schedules`` lists ARNs, comma-separated: a page of the list).

A page in a browser cannot sign its requests, so with ``verify_signatures`` on the page
is not served: ``ui`` answers 403 with a page that says so, while the JSON routes keep
answering signed requests.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import PurePosixPath
from typing import Any, Callable

from pytest_schedemu._version import __version__
from pytest_schedemu.control_api.records import Handler, whole_number
from pytest_schedemu.errors import ValidationException
from pytest_schedemu.model.rules import Rule
from pytest_schedemu.records import Records
from pytest_schedemu.records.filters import RecordFilter
from pytest_schedemu.records.timeline_source import TIMELINE_FILTERS, timeline_data
from pytest_schedemu.settings.live import LiveSettings
from pytest_schedemu.timekeeping.clock import Clock
from pytest_schedemu.timeline import render_timeline_svg
from pytest_schedemu.timeline.shapes import STYLE as TIMELINE_STYLE

_UI = resources.files("pytest_schedemu.control_api").joinpath("ui")
#: The content types of the page's files by suffix; a file of any other kind is not served.
CONTENT_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}


def _page_files() -> dict[str, tuple[str, str]]:
    found = {"ui": ("index.html", "text/html; charset=utf-8")}
    for entry in _UI.iterdir():
        suffix = PurePosixPath(entry.name).suffix
        if entry.is_file() and suffix in CONTENT_TYPES:
            found[f"ui/{entry.name}"] = (entry.name, CONTENT_TYPES[suffix])
    return found


#: The page's files by route, with their content types.
PAGE_FILES = _page_files()
SVG = "image/svg+xml; charset=utf-8"
MIN_WIDTH, MAX_WIDTH = 640, 4000
#: The most schedules one picture is asked for by ARN (a page of the dashboard's list).
MAX_ARNS = 200

_DISABLED_STYLE = (
    "body{font:15px system-ui,sans-serif;margin:48px auto;max-width:640px;color:#1f2937}"
    "code{background:#f1f5f9;padding:1px 4px;border-radius:3px}"
)
#: The style sheets the dashboard's pages hold inline: the timeline's SVG, which the page
#: inserts as it comes, and the page that says the dashboard is disabled.
INLINE_STYLES = (TIMELINE_STYLE, _DISABLED_STYLE)
_DISABLED = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>schedemu dashboard disabled</title>
<style>{_DISABLED_STYLE}</style></head><body>
<h1>The schedemu dashboard is disabled</h1>
<p>This emulator verifies SigV4 signatures on every control API request
(<code>verify_signatures</code>), and a page in a browser cannot sign its requests.</p>
<p>Start the emulator without <code>verify_signatures</code> to use the dashboard. The control
API's JSON routes under <code>/_schedemu/</code> still answer signed requests.</p>
</body></html>
"""


@dataclass(frozen=True)
class Document:
    """A route's answer that is not JSON: the bytes and their content type."""

    body: bytes
    content_type: str


def is_page(route: str) -> bool:
    """Whether a control route (the path after ``/_schedemu/``) is one of the page's files."""
    return route in PAGE_FILES


def disabled_page() -> tuple[int, bytes, str]:
    """The answer of the page's routes while signatures are verified."""
    return 403, _DISABLED.encode(), "text/html; charset=utf-8"


@cache
def _page_file(name: str) -> bytes:
    return _UI.joinpath(name).read_bytes()


class DashboardRoutes:
    def __init__(
        self,
        records: Records,
        clock: Clock,
        settings: LiveSettings,
        rules: Callable[[], list[Rule]] = list,
    ) -> None:
        self._records = records
        self._clock = clock
        self._settings = settings
        self._rules = rules

    def routes(self) -> dict[tuple[str, str], Handler]:
        found: dict[tuple[str, str], Handler] = {
            ("GET", "summary"): self.summary,
            ("GET", "timeline"): self.timeline,
        }
        for route, (name, content_type) in PAGE_FILES.items():
            found[("GET", route)] = self._serve(name, content_type)
        return found

    @staticmethod
    def _serve(name: str, content_type: str) -> Handler:
        def serve(body: dict[str, Any], query: dict[str, str]) -> Document:
            return Document(_page_file(name), content_type)

        return serve

    def summary(self, body: dict[str, Any], query: dict[str, str]) -> Any:
        groups = self._records.groups()
        settings = self._settings.current
        return {
            "now": self._clock.now(),
            "clock": "real" if self._clock.real_time else "virtual",
            "version": __version__,
            "account_id": settings.account_id,
            "region": settings.region,
            "schedule_count": len(self._records.schedules()),
            "rule_count": len(self._rules()),
            # Drawn on the timeline beside the page's schedules, one lane each.
            "rule_target_count": len(self._records.known_rule_targets()),
            "group_count": len(groups),
            "accounts": sorted({g.account_id for g in groups}),
            "regions": sorted({g.region for g in groups}),
            "written": self._records.written(),
            "dropped_records": int(self._records.dropped_records),
        }

    def timeline(self, body: dict[str, Any], query: dict[str, str]) -> Document:
        arns = None
        listed = query.get("schedules")
        if listed is not None:
            arns = [arn for arn in listed.split(",") if arn]
            if len(arns) > MAX_ARNS:
                raise ValidationException(
                    f"Too many schedules ({len(arns)}): ask for at most {MAX_ARNS} by ARN, "
                    "or narrow by group"
                )
        which = RecordFilter.of(query, TIMELINE_FILTERS)
        data = timeline_data(self._records, self._clock.now(), which, arns)
        width = whole_number(query, "width", 1200, MIN_WIDTH, MAX_WIDTH, "of pixels ")
        svg = render_timeline_svg(data, width=width)
        return Document(svg.encode(), SVG)
