"""Opt-in SigV4 verification, with botocore's own signer.

Off by default: tests under a frozen clock sign with the frozen time, and nobody wants an
emulator to reject its own test's requests. With ``verify_signatures=True`` and a table of
credentials, every request must carry a valid signature from a known access key, scoped to
its service (``scheduler``, or ``events`` for EventBridge's rule operations), over the body
it carries, made within 15 minutes of the emulator's clock or of the machine's, as AWS
requires of its own one clock: ``docs/signing.md`` says why either.

The checks run in the order AWS runs them, and fail with AWS's codes and messages; where
AWS's wording is not known the message is a choice in its style. ``docs/signing.md`` lists
each message and where it comes from.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any
from urllib.parse import quote

from pytest_schedemu.errors import (
    IncompleteSignatureException,
    InvalidSignatureException,
    MissingAuthenticationTokenException,
    UnrecognizedClientException,
)

SKEW = timedelta(minutes=15)
SERVICE = "scheduler"
ALGORITHM = "AWS4-HMAC-SHA256"
TERMINATOR = "aws4_request"
_AMZ_DATE = "%Y%m%dT%H%M%SZ"
_REQUIRED = ("Credential", "Signature", "SignedHeaders")
#: The parameters every SDK sends, in the order it sends them; nothing else is read.
_ORDER = ("Credential", "SignedHeaders", "Signature")
# AWS splits the parameters at commas and at whitespace alike.
_SEPARATORS = re.compile(r"[\s,]+")
# The parameters exactly as the SDKs write them, no value holding a separator or an "=":
# read at once, to the very result that splitting them one by one gives.
_SDK_PARAMETERS = re.compile(
    r"Credential=([^\s,=]*), SignedHeaders=([^\s,=]*), Signature=([^\s,=]*)"
)
# Payload hashes that leave the body out of the signature: S3 accepts them, this API does not.
_UNSIGNED_PAYLOADS = ("UNSIGNED-PAYLOAD", "STREAMING-")

_MISMATCH = (
    "The request signature we calculated does not match the signature you provided. Check "
    "your AWS Secret Access Key and signing method. Consult the service documentation for "
    "details."
)


@dataclass(frozen=True)
class Caller:
    """Whom a request's credential names: its access key, and the region of its scope."""

    access_key: str
    region: str


def partition_of(caller: Caller | None, account_id: str, region: str) -> tuple[str, str]:
    """The (account, region) a request acts in: the region of its caller's credential scope,
    and the account its access key names when that key is 12 digits; the emulator's own
    ``account_id`` and ``region`` otherwise."""
    if caller is None:
        return account_id, region
    key = caller.access_key
    return (key if len(key) == 12 and key.isdigit() else account_id), caller.region


def unsigned_authorization(access_key: str, region: str, signing_name: str) -> str:
    """An ``Authorization`` header with the credential scope alone, which is what an app that
    does not check signatures reads (``claimed_caller``: the account from the key, the
    region): what the emulator's in-process clients and intercepted clients send, sparing
    botocore's signing."""
    return (
        f"{ALGORITHM} Credential={access_key}/20000101/{region}/{signing_name}/"
        f"{TERMINATOR}, SignedHeaders=host, Signature=unsigned-in-process"
    )


def claimed_caller(environ: Mapping[str, Any]) -> Caller | None:
    """The caller a request's ``Authorization`` header names, unchecked; None when it names
    none that could be checked (absent, not SigV4, or malformed).

    For an emulator that verifies no signature; one that does takes the caller ``verify``
    returns, never this.
    """
    header = environ.get("HTTP_AUTHORIZATION", "").strip()
    if not header.startswith("AWS4-"):
        return None
    try:
        credential = _parameters(header).get("Credential", "")
    except IncompleteSignatureException:
        return None
    return _claimed_by(credential)


# A client sends one credential with every request it signs on a day: read it once.
@functools.lru_cache(maxsize=64)
def _claimed_by(credential: str) -> Caller | None:
    parts = credential.split("/")
    return Caller(parts[0], parts[2]) if len(parts) == 5 and parts[0] and parts[2] else None


def verify(
    environ: Mapping[str, Any],
    body: bytes,
    credentials: Mapping[str, str],
    now: datetime,
    service: str = SERVICE,
) -> Caller:
    """The caller of a properly signed request to ``service``: raise the AWS error for any
    other."""
    header = environ.get("HTTP_AUTHORIZATION", "").strip()
    if not header.startswith("AWS4-"):
        raise MissingAuthenticationTokenException("Missing Authentication Token")
    algorithm = header.partition(" ")[0]
    params = _parameters(header)
    stamp = environ.get("HTTP_X_AMZ_DATE", "")
    missing = [
        f"Authorization header requires '{name}' parameter. "
        for name in _REQUIRED
        if not params.get(name)
    ]
    if not stamp:
        missing.append(
            "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. "
        )
    if missing:
        raise IncompleteSignatureException("".join(missing) + f"Authorization={header}")
    if tuple(params) != _ORDER:
        raise IncompleteSignatureException(
            "Authorization header must give 'Credential', 'SignedHeaders' and 'Signature' in "
            f"that order. Authorization={header}"
        )
    signed_at = _signing_time(stamp)
    _check_freshness(stamp, signed_at, now)
    signed_headers = params["SignedHeaders"].lower().split(";")
    if "host" not in signed_headers:
        raise InvalidSignatureException("'Host' must be a 'SignedHeader' in the AWS Authorization.")
    if algorithm != ALGORITHM:
        raise IncompleteSignatureException(
            f"Unsupported AWS 'algorithm': '{algorithm}' (only {ALGORITHM} for now). "
        )
    access_key, scope = _scope(params["Credential"], stamp, service)
    secret = credentials.get(access_key)
    if secret is None:
        raise UnrecognizedClientException("The security token included in the request is invalid.")
    _check_payload_hash(environ, body)
    _check_signature(environ, body, signed_headers, stamp, access_key, secret, scope, params)
    return Caller(access_key, scope[1])


def _parameters(header: str) -> dict[str, str]:
    """The parameters of a SigV4 ``Authorization`` header, in the order given.

    Strict, because two readings of one header would let the credential that is checked
    differ from the one that is used: a parameter repeated or unknown is refused.
    """
    text = header.partition(" ")[2].strip()
    sent = _SDK_PARAMETERS.fullmatch(text)
    if sent is not None:
        return dict(zip(_ORDER, sent.groups()))
    params: dict[str, str] = {}
    for part in _SEPARATORS.split(text):
        if not part:
            continue
        name, equals, value = part.partition("=")
        if not equals:
            raise IncompleteSignatureException(
                f"'{part}' not a valid key=value pair (missing equal-sign) in Authorization "
                f"header: '{header}'."
            )
        if name not in _ORDER:
            raise IncompleteSignatureException(
                f"Authorization header has an unknown parameter '{name}'. Authorization={header}"
            )
        if name in params:
            raise IncompleteSignatureException(
                f"Authorization header gives the '{name}' parameter more than once. "
                f"Authorization={header}"
            )
        params[name] = value
    return params


def _signing_time(stamp: str) -> datetime:
    try:
        return datetime.strptime(stamp, _AMZ_DATE).replace(tzinfo=timezone.utc)
    except ValueError:
        raise IncompleteSignatureException(
            f"Date must be in ISO-8601 'basic format'. Got '{stamp}'. "
            "See http://en.wikipedia.org/wiki/ISO_8601"
        ) from None


def _check_freshness(stamp: str, signed_at: datetime, now: datetime) -> None:
    """Refuse a stamp more than 15 minutes away from both the emulator's clock (``now``) and
    the machine's.

    A client in this process under a frozen clock signs with the emulator's time, an SDK or
    the CLI with the machine's; both are instants a caller can rightly sign at. The machine's
    clock is read only when the emulator's does not vouch for the stamp, so a request signed
    on the virtual clock is judged without it. A refusal names the clock nearer the stamp:
    the one its signer most likely meant.
    """
    if _within_window(signed_at, now):
        return
    machine = datetime.now(timezone.utc)
    if _within_window(signed_at, machine):
        return
    clock = min((machine, now), key=lambda instant: abs(signed_at - instant))
    shown = clock.strftime(_AMZ_DATE)
    if signed_at < clock:
        earliest = (clock - SKEW).strftime(_AMZ_DATE)
        raise InvalidSignatureException(
            f"Signature expired: {stamp} is now earlier than {earliest} ({shown} - 15 min.)"
        )
    latest = (clock + SKEW).strftime(_AMZ_DATE)
    raise InvalidSignatureException(
        f"Signature not yet current: {stamp} is still later than {latest} ({shown} + 15 min.)"
    )


def _within_window(signed_at: datetime, clock: datetime) -> bool:
    return clock - SKEW <= signed_at <= clock + SKEW


def _scope(credential: str, stamp: str, expected: str) -> tuple[str, list[str]]:
    """The access key and the scope (date, region, service, terminator) of a Credential."""
    parts = credential.rstrip("/").split("/")
    if len(parts) != 5:
        raise IncompleteSignatureException(
            "Credential must have exactly 5 slash-delimited elements, e.g. "
            f"keyid/date/region/service/term, got '{credential}'"
        )
    access_key, date, _region, service, terminator = parts
    # AWS names every wrong part of the scope at once, each sentence after the other.
    problems = []
    if service != expected:
        problems.append(f"Credential should be scoped to correct service: '{expected}'. ")
    if terminator != TERMINATOR:
        problems.append(
            f"Credential should be scoped with a valid terminator: '{TERMINATOR}', "
            f"not '{terminator}'. "
        )
    if date != stamp[:8]:
        problems.append(
            "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date "
            f"from HTTP: '{date}' != '{stamp[:8]}', from '{stamp}'."
        )
    if problems:
        raise InvalidSignatureException("".join(problems))
    return access_key, parts[1:]


def _check_payload_hash(environ: Mapping[str, Any], body: bytes) -> None:
    declared = environ.get("HTTP_X_AMZ_CONTENT_SHA256")
    if declared is None:
        return
    if declared.startswith(_UNSIGNED_PAYLOADS):
        raise InvalidSignatureException(
            f"x-amz-content-sha256 '{declared}' is not supported by this service: sign the "
            "request body and send its SHA-256 as lowercase hex, or leave the header out."
        )
    if declared != hashlib.sha256(body).hexdigest():
        raise InvalidSignatureException(
            "The provided 'x-amz-content-sha256' header does not match what was computed."
        )


def _check_signature(
    environ: Mapping[str, Any],
    body: bytes,
    signed_headers: list[str],
    stamp: str,
    access_key: str,
    secret: str,
    scope: list[str],
    params: Mapping[str, str],
) -> None:
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    # Rebuild the request as the client signed it: only the headers it says it signed.
    headers = {}
    for name in signed_headers:
        if name == "content-type":
            key = "CONTENT_TYPE"
        elif name == "content-length":
            key = "CONTENT_LENGTH"
        else:
            key = "HTTP_" + name.upper().replace("-", "_")
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
    _date, region, service, _terminator = scope
    signer = SigV4Auth(Credentials(access_key, secret), service, region)
    canonical = signer.canonical_request(request)
    string_to_sign = signer.string_to_sign(request, canonical)
    expected = signer.signature(string_to_sign, request)
    if not hmac.compare_digest(expected.encode(), params["Signature"].encode()):
        # As AWS does, show what was expected, so a hand-made signer can be put right.
        raise InvalidSignatureException(
            f"{_MISMATCH}\n\nThe Canonical String for this request should have been\n"
            f"'{canonical}'\n\nThe String-to-Sign should have been\n'{string_to_sign}'\n"
        )
