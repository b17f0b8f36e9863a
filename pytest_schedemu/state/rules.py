"""The store of EventBridge rules: the one owner of every rule and its targets.

It shares the ``Store``'s lock and observer, so a rule and a schedule change under the same
lock and the dispatcher hears of both the same way: ``rule_saved`` after any change to a
rule, its state or its targets, ``rule_removed`` when it goes. Rules live per (account,
region), keyed by (event bus, name); reads return the frozen records themselves, taken
under the lock.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from pytest_schedemu.errors import (
    LimitExceededException,
    ValidationException,
    rule_exists,
    rule_not_found,
    too_many_tags,
)
from pytest_schedemu.formats.times import floor_epoch, from_epoch
from pytest_schedemu.model.rules import ENABLED_STATES, Rule, RuleTarget
from pytest_schedemu.state.admission import MAX_TAGS_PER_GROUP, NOTHING_PENDING, Pending
from pytest_schedemu.state.partition import merge_tags

if TYPE_CHECKING:
    from pytest_schedemu.state.store import Store

#: AWS's limit of targets per rule (``PutTargets`` refuses more).
MAX_TARGETS_PER_RULE = 5

RuleKey = tuple[str, str]  # (event bus, name)


class RuleStore:
    """Every rule, per (account, region); used only through its methods."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._rules: dict[tuple[str, str], dict[RuleKey, Rule]] = {}

    def _partition(self, account_id: str, region: str) -> dict[RuleKey, Rule]:
        return self._rules.setdefault((account_id, region), {})

    def _saved(self, rule: Rule, previous: Rule | None) -> Rule:
        self._kept(rule)
        observer = self._store.observer
        if observer is not None:
            observer.rule_saved(rule, previous)
        return rule

    def _kept(self, rule: Rule) -> None:
        """Store ``rule`` (telling the journal, if the state is durable)."""
        self._partition(rule.account_id, rule.region)[(rule.event_bus_name, rule.name)] = rule
        self._touched(rule)

    def _touched(self, rule: Rule) -> None:
        journal = self._store.journal
        if journal is not None:
            journal.rule_touched(rule.account_id, rule.region, rule.event_bus_name, rule.name)

    # -- reads -----------------------------------------------------------------------------

    def find_rule(self, account_id: str, region: str, bus: str, name: str) -> Rule | None:
        with self._store.lock:
            rules = self._rules.get((account_id, region))
            return None if rules is None else rules.get((bus, name))

    def get_rule(self, account_id: str, region: str, bus: str, name: str) -> Rule:
        rule = self.find_rule(account_id, region, bus, name)
        if rule is None:
            raise rule_not_found(name, bus)
        return rule

    def list_rules(
        self, account_id: str, region: str, bus: str, prefix: str | None = None
    ) -> list[Rule]:
        """The rules on ``bus`` whose names start with ``prefix``, by name."""
        with self._store.lock:
            rules = self._rules.get((account_id, region), {})
            found = [
                rule
                for (on_bus, name), rule in rules.items()
                if on_bus == bus and (prefix is None or name.startswith(prefix))
            ]
        return sorted(found, key=lambda rule: rule.name)

    def rule_names_by_target(
        self, account_id: str, region: str, bus: str, target_arn: str
    ) -> list[str]:
        """The names of the rules on ``bus`` with a target of ``target_arn``, sorted."""
        return [
            rule.name
            for rule in self.list_rules(account_id, region, bus)
            if any(target.arn == target_arn for target in rule.targets)
        ]

    def all_rules(self) -> list[Rule]:
        """Every stored rule, by (account, region, bus, name)."""
        with self._store.lock:
            return [
                rule
                for _, rules in sorted(self._rules.items())
                for _, rule in sorted(rules.items())
            ]

    # -- changes ---------------------------------------------------------------------------

    def put_rule(self, definition: Rule) -> Rule:
        """Create the rule ``definition`` describes (a new rule, its tags as given), or
        replace the stored rule's definition with it (its targets and tags carry over)."""
        now = definition.creation_date
        with self._store.lock:
            rules = self._partition(definition.account_id, definition.region)
            bus = definition.event_bus_name
            previous = rules.get((bus, definition.name))
            if previous is None:
                self._make_room(bus, sum(1 for on_bus, _ in rules if on_bus == bus))
                incarnation = self._store.next_incarnation()
                rule = dataclasses.replace(
                    definition, incarnation=incarnation, tags=_tagged((), dict(definition.tags))
                )
            else:
                rule = dataclasses.replace(
                    previous,
                    schedule_expression=definition.schedule_expression,
                    event_pattern=definition.event_pattern,
                    state=definition.state,
                    description=definition.description,
                    role_arn=definition.role_arn,
                )
            return self._saved(_activated(rule, previous, now), previous)

    def set_state(
        self, account_id: str, region: str, bus: str, name: str, state: str, now: datetime
    ) -> Rule:
        """EnableRule (``ENABLED``) or DisableRule (``DISABLED``)."""
        with self._store.lock:
            previous = self.get_rule(account_id, region, bus, name)
            rule = dataclasses.replace(previous, state=state)
            return self._saved(_activated(rule, previous, from_epoch(floor_epoch(now))), previous)

    def delete_rule(
        self, account_id: str, region: str, bus: str, name: str, *, force: bool = False
    ) -> Rule | None:
        """Remove the rule; None when there was none (DeleteRule of a missing rule is not an
        error on AWS). A rule with targets goes only with ``force`` (its targets with it),
        which DeleteRule gives only a managed rule (``commands.rules.deletes_with_targets``)."""
        with self._store.lock:
            rules = self._partition(account_id, region)
            rule = rules.get((bus, name))
            if rule is None:
                return None
            if rule.targets and not force:
                raise ValidationException("Rule can't be deleted since it has targets.")
            del rules[(bus, name)]
            self._touched(rule)
            observer = self._store.observer
            if observer is not None:
                observer.rule_removed(rule, "deleted")
            return rule

    def put_targets(
        self, account_id: str, region: str, bus: str, name: str, targets: Sequence[RuleTarget]
    ) -> Rule:
        """Add ``targets``, replacing any with the same id; all or none."""
        with self._store.lock:
            previous = self.get_rule(account_id, region, bus, name)
            numbers = {target.id: target.incarnation for target in previous.targets}
            replaced = {target.id for target in targets}
            kept = [target for target in previous.targets if target.id not in replaced]
            if len(kept) + len(targets) > MAX_TARGETS_PER_RULE:
                raise too_many_targets()
            numbered = (
                *kept,
                *(
                    dataclasses.replace(
                        target,
                        incarnation=numbers.get(target.id) or self._store.next_incarnation(),
                    )
                    for target in targets
                ),
            )
            return self._saved(dataclasses.replace(previous, targets=numbered), previous)

    def remove_targets(
        self, account_id: str, region: str, bus: str, name: str, ids: Iterable[str]
    ) -> tuple[Rule, list[str]]:
        """Remove the targets ``ids``: the rule, and the ids it did not have."""
        with self._store.lock:
            previous = self.get_rule(account_id, region, bus, name)
            wanted = list(ids)
            have = {target.id for target in previous.targets}
            missing = [target_id for target_id in wanted if target_id not in have]
            kept = tuple(target for target in previous.targets if target.id not in wanted)
            if len(kept) == len(previous.targets):
                return previous, missing
            return self._saved(dataclasses.replace(previous, targets=kept), previous), missing

    def tag_rule(
        self, account_id: str, region: str, bus: str, name: str, tags: Mapping[str, str]
    ) -> Rule:
        with self._store.lock:
            previous = self.get_rule(account_id, region, bus, name)
            rule = dataclasses.replace(previous, tags=_tagged(previous.tags, tags))
            # Tags change nothing the dispatcher plans: the rule is stored, not re-planned.
            self._kept(rule)
            return rule

    def untag_rule(
        self, account_id: str, region: str, bus: str, name: str, keys: Iterable[str]
    ) -> Rule:
        with self._store.lock:
            previous = self.get_rule(account_id, region, bus, name)
            gone = set(keys)
            tags = tuple((key, value) for key, value in previous.tags if key not in gone)
            rule = dataclasses.replace(previous, tags=tags)
            self._kept(rule)
            return rule

    # -- a stack's rules ---------------------------------------------------------------------

    def admit(self, rule: Rule, pending: Pending = NOTHING_PENDING) -> None:
        """Return when a stack may create ``rule``, and count it in ``pending``; raise why
        it may not. CloudFormation creates a rule where PutRule would replace one, so the
        name must be free on its bus, among the stored rules and the stack's own."""
        with self._store.lock:
            stored = self._rules.get((rule.account_id, rule.region), {})
            key = (rule.event_bus_name, rule.name)
            if key in stored or key in pending.rules:
                raise rule_exists(rule.name, rule.event_bus_name)
            on_bus = [bus for bus, _ in (*stored, *pending.rules) if bus == rule.event_bus_name]
            self._make_room(rule.event_bus_name, len(on_bus))
            if len(rule.tags) > MAX_TAGS_PER_GROUP:
                raise too_many_tags()
            if len(rule.targets) > MAX_TARGETS_PER_RULE:
                raise too_many_targets()
            pending.rules.add(key)

    def create(self, rule: Rule) -> Rule:
        """Store a rule ``admit`` let in, with its targets, as PutRule and then PutTargets
        would: the rule, then each target, takes an incarnation number."""
        with self._store.lock:
            now = from_epoch(floor_epoch(rule.creation_date))
            rule = dataclasses.replace(
                rule,
                creation_date=now,
                activated_at=now,
                incarnation=self._store.next_incarnation(),
            )
            numbered = tuple(
                dataclasses.replace(target, incarnation=self._store.next_incarnation())
                for target in rule.targets
            )
            return self._saved(dataclasses.replace(rule, targets=numbered), None)

    def _make_room(self, bus: str, rules_on_bus: int) -> None:
        limit = self._store.settings.current.max_rules
        if rules_on_bus >= limit:
            raise LimitExceededException(
                f"The requested resource exceeds the maximum number allowed "
                f"({limit} rules on the event bus {bus})."
            )

    # -- lifecycle -------------------------------------------------------------------------

    def load(self, rules: Iterable[Rule]) -> None:
        """Put back saved rules, telling nobody: the caller rebuilds the plans."""
        with self._store.lock:
            for rule in rules:
                self._partition(rule.account_id, rule.region)[(rule.event_bus_name, rule.name)] = (
                    rule
                )

    def reset(self) -> None:
        with self._store.lock:
            self._rules.clear()

    def snapshot(self) -> tuple[Rule, ...]:
        return tuple(self.all_rules())


def too_many_targets() -> LimitExceededException:
    # AWS's message, word for word (a rule has at most five targets).
    return LimitExceededException("The requested resource exceeds the maximum number allowed.")


def _tagged(
    tags: tuple[tuple[str, str], ...], added: Mapping[str, str] | None
) -> tuple[tuple[str, str], ...]:
    if not added:
        return tags
    merged = merge_tags(tags, added.items())
    if len(merged) > MAX_TAGS_PER_GROUP:
        raise too_many_tags()
    return merged


def _activated(rule: Rule, previous: Rule | None, now: datetime) -> Rule:
    """``rule`` with its rate() count restarted at ``now`` when it has just been turned on
    or given a new expression; unchanged otherwise."""
    if previous is None:
        return rule
    turned_on = rule.state in ENABLED_STATES and previous.state not in ENABLED_STATES
    if turned_on or rule.schedule_expression != previous.schedule_expression:
        return dataclasses.replace(rule, activated_at=now)
    return rule
