"""The intrinsic functions that only compute: on strings, lists and addresses."""

from __future__ import annotations

import ipaddress
from typing import Any

from pytest_schedemu.errors import raised_for_the_caller
from pytest_schedemu.stacks.location import Location

# A caller's mistake is reported at the caller's line, without this module's frames.
__tracebackhide__ = raised_for_the_caller


def text(value: Any, at: Location, function: str) -> str:
    """``value`` as the string a function takes: numbers and booleans as CloudFormation
    writes them, anything else an error."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    raise at.error(f"{function}: expects a string, not {value!r}")


def join(args: Any, at: Location) -> str:
    if not isinstance(args, list) or len(args) != 2 or not isinstance(args[1], list):
        raise at.error(f"Fn::Join takes [delimiter, [values]], not {args!r}")
    delimiter = text(args[0], at, "Fn::Join")
    return delimiter.join(text(item, at, "Fn::Join") for item in args[1])


def select(args: Any, at: Location) -> Any:
    if not isinstance(args, list) or len(args) != 2 or not isinstance(args[1], list):
        raise at.error(f"Fn::Select takes [index, [values]], not {args!r}")
    index, values = args
    try:
        position = int(index)
    except (TypeError, ValueError):
        raise at.error(f"Fn::Select: index {index!r} is not a number") from None
    if not 0 <= position < len(values):
        raise at.error(f"Fn::Select: index {position} is outside a list of {len(values)}")
    return values[position]


def split(args: Any, at: Location) -> list[str]:
    if not isinstance(args, list) or len(args) != 2:
        raise at.error(f"Fn::Split takes [delimiter, string], not {args!r}")
    delimiter = text(args[0], at, "Fn::Split")
    if not delimiter:
        raise at.error("Fn::Split: the delimiter is empty")
    return text(args[1], at, "Fn::Split").split(delimiter)


def cidr(args: Any, at: Location) -> list[str]:
    """``Fn::Cidr [block, count, bits]``: the first ``count`` subnets of ``block`` that
    have ``bits`` host bits each."""
    if not isinstance(args, list) or len(args) != 3:
        raise at.error(f"Fn::Cidr takes [ip block, count, cidr bits], not {args!r}")
    try:
        network = ipaddress.ip_network(text(args[0], at, "Fn::Cidr"))
        count, bits = int(args[1]), int(args[2])
    except ValueError as error:
        raise at.error(f"Fn::Cidr: {error}") from None
    prefix = network.max_prefixlen - bits
    if not network.prefixlen <= prefix <= network.max_prefixlen or not 1 <= count <= 256:
        raise at.error(f"Fn::Cidr: cannot make {count} subnets of {bits} host bits in {network}")
    subnets = []
    for subnet in network.subnets(new_prefix=prefix):
        subnets.append(str(subnet))
        if len(subnets) == count:
            return subnets
    raise at.error(f"Fn::Cidr: {network} holds fewer than {count} subnets of {bits} host bits")
