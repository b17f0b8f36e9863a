"""The Payments stack's charge function."""

import os
from datetime import datetime, timedelta

import boto3
from pricing import price


def handler(event, context):
    if event.get("decline"):
        raise ValueError(f"card declined for {event['customer']}")
    if "scheduledAt" in event:
        charged = datetime.fromisoformat(event["scheduledAt"].replace("Z", "+00:00"))
        receipt_at = (charged + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%S")
        boto3.client("scheduler").create_schedule(
            Name=f"receipt-{event['customer']}-{charged:%Y%m%d}",
            ScheduleExpression=f"at({receipt_at})",
            FlexibleTimeWindow={"Mode": "OFF"},
            Target={
                "Arn": os.environ["RECEIPTS_QUEUE"],
                "RoleArn": os.environ["RECEIPTS_ROLE"],
                "Input": f'{{"receipt": "{event["customer"]}"}}',
            },
        )
    print(f"charging {event['customer']}")
    return {
        "customer": event["customer"],
        "amount": price(event["customer"]),
        "currency": os.environ["CURRENCY"],
        "function": context.function_name,
    }
