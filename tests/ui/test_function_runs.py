"""An attempt's details show the runs of a stack's own function its event caused: each
run's number, instant, outcome and logs, written as text."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.serve.test_serve import Served
from tests.ui.conftest import START
from tests.ui.pages import open_dashboard, shoot

#: A function that logs markup and declines the card, once per run, and is retried once.
TEMPLATE = """\
Resources:
  Charge:
    Type: AWS::Lambda::Function
    Properties:
      FunctionName: charge
      Runtime: python3.12
      Handler: index.handler
      Role: arn:aws:iam::123456789012:role/fn
      Code:
        ZipFile: |
          def handler(event, context):
              print("charging <b>order</b>", event["order"])
              raise ValueError("card <i>declined</i>")
  ChargeRetries:
    Type: AWS::Lambda::EventInvokeConfig
    Properties:
      FunctionName: !Ref Charge
      Qualifier: $LATEST
      MaximumRetryAttempts: 1
  Nightly:
    Type: AWS::Scheduler::Schedule
    Properties:
      Name: charge-nightly
      ScheduleExpression: at(2026-03-07T12:30:00)
      FlexibleTimeWindow: {Mode: "OFF"}
      Target:
        Arn: !GetAtt Charge.Arn
        RoleArn: arn:aws:iam::123456789012:role/scheduler
        Input: '{"order": 7}'
"""


@pytest.fixture(scope="module")
def charging(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    template = tmp_path_factory.mktemp("stack") / "template.yaml"
    template.write_text(textwrap.dedent(TEMPLATE))
    served = Served(
        "--clock", "virtual", "--start", START, "--stacks", str(template), "--run-functions"
    )
    yield served
    served.stop()


def test_an_attempts_details_show_each_run_with_its_error_and_logs(
    page: Any, charging: Served, tmp_path: Path
) -> None:
    charging.control("POST", "reset", {"start": START})
    open_dashboard(page, charging)
    page.click("button:text-is('+1 hour')")
    expect(page.locator("#attempts tbody tr")).to_have_count(1)
    page.click("#attempts tbody tr >> nth=0")

    runs = page.locator("[data-testid=function-run]")
    expect(runs).to_have_count(2)
    shoot(page, tmp_path, "function-runs")
    first, second = runs.all_inner_texts()
    assert "2026-03-07 12:30:00Z" in first and "2026-03-07 12:31:00Z" in second
    for number, text in enumerate((first, second), start=1):
        assert f"Run\n{number}" in text
        assert "ValueError: card <i>declined</i>" in text
    logs = page.locator("[data-testid=run-logs]").all_inner_texts()
    assert ["charging <b>order</b> 7" in text for text in logs] == [True, True]
    # Markup in what the handler raised and printed is shown, never made.
    expect(page.locator("#detail b, #detail i")).to_have_count(0)
