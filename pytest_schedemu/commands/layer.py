"""The command layer: every create, update and delete of a schedule group, a schedule, a
rule and a rule's targets, whichever door it comes by.

An API handler hands it the shape-validated request (model member names, timestamps as
datetimes) and renders what it returns; a stack's load gathers its resources in a
``Batch``, all or nothing. The checks that need no state run here, in the reference's
order; the ones that need it (a name taken, a group missing, a quota) are the store's, in
the same critical section as the write. Every method runs under the store's lock, which
the caller holds for the whole request.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pytest_schedemu.commands.batch import Batch
from pytest_schedemu.commands.call import Call
from pytest_schedemu.commands.rule_targets import sort_entries
from pytest_schedemu.commands.rules import (
    check_rule_request,
    deletes_with_targets,
    event_bus,
    refuse_managed,
    rule_from,
)
from pytest_schedemu.commands.schedules import Document, check_role, group_from, schedule_from
from pytest_schedemu.model.resources import DEFAULT_GROUP, Schedule, ScheduleGroup
from pytest_schedemu.model.rules import Rule
from pytest_schedemu.settings.live import LiveSettings
from pytest_schedemu.state.store import Store


class Commands:
    """The one way in to the store's groups, schedules and rules."""

    def __init__(self, store: Store, settings: LiveSettings) -> None:
        self.store = store
        self.settings = settings

    def batch(self, call: Call) -> Batch:
        """A new all-or-nothing batch of creates, at ``call``'s instant."""
        return Batch(self.store, self.settings, call)

    # -- schedule groups -------------------------------------------------------------------

    def create_group(self, call: Call, params: Document) -> ScheduleGroup:
        return self.store.create_group(group_from(call, params))

    def delete_group(self, call: Call, name: str) -> None:
        self.store.delete_group(call.account_id, call.region, name, call.now)

    def tag_group(self, call: Call, name: str, tags: Iterable[Document]) -> None:
        pairs = [(tag["Key"], tag["Value"]) for tag in tags]
        self.store.tag_group(call.account_id, call.region, name, pairs)

    def untag_group(self, call: Call, name: str, keys: Iterable[str]) -> None:
        self.store.untag_group(call.account_id, call.region, name, keys)

    # -- schedules -------------------------------------------------------------------------

    def create_schedule(self, call: Call, params: Document) -> Schedule:
        settings = self.settings.current
        schedule = schedule_from(call, params, settings.past_at == "reject")
        return self.store.create_schedule(check_role(schedule, self.store.iam, settings.iam))

    def update_schedule(self, call: Call, params: Document) -> Schedule:
        group = params.get("GroupName", DEFAULT_GROUP)
        current = self.store.find_schedule(call.account_id, call.region, group, params["Name"])
        settings = self.settings.current
        schedule = schedule_from(call, params, settings.past_at == "reject", current)
        return self.store.update_schedule(check_role(schedule, self.store.iam, settings.iam))

    def delete_schedule(self, call: Call, group: str, name: str) -> None:
        self.store.delete_schedule(call.account_id, call.region, group, name)

    # -- rules -----------------------------------------------------------------------------

    def rule(self, call: Call, bus_value: str | None, name: str) -> Rule:
        """The rule a request names on the event bus it names (which must exist)."""
        bus = event_bus(call, bus_value)
        return self.store.rules.get_rule(call.account_id, call.region, bus, name)

    def put_rule(self, call: Call, params: Document) -> Rule:
        """PutRule: create the rule, or replace its definition; on an existing rule the
        tags it gives are ignored (AWS's API reference)."""
        check_rule_request(params)
        bus = event_bus(call, params.get("EventBusName"))
        rules = self.store.rules
        existing = rules.find_rule(call.account_id, call.region, bus, params["Name"])
        if existing is not None:
            refuse_managed(existing, "PutRule")
        return rules.put_rule(rule_from(call, params, bus))

    def delete_rule(self, call: Call, params: Document) -> None:
        """DeleteRule: a rule that does not exist is no error (AWS's API reference)."""
        bus = event_bus(call, params.get("EventBusName"))
        name, force = params["Name"], params.get("Force", False)
        rules = self.store.rules
        rule = rules.find_rule(call.account_id, call.region, bus, name)
        if rule is not None:
            refuse_managed(rule, "DeleteRule", force)
            with_targets = deletes_with_targets(rule, force)
            rules.delete_rule(call.account_id, call.region, bus, name, force=with_targets)

    def set_rule_state(self, call: Call, params: Document, operation: str, state: str) -> None:
        """EnableRule (``ENABLED``) or DisableRule (``DISABLED``)."""
        rule = self.rule(call, params.get("EventBusName"), params["Name"])
        refuse_managed(rule, operation)
        if state == "ENABLED" and rule.enabled:
            # Enabling an enabled rule changes nothing, and its rate() keeps counting.
            return
        self.store.rules.set_state(
            call.account_id, call.region, rule.event_bus_name, rule.name, state, call.now
        )

    def tag_rule(self, call: Call, rule: Rule, tags: Iterable[Document]) -> None:
        refuse_managed(rule, "TagResource")
        added = {tag["Key"]: tag["Value"] for tag in tags}
        self.store.rules.tag_rule(
            call.account_id, call.region, rule.event_bus_name, rule.name, added
        )

    def untag_rule(self, call: Call, rule: Rule, keys: Iterable[str]) -> None:
        refuse_managed(rule, "UntagResource")
        self.store.rules.untag_rule(
            call.account_id, call.region, rule.event_bus_name, rule.name, keys
        )

    # -- a rule's targets ------------------------------------------------------------------

    def put_targets(self, call: Call, params: Document) -> list[Document]:
        """PutTargets: the targets that pass are put, all or none; the ``FailedEntries``
        of the others."""
        rule = self.rule(call, params.get("EventBusName"), params["Rule"])
        refuse_managed(rule, "PutTargets")
        accepted, failed = sort_entries(params["Targets"], call.region)
        if accepted:
            self.store.rules.put_targets(
                call.account_id, call.region, rule.event_bus_name, rule.name, accepted
            )
        return failed

    def remove_targets(self, call: Call, params: Document) -> tuple[Rule, Sequence[str]]:
        """RemoveTargets: the rule, and the ids it did not have."""
        rule = self.rule(call, params.get("EventBusName"), params["Rule"])
        refuse_managed(rule, "RemoveTargets", params.get("Force", False))
        _, missing = self.store.rules.remove_targets(
            call.account_id, call.region, rule.event_bus_name, rule.name, params["Ids"]
        )
        return rule, missing
