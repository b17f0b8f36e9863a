"""How option values are read from text and checked: the parsers and checks the options
table declares its options with.

A parser turns command-line, environment, ini or marker text into a value; a check returns
None for a valid value, or what a valid one would be.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from typing import Any, Callable, TypeVar

from pytest_schedemu.formats.times import to_utc

T = TypeVar("T")
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")
DELIVERIES = ("record", "boto3")
FREEZE_ENGINES = ("freezegun", "time_machine")
#: When a test's timeline is written: always, when the test failed, or never.
ALWAYS, FAILED, NEVER = "always", "failed", "never"
TIMELINE_MODES = (ALWAYS, FAILED, NEVER)
#: A host as a Host header or an allowed host names it: a name, an IPv4 address or a
#: bracketed IPv6 one, then an optional port.
_HOST = re.compile(r"(?P<name>\[[0-9a-f:.]+\]|[a-z0-9._-]+)(?::(?P<port>[0-9]{1,5}))?")
#: The allowed host that stands for any host.
ANY_HOST = "*"

# -- parsers ---------------------------------------------------------------------------------


def parse_bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ValueError(f"expected one of {_TRUE + _FALSE}, not {text!r}")


def freeze_engine(text: str) -> str | None:
    """An engine's name, or a boolean: true means freezegun, false no freeze (None)."""
    expected = f"expected true (freezegun), time_machine or false, not {text!r}"
    return _name_or_boolean(text, FREEZE_ENGINES, FREEZE_ENGINES[0], None, expected)


def timeline_mode(text: str) -> str:
    """A mode, in any case, or a boolean: true means always, false never."""
    expected = f"expected one of {', '.join(TIMELINE_MODES)} (or true: always, false: never)"
    return _name_or_boolean(text, TIMELINE_MODES, ALWAYS, NEVER, expected)


def _name_or_boolean(
    text: str, names: tuple[str, ...], if_true: T, if_false: T, expected: str
) -> str | T:
    name = text.strip().lower()
    if name in names:
        return name
    try:
        return if_true if parse_bool(text) else if_false
    except ValueError:
        raise ValueError(expected) from None


def optional(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    def read(text: str) -> Any:
        return None if text.strip().lower() in ("", "none", "null") else parse(text)

    return read


def host_list(text: str) -> tuple[str, ...]:
    """Comma-separated hosts, e.g. ``schedemu,localhost:9000``."""
    return tuple(name.strip() for name in text.split(",") if name.strip())


def path_list(text: str) -> tuple[str, ...]:
    """Comma-separated paths, e.g. ``infra/template.yaml,cdk.out#Billing``."""
    return tuple(path.strip() for path in text.split(",") if path.strip())


def key_values(text: str) -> dict[str, str]:
    """Comma-separated ``NAME=VALUE`` pairs."""
    pairs = [item.split("=", 1) for item in text.split(",") if item.strip()]
    if any(len(pair) != 2 or not pair[0].strip() for pair in pairs):
        raise ValueError(f"expected NAME=VALUE,NAME=VALUE, got {text!r}")
    return {name.strip(): value.strip() for name, value in pairs}


def split_host(text: str) -> tuple[str, int | None] | None:
    """A host's lower-case name and its port (None without one), or None when ``text`` is
    not a host: ``localhost:4566`` is ``("localhost", 4566)``, ``[::1]`` is ``("[::1]", None)``.
    """
    found = _HOST.fullmatch(text.lower())
    if found is None:
        return None
    port = found["port"]
    return found["name"], None if port is None else int(port)


def credentials_file(path: str) -> dict[str, str]:
    """A JSON object {access key id: secret key}, or lines ``AKID:SECRET``."""
    with open(path, encoding="utf-8") as file:
        text = file.read()
    if text.lstrip().startswith("{"):
        value = json.loads(text)
        if not isinstance(value, dict):
            raise ValueError(f"{path}: expected a JSON object of access key id -> secret key")
        return {str(k): str(v) for k, v in value.items()}
    pairs = [line.strip().split(":", 1) for line in text.splitlines() if line.strip()]
    if any(len(pair) != 2 for pair in pairs):
        raise ValueError(f"{path}: expected lines of ACCESS_KEY_ID:SECRET_KEY")
    return dict((k.strip(), v.strip()) for k, v in pairs)


# -- checks ----------------------------------------------------------------------------------


def one_of(choices: tuple[str, ...]) -> Callable[[Any], str | None]:
    return lambda value: None if value in choices else f"use one of {choices}"


def integer(minimum: int, maximum: int | None = None, optional: bool = False) -> Any:
    def check(value: Any) -> str | None:
        if value is None and optional:
            return None
        integer = isinstance(value, int) and not isinstance(value, bool)
        if integer and value >= minimum and (maximum is None or value <= maximum):
            return None
        upper = "" if maximum is None else f" and <= {maximum}"
        return f"expected an integer >= {minimum}{upper}" + (" or None" if optional else "")

    return check


def seconds(minimum_exclusive: bool) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
        finite = numeric and value == value and value != float("inf")
        if finite and (value > 0 or (value == 0 and not minimum_exclusive)):
            return None
        return "expected seconds > 0" if minimum_exclusive else "expected seconds >= 0"

    return check


def any_integer(value: Any) -> str | None:
    ok = isinstance(value, int) and not isinstance(value, bool)
    return None if ok else "expected an integer"


def account(value: Any) -> str | None:
    ok = isinstance(value, str) and len(value) == 12 and value.isdigit() and value.isascii()
    return None if ok else "expected 12 digits"


def text(value: Any) -> str | None:
    return None if isinstance(value, str) and value else "expected a non-empty string"


def optional_text(value: Any) -> str | None:
    return None if value is None or isinstance(value, str) else "expected a string or None"


def host_names(value: Any) -> str | None:
    ok = isinstance(value, (list, tuple)) and all(
        isinstance(host, str) and (host == ANY_HOST or split_host(host) is not None)
        for host in value
    )
    if ok:
        return None
    return (
        "expected a list of hosts, each a name or address with an optional port (schedemu, "
        f"localhost:9000, [fd00::1]), or {ANY_HOST} for any"
    )


def queue_url_template(value: Any) -> str | None:
    if not isinstance(value, str):
        return "expected a string with {region}, {dns_suffix}, {account} and {name} fields"
    try:
        value.format(region="r", dns_suffix="d", account="a", name="n")
    except (KeyError, IndexError, ValueError) as error:
        fields = "{region}, {dns_suffix}, {account}, {name}"
        return f"it cannot be formatted ({error!r}); use {fields}"
    return None


def delivery(value: Any) -> str | None:
    if isinstance(value, str):
        return None if value in DELIVERIES else f"use one of {DELIVERIES} or a Delivery"
    needed = ("needs_request", "deliver", "send_dead_letter", "close")
    missing = [name for name in needed if not hasattr(value, name)]
    return f"a Delivery needs {missing}" if missing else None


def freeze(value: Any) -> str | None:
    ok = value is None or value in FREEZE_ENGINES
    return None if ok else "use True (freezegun), 'time_machine' or False"


def optional_folder(value: Any) -> str | None:
    ok = value is None or (isinstance(value, (str, os.PathLike)) and str(value) != "")
    return None if ok else "expected a folder (a string or a path) or None"


def boolean(value: Any) -> str | None:
    return None if isinstance(value, bool) else "expected True or False"


def start(value: Any) -> str | None:
    if value is None:
        return None
    try:
        to_utc(value, what="start")
    except (TypeError, ValueError) as error:
        return str(error).split(": ", 1)[-1]
    return None


def stack_sources(value: Any) -> str | None:
    ok = isinstance(value, (list, tuple)) and all(
        isinstance(path, (str, os.PathLike)) and str(path) for path in value
    )
    return None if ok else "expected a list of template or assembly paths"


def _strings_by_string(value: Any) -> bool:
    return isinstance(value, Mapping) and all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    )


def text_table(value: Any) -> str | None:
    return None if _strings_by_string(value) else "expected a mapping of names to strings"


def credential_table(value: Any) -> str | None:
    ok = _strings_by_string(value)
    return None if ok else "expected a mapping of access key id -> secret key"
