"""Takes the picture of the dashboard shown in docs/dashboard.png.

The story of docs/timeline_example.py (a New York cron across the start of daylight
saving time, a Lambda failing with throttling into a dead-letter queue, a flexible window,
deleted and disabled schedules) plus two more groups and a scheduled rule, served over
HTTP; Debian's Chromium, driven by Playwright, opens ``/_schedemu/ui`` and the newest
attempt's detail.

Run: python docs/dashboard_example.py docs/dashboard.png [--serve]
(``--serve`` keeps the emulator running afterwards, to look at the page yourself). Where
``pngquant`` is installed, the picture is reduced to a palette, a third of its size.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import time

from timeline_example import CHROMIUM_ARGS, QUEUE, ROLE, START, play

from pytest_schedemu import Emulator

FUNCTION = "arn:aws:lambda:us-east-1:123456789012:function:send-statements"


def more_groups(emu: Emulator) -> None:
    client = emu.client()
    for group, name, expression, zone in (
        ("billing", "monthly-statements", "cron(0 6 1 * ? *)", "Europe/London"),
        ("billing", "payment-reminders", "rate(1 day)", "UTC"),
        ("notifications", "push-digest", "cron(0 18 ? * MON-FRI *)", "Europe/Paris"),
        ("notifications", "weekend-summary", "cron(0 10 ? * SAT *)", "Asia/Tokyo"),
    ):
        if group not in {g["Name"] for g in client.list_schedule_groups()["ScheduleGroups"]}:
            client.create_schedule_group(Name=group)
        client.create_schedule(
            Name=name,
            GroupName=group,
            ScheduleExpression=expression,
            ScheduleExpressionTimezone=zone,
            FlexibleTimeWindow={"Mode": "OFF"},
            Target={"Arn": QUEUE, "RoleArn": ROLE},
        )
    # A scheduled EventBridge rule, listed in the Rules table with its target.
    events = emu.client("events")
    events.put_rule(
        Name="hourly-export", ScheduleExpression="rate(1 hour)", Description="the export"
    )
    events.put_targets(Rule="hourly-export", Targets=[{"Id": "exports", "Arn": QUEUE}])


def screenshot(url: str, png: str) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS
        )
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        page.goto(url)
        page.wait_for_selector("#timeline svg")
        page.wait_for_selector("#timeline svg")
        page.click("#attempts tbody tr >> nth=0")
        page.wait_for_selector("#detail-card:not([hidden])")
        page.wait_for_timeout(300)
        page.screenshot(path=png, full_page=True)
        browser.close()
    if shutil.which("pngquant"):
        subprocess.run(
            ["pngquant", "--quality", "80-95", "--speed", "1", "--force", "--output", png, png],
            check=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("png", nargs="?", default="dashboard.png")
    parser.add_argument("--serve", action="store_true", help="keep serving afterwards")
    args = parser.parse_args()
    with Emulator(start=START, transport="inprocess") as emu:
        more_groups(emu)
        play(emu)
        url = f"{emu.endpoint_url}/_schedemu/ui"
        screenshot(url, args.png)
        print(f"wrote {args.png}")
        if args.serve:
            print(f"the dashboard: {url} (Ctrl-C stops)")
            while True:
                time.sleep(1)


if __name__ == "__main__":
    main()
