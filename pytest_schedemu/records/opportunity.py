"""Every assertion has an opportunity to fail.

An assertion that could not have failed checks nothing: its test passes whatever the code
under test does. So what could only make an assertion pass is refused, with the reason and
what there was instead:

- an ARN that no schedule of the test aimed at, as a target or as a dead-letter queue;
- a schedule, a group or a rule that never existed (``Records.check``);
- a ``payload_contains`` key that no payload in scope has, and an ``attributes`` name that
  no dead letter has;
- a negative assertion made before anything could have happened: the clock has not moved
  since the last change to a schedule in its scope, or no schedule of the test ever had a
  dead-letter queue.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Callable

from pytest_schedemu.errors import DeliveryAssertionError, raised_for_the_caller
from pytest_schedemu.formats.listing import closest_first, listing
from pytest_schedemu.formats.times import ztime
from pytest_schedemu.model.resources import Schedule
from pytest_schedemu.records.filters import target_matches
from pytest_schedemu.records.reader import Records
from pytest_schedemu.records.types import DEAD_LETTER_ATTRIBUTES
from pytest_schedemu.timekeeping.clock import Clock

# What is refused is reported at the caller's line.
__tracebackhide__ = raised_for_the_caller

# -- ARNs that nothing used ----------------------------------------------------------------------


def require_target(records: Records, target_arn: str) -> None:
    __tracebackhide__ = True
    targets, queues, complete = records.known_targets()
    if not complete or any(target_matches(t, target_arn) for t in targets):
        return
    if target_arn in queues:
        raise DeliveryAssertionError(
            f"{target_arn} is a dead-letter queue, never a schedule's or rule's target: dead "
            "letters are not deliveries. Use assert_dead_lettered or assert_not_dead_lettered."
        )
    raise DeliveryAssertionError(
        f"{target_arn} was never the target of any schedule or rule in this test, so nothing "
        f"can be said of its deliveries. {_did_you_mean(target_arn, targets, 'Targets')}"
    )


def require_queue(records: Records, queue_arn: str) -> None:
    __tracebackhide__ = True
    targets, queues, complete = records.known_targets()
    if not complete or queue_arn in queues:
        return
    if any(target_matches(t, queue_arn) for t in targets):
        raise DeliveryAssertionError(
            f"{queue_arn} is a target, never a schedule's or rule's dead-letter queue. Use "
            "assert_delivered or assert_not_delivered."
        )
    raise DeliveryAssertionError(
        f"{queue_arn} was never the dead-letter queue of any schedule or rule in this test. "
        f"{_did_you_mean(queue_arn, queues, 'Dead-letter queues')}"
    )


def require_some_queue(records: Records, verdict: str) -> None:
    """Fail unless some schedule of the test had a dead-letter queue."""
    __tracebackhide__ = True
    _, queues, complete = records.known_targets()
    if complete and not queues:
        raise DeliveryAssertionError(
            f"{verdict}, but no schedule or rule target in this test ever had a dead-letter "
            "queue: nothing "
            "could have been dead-lettered. An occurrence that ends failed without one is "
            "dropped (see drops() and assert_dropped())."
        )


def _did_you_mean(arn: str, used: list[str], title: str) -> str:
    if not used:
        return f"{title} used: none."
    ordered = closest_first(arn, used)
    return f"Did you mean {ordered[0]}? {title} used, closest first: {listing(ordered)}."


# -- filters that cannot match -------------------------------------------------------------------


def require_payload_keys(payload_contains: Any, payloads: list[Any], where: str) -> None:
    """ValueError when a key of ``payload_contains`` (at any depth) is in none of
    ``payloads``, naming the keys there are. Nothing to check without payloads."""
    if not isinstance(payload_contains, Mapping) or not payloads:
        return
    objects = [p for p in payloads if isinstance(p, Mapping)]
    if not objects:
        raise ValueError(
            f"payload_contains={payload_contains!r} cannot match: no payload of {where} is a "
            "JSON object"
        )
    for path in _key_paths(payload_contains):
        parents = [p for p in (_value_at(o, path[:-1]) for o in objects) if isinstance(p, Mapping)]
        if any(path[-1] in parent for parent in parents):
            continue
        under = f" (under {'/'.join(map(repr, path[:-1]))})" if path[:-1] else ""
        keys = {str(key) for parent in parents for key in parent}
        there = (
            f"Keys there, closest first: {listing(closest_first(str(path[-1]), keys))}"
            if keys
            else "No payload has an object there"
        )
        raise ValueError(
            f"payload_contains key {path[-1]!r}{under} is in no payload of {where}: nothing "
            f"could match it. {there}."
        )


def _key_paths(
    expected: Mapping[Any, Any], above: tuple[Any, ...] = ()
) -> Iterator[tuple[Any, ...]]:
    """Every key of ``expected`` as its path from the top, each parent before its children."""
    for key, value in expected.items():
        path = (*above, key)
        yield path
        if isinstance(value, Mapping):
            yield from _key_paths(value, path)


def _value_at(payload: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        if not isinstance(payload, Mapping) or key not in payload:
            return None
        payload = payload[key]
    return payload


def require_attribute_names(attributes: Mapping[str, str] | None) -> None:
    """ValueError for an ``attributes`` name that is not a dead-letter attribute."""
    for name in attributes or ():
        if name not in DEAD_LETTER_ATTRIBUTES:
            raise ValueError(
                f"{name!r} is not a dead-letter attribute: nothing could match it. "
                f"Dead-letter attributes, closest first: "
                f"{listing(closest_first(str(name), DEAD_LETTER_ATTRIBUTES))}"
            )


# -- time to happen ----------------------------------------------------------------------------


def require_time_passed(
    records: Records,
    clock: Clock,
    verdict: str,
    happened: str,
    in_scope: Callable[[Schedule], bool],
) -> None:
    """Fail when nothing could have happened since the last change to a schedule, or a rule
    target, in scope (``in_scope``, as last defined): the clock stands where that change
    left it, and no attempt of one in scope was made since (a ``tick`` plays the instant
    again).

    ``happened`` is what could not have happened ("delivered", "dead-lettered"…).
    """
    __tracebackhide__ = True
    if clock.real_time:
        return
    definitions = records.last_definitions(
        [*records.known_schedule_arns(), *records.known_rule_targets()]
    )
    scope = {arn: s for arn, s in definitions.items() if in_scope(s)}
    if not scope:
        return
    last_arn, last = max(scope.items(), key=lambda item: item[1].last_modification_date)
    changed = last.last_modification_date
    if clock.now() > changed or any(
        a.attempted_at >= changed and a.producer_key in scope for a in records.attempts()
    ):
        return
    # A schedule updated at the instant it was created has both dates equal; the activity
    # says which came last.
    updated = any(
        a.producer_key == last_arn and a.at == changed for a in records.activity("updated")
    )
    change = "updated" if updated else "created"
    raise DeliveryAssertionError(
        f"{verdict}, but the clock never moved after {last.label} was {change} at "
        f"{ztime(changed)}: nothing could have been {happened} since. Move the clock "
        "(advance, move_to or tick) past what must not happen, then assert."
    )
