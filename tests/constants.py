"""What the tests share: one account, role, queue, dead-letter queue and function, and one
instant their clocks start at.

A plain module, not the root ``conftest.py``, so that tests import it like any other
module. A test that needs another value keeps a constant of its own, named for why.
"""

from __future__ import annotations

from datetime import datetime

ACCOUNT = "123456789012"
ROLE = "arn:aws:iam::123456789012:role/scheduler"
QUEUE = "arn:aws:sqs:us-east-1:123456789012:queue"
DLQ = "arn:aws:sqs:us-east-1:123456789012:dlq"
FUNCTION = "arn:aws:lambda:us-east-1:123456789012:function:remind"

#: The schedule ``helpers.create`` and ``helpers.schedule_args`` make unless told otherwise.
SCHEDULE_ARN = "arn:aws:scheduler:us-east-1:123456789012:schedule/default/s1"

#: The Content-Type a control API call that changes something must send, as the SDKs send it.
JSON_TYPE = {"Content-Type": "application/json"}
#: The same, as curl's arguments.
CURL_JSON = ("-H", "Content-Type: application/json")

#: Where the session emulator's clock stands at the start of each test, as a user writes it.
START = "2026-03-01T10:00:00Z"
#: The same instant, for arithmetic.
T0 = datetime.fromisoformat(START.replace("Z", "+00:00"))
