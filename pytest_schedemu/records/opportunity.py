"""Every assertion has an opportunity to fail.

An assertion that could not have failed checks nothing: its test passes whatever the code
under test does. So what could only make an assertion pass is refused, with the reason and
what there was instead:

- an ARN that no schedule of the test aimed at, as a target or as a dead-letter queue;
- a schedule, a group or a rule that never existed (``Records.check``);
- a ``payload_contains`` key that no payload in scope has, and an ``attributes`` name that
  no dead letter has;
- a negative assertion made before anything could have happened: for no schedule or rule
  target in its scope has the clock passed an instant at which it would have fired since
  its last change (``chances``), or no schedule of the test ever had a dead-letter queue.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import partial
from typing import Any, Callable

from pytest_schedemu.errors import DeliveryAssertionError, raised_for_the_caller
from pytest_schedemu.formats.listing import closest_first, listing
from pytest_schedemu.formats.times import from_epoch, ztime
from pytest_schedemu.model.resources import Schedule
from pytest_schedemu.records.chances import Chance, first_chance, why_no_chance
from pytest_schedemu.records.filters import target_matches
from pytest_schedemu.records.reader import Records
from pytest_schedemu.records.types import DEAD_LETTER_ATTRIBUTES, Attempt
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


# -- an instant passed at which something in scope would have fired -------------------------


def require_chance_passed(
    records: Records,
    clock: Clock,
    verdict: str,
    happened: str,
    in_scope: Callable[[Schedule], bool],
) -> None:
    """Fail unless, for some schedule or rule target in scope (``in_scope``, as last
    defined), the clock has passed an instant at which it would have fired since its last
    change (``chances``), or an attempt of it was made since (a ``tick`` that played the
    instant of the change, a ``fire``). The message names the earliest such instant still
    ahead, or why none is.

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
    now = clock.now()
    changes = _Changes(records, scope)
    chances: dict[str, Chance | None] = {}
    for arn, definition in scope.items():
        chance = first_chance(definition, partial(changes.generated_before, arn))
        # The move that passed the change played what fell due at the instant it reached.
        if chance is not None and now >= chance.due and now > definition.last_modification_date:
            return
        chances[arn] = chance
    if changes.attempted_since():
        return
    ahead = [(chance, arn) for arn, chance in chances.items() if chance is not None]
    if ahead:
        chance, arn = min(ahead, key=lambda pair: (pair[0].due, pair[1]))
        raise DeliveryAssertionError(
            f"{verdict}, but nothing in its scope could have fired by {ztime(now)}, so "
            f"nothing could have been {happened}: move the clock past {ztime(chance.due)} "
            f"({chance.describe(scope[arn].label)}), then assert."
        )
    reasons = [
        f"{definition.label}: {why_no_chance(definition, changes.change(arn))}"
        for arn, definition in scope.items()
    ]
    raise DeliveryAssertionError(
        f"{verdict}, but nothing in its scope has an occurrence left after its last change, "
        f"so nothing could ever be {happened}: {listing(reasons, 3)}."
    )


class _Changes:
    """What the records say of the last change to each definition in ``scope``."""

    def __init__(self, records: Records, scope: dict[str, Schedule]) -> None:
        self._records = records
        self._scope = scope
        self._updated: set[str] | None = None
        self._attempts: list[Attempt] | None = None

    def _attempts_in_scope(self) -> list[Attempt]:
        if self._attempts is None:
            scope = self._scope
            self._attempts = [a for a in self._records.attempts() if a.producer_key in scope]
        return self._attempts

    def change(self, arn: str) -> str:
        """``updated`` when the last change to ``arn`` was an update, else ``created``."""
        if self._updated is None:
            # A schedule updated at the instant it was created has both dates equal; the
            # activity says which came last.
            self._updated = {
                a.producer_key
                for a in self._records.activity("updated")
                if a.producer_key in self._scope
                and a.at == self._scope[a.producer_key].last_modification_date
            }
        return "updated" if arn in self._updated else "created"

    def generated_before(self, arn: str, nominal: int) -> bool:
        """Whether the nominal time ``nominal`` of ``arn``, at the second of its last change,
        was generated before that change: only an update can follow it, after the move that
        played the instant, which made an attempt or left one pending (then cancelled)."""
        definition = self._scope[arn]
        if self.change(arn) != "updated":
            return False
        changed = definition.last_modification_date
        scheduled = from_epoch(nominal)
        return any(
            a.producer_key == arn
            and a.incarnation == definition.incarnation
            and a.scheduled_time == scheduled
            and a.attempted_at <= changed
            for a in self._attempts_in_scope()
        ) or any(
            a.producer_key == arn and a.at == changed and a.scheduled_time == scheduled
            for a in self._records.activity("cancelled")
        )

    def attempted_since(self) -> bool:
        """Whether an attempt of a definition in scope was made after its last change; one
        at the very instant of an update was made before it (see ``generated_before``)."""
        scope = self._scope
        for attempt in self._attempts_in_scope():
            definition = scope[attempt.producer_key]
            if attempt.incarnation != definition.incarnation:
                continue
            changed = definition.last_modification_date
            if attempt.attempted_at > changed or (
                attempt.attempted_at == changed and self.change(attempt.producer_key) == "created"
            ):
                return True
        return False
