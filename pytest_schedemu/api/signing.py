"""Opt-in SigV4 verification, with botocore's own signer, against the virtual clock.

Off by default: tests under a frozen clock sign with the frozen time, and nobody wants an
emulator to reject its own test's requests. With ``verify_signatures=True`` and a table of
credentials, every request must carry a valid signature from a known access key, made
within 15 minutes of the emulator's clock, as AWS requires.
"""

from __future__ import annotations

import hmac
import re
from collections.abc import Mapping
from datetime import datetime, timedelta, timezone
from typing import Any
from urllib.parse import quote

from pytest_schedemu.errors import ApiError

SKEW = timedelta(minutes=15)
_AUTHORIZATION = re.compile(
    r"AWS4-HMAC-SHA256\s+Credential=(?P<key>[^/]+)/(?P<date>\d{8})/(?P<region>[^/]+)/"
    r"(?P<service>[^/]+)/aws4_request,\s*SignedHeaders=(?P<headers>[^,]+),\s*"
    r"Signature=(?P<signature>[0-9a-f]+)"
)
_AMZ_DATE = "%Y%m%dT%H%M%SZ"


class MissingAuthenticationTokenException(ApiError):
    code = "MissingAuthenticationTokenException"
    status = 403


class UnrecognizedClientException(ApiError):
    code = "UnrecognizedClientException"
    status = 403


class InvalidSignatureException(ApiError):
    code = "InvalidSignatureException"
    status = 403


_MISMATCH = (
    "The request signature we calculated does not match the signature you provided. Check "
    "your AWS Secret Access Key and signing method. Consult the service documentation for "
    "details."
)


def verify(
    environ: Mapping[str, Any], body: bytes, credentials: Mapping[str, str], now: datetime
) -> None:
    """Raise the AWS error for a request that is not properly signed."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    header = environ.get("HTTP_AUTHORIZATION")
    if not header:
        raise MissingAuthenticationTokenException("Missing Authentication Token")
    match = _AUTHORIZATION.fullmatch(header.strip())
    if match is None:
        raise InvalidSignatureException(_MISMATCH)
    secret = credentials.get(match["key"])
    if secret is None:
        raise UnrecognizedClientException("The security token included in the request is invalid.")
    stamp = environ.get("HTTP_X_AMZ_DATE", "")
    try:
        signed_at = datetime.strptime(stamp, _AMZ_DATE).replace(tzinfo=timezone.utc)
    except ValueError:
        raise InvalidSignatureException(_MISMATCH) from None
    if abs(now - signed_at) > SKEW:
        earliest = (now - SKEW).strftime(_AMZ_DATE)
        latest = (now + SKEW).strftime(_AMZ_DATE)
        relation = f"earlier than {earliest}" if signed_at < now else f"later than {latest}"
        raise InvalidSignatureException(
            f"Signature expired: {stamp} is now {relation} "
            f"({now.strftime(_AMZ_DATE)} {'-' if signed_at < now else '+'} 15 min.)"
        )
    # Rebuild the request as the client signed it: only the headers it says it signed.
    headers = {}
    for name in match["headers"].split(";"):
        key = "CONTENT_TYPE" if name == "content-type" else "HTTP_" + name.upper().replace("-", "_")
        if name == "content-length":
            key = "CONTENT_LENGTH"
        if key in environ:
            headers[name] = environ[key]
    # The path as the client sent it, still percent-encoded: the signer encodes it again.
    raw = environ.get("RAW_URI") or environ.get("REQUEST_URI")
    path = raw.split("?", 1)[0] if raw else quote(environ.get("PATH_INFO", ""), safe="/~")
    query = environ.get("QUERY_STRING", "")
    url = f"http://{headers.get('host', 'localhost')}{path}" + (f"?{query}" if query else "")
    request = AWSRequest(method=environ.get("REQUEST_METHOD", "GET"), url=url, data=body)
    for name, value in headers.items():
        request.headers[name] = value
    request.context["timestamp"] = stamp
    signer = SigV4Auth(Credentials(match["key"], secret), match["service"], match["region"])
    canonical = signer.canonical_request(request)
    expected = signer.signature(signer.string_to_sign(request, canonical), request)
    if not hmac.compare_digest(expected, match["signature"]):
        raise InvalidSignatureException(_MISMATCH)
