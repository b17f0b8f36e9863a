"""The Payments stack's charge function."""

import os

from pricing import price


def handler(event, context):
    return {
        "customer": event["customer"],
        "amount": price(event["customer"]),
        "currency": os.environ["CURRENCY"],
        "function": context.function_name,
    }
