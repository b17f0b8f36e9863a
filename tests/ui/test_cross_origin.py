"""A hostile page in a real browser: another origin's page tries to drive ``schedemu
serve`` (``no-cors`` fetches, a preflighted fetch, a text form posted to reset) and to
read it through a name of its own that resolves to 127.0.0.1, as DNS rebinding makes it.
Chromium resolves ``evil.test`` to 127.0.0.1 (``--host-resolver-rules``), so both the page
and the rebinding reach this machine under the attacker's name.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.serve.test_serve import Served
from tests.ui.conftest import BROWSER_ARGS, START, chromium_path
from tests.ui.pages import QUEUE, ROLE, create, open_dashboard

EVIL = "evil.test"

# Everything a page on another origin can send without the server's leave, then a
# preflighted JSON fetch, then a form that posts text to reset; ``done`` once all are sent.
HOSTILE_PAGE = """<!DOCTYPE html>
<html><body>
<form id="wipe" method="POST" enctype="text/plain" target="sink"
      action="{target}/_schedemu/reset"><input name='{{"start": "2030-01-01T00:00:00Z", "x": "'
      value='"}}'></form>
<iframe name="sink"></iframe>
<script>
const target = "{target}";
const schedule = JSON.stringify({{
  ScheduleExpression: "rate(1 minute)", FlexibleTimeWindow: {{Mode: "OFF"}},
  Target: {{Arn: "{queue}", RoleArn: "arn:aws:iam::123456789012:role/r"}},
}});
window.outcomes = [];
async function send(url, options) {{
  try {{
    const response = await fetch(url, options);
    window.outcomes.push(url + " " + response.type + " " + response.status);
  }} catch (error) {{
    window.outcomes.push(url + " failed: " + error);
  }}
}}
(async () => {{
  await send(target + "/schedules/pwned", {{method: "POST", mode: "no-cors", body: schedule}});
  await send(target + "/_schedemu/clock/advance",
             {{method: "POST", mode: "no-cors", body: '{{"days": 3}}'}});
  await send(target + "/_schedemu/targets/fail",
             {{method: "POST", mode: "no-cors", body: new Blob(['{{"arn": "{queue}"}}'])}});
  await send(target + "/_schedemu/clock/tick", {{method: "POST", mode: "no-cors"}});
  await send(target + "/_schedemu/clock/advance", {{
    method: "POST", headers: {{"Content-Type": "application/json"}}, body: '{{"days": 3}}',
  }});
  await send(target + "/_schedemu/health", {{}});
  document.querySelector("iframe").addEventListener("load", () => {{ window.done = true; }});
  document.getElementById("wipe").submit();
}})();
</script>
</body></html>
"""


class _HostilePages(BaseHTTPRequestHandler):
    page = b""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(self.page)))
        self.end_headers()
        self.wfile.write(self.page)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def rebinding_browser(browser: Any) -> Iterator[Any]:
    """A Chromium in which ``evil.test`` resolves to 127.0.0.1."""
    launched = browser.browser_type.launch(
        executable_path=chromium_path(),
        args=[*BROWSER_ARGS, f"--host-resolver-rules=MAP {EVIL} 127.0.0.1"],
    )
    yield launched
    launched.close()


@pytest.fixture
def evil_page(rebinding_browser: Any) -> Iterator[Any]:
    context = rebinding_browser.new_context()
    opened = context.new_page()
    opened.set_default_timeout(10_000)
    yield opened
    context.close()


@pytest.fixture
def hostile_site(served: Served) -> Iterator[str]:
    """The origin of a site serving the hostile page aimed at ``served``."""
    page = HOSTILE_PAGE.format(target=served.url, queue=QUEUE)
    handler = type("Hostile", (_HostilePages,), {"page": page.encode()})
    site = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=site.serve_forever, daemon=True)
    thread.start()
    yield f"http://{EVIL}:{site.server_address[1]}"
    site.shutdown()
    site.server_close()
    thread.join()


def test_a_page_on_another_origin_changes_nothing(
    evil_page: Any, served: Served, hostile_site: str
) -> None:
    create(served, "kept")
    evil_page.goto(hostile_site)
    evil_page.wait_for_function("window.done === true")
    outcomes = evil_page.evaluate("window.outcomes")
    # Every fetch was made; none of their answers reached the page (their
    # Cross-Origin-Resource-Policy blocks even the opaque ones).
    assert len(outcomes) == 6 and all("failed" in outcome for outcome in outcomes), outcomes
    assert served.control("GET", "clock")["now"] == START
    schedules = served.client().list_schedules()["Schedules"]
    assert [schedule["Name"] for schedule in schedules] == ["kept"]
    served.control("POST", "clock/advance", {"hours": 1})
    attempts = served.control("GET", "attempts")["attempts"]
    # The target was not made to fail.
    assert attempts and all(attempt["succeeded"] for attempt in attempts), attempts


def test_a_rebinding_name_reads_nothing(evil_page: Any, served: Served) -> None:
    create(served, "payroll", target={"Arn": QUEUE, "RoleArn": ROLE, "Input": "secret-token"})
    rebound = f"http://{EVIL}:{served.port}"
    answer = evil_page.goto(f"{rebound}/_schedemu/health")
    assert answer.status == 403
    assert "AccessDeniedException" in evil_page.content()
    # The page now is of the rebinding origin: its own requests are same-origin reads.
    read = """async (paths) => Promise.all(paths.map(async (path) => {
        const response = await fetch(path);
        return response.status + " " + (await response.text());
    }))"""
    answers = evil_page.evaluate(read, ["/_schedemu/schedules", "/schedules/payroll", "/"])
    assert [answer.split(" ", 1)[0] for answer in answers] == ["403"] * 3
    assert not any("secret-token" in answer for answer in answers)
    assert evil_page.goto(f"{rebound}/_schedemu/ui").status == 403


def test_the_dashboard_still_works_under_its_policy(page: Any, served: Served) -> None:
    violations: list[str] = []
    page.on(
        "console",
        lambda message: (
            violations.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    create(served, "hourly")
    open_dashboard(page, served)
    page.click("button:text-is('+1 hour')")
    page.wait_for_selector("#now:text-is('2026-03-07 13:00:00Z')")
    page.wait_for_selector("#timeline svg g.attempt.delivered")
    # The timeline's inline style sheet applies: its lanes have their background colour.
    fill = page.evaluate("getComputedStyle(document.querySelector('#timeline svg .lane-bg')).fill")
    assert fill not in ("", "rgb(0, 0, 0)")
    page.click("#reset")
    page.click("#reset")  # confirmed
    page.wait_for_selector("#schedules-empty:not([hidden])")
    assert violations == []
