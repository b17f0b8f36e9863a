"""Whether moto's ``mock_aws`` answers botocore's requests now.

Under it, boto3 delivery without an endpoint of its own lands in moto, in process, and
cannot reach AWS: it needs no opt-in. moto patches botocore through a ``before-send``
handler that it switches on for the length of a mock (server and proxy modes send
requests elsewhere and leave it off), so that switch is the signal. moto stays optional: it
is never imported here, and a moto that nobody imported is not mocking anything.
"""

from __future__ import annotations

import sys


def moto_answers_botocore() -> bool:
    """Whether an active ``mock_aws`` (decorator or context manager) answers botocore."""
    models = sys.modules.get("moto.core.models")
    stubber = getattr(models, "botocore_stubber", None)
    return getattr(stubber, "enabled", False) is True
