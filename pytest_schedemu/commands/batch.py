"""An all-or-nothing batch of creates: a stack's groups, schedules and rules.

Each resource is checked as its own request is when it is added (``group``, ``schedule``,
``rule``), so the first a template gets wrong fails at once; ``apply`` then checks all of
them against the state and the ones before them (a name taken, a group missing, a quota
reached) before it stores any, and stores them in one unit of work. A resource is given
with a label of the caller's (a stack's logical resource), which a refusal carries back.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from pytest_schedemu.commands.call import Call
from pytest_schedemu.commands.rule_targets import every_target
from pytest_schedemu.commands.rules import bus_name, check_rule_request, event_bus, rule_from
from pytest_schedemu.commands.schedules import Document, check_role, group_from, schedule_from
from pytest_schedemu.errors import ApiError
from pytest_schedemu.model.resources import Schedule, ScheduleGroup
from pytest_schedemu.model.rules import DEFAULT_EVENT_BUS, Rule
from pytest_schedemu.settings.live import LiveSettings
from pytest_schedemu.state.admission import Pending
from pytest_schedemu.state.store import Store


class Created(NamedTuple):
    """What a batch stored, as stored (tags merged, incarnations given)."""

    groups: list[ScheduleGroup]
    schedules: list[Schedule]
    rules: list[Rule]


class BatchRefused(Exception):
    """A resource of the batch may not be created: nothing of the batch was."""

    def __init__(self, label: Any, error: ApiError) -> None:
        super().__init__(label, error)
        #: The label the resource was added with.
        self.label = label
        self.error = error


class Batch:
    """Creates made together, at one call's instant, all or none."""

    def __init__(self, store: Store, settings: LiveSettings, call: Call) -> None:
        self._store = store
        self._settings = settings
        self._call = call
        self._groups: list[tuple[Any, ScheduleGroup]] = []
        self._schedules: list[tuple[Any, Schedule]] = []
        self._rules: list[tuple[Any, Rule]] = []

    def group(self, params: Document, label: Any) -> None:
        """Add the group a shape-validated CreateScheduleGroup request describes."""
        self._groups.append((label, group_from(self._call, params)))

    def schedule(self, params: Document, label: Any) -> None:
        """Add the schedule a shape-validated CreateSchedule request describes, after
        CreateSchedule's checks (ApiError)."""
        settings = self._settings.current
        schedule = schedule_from(self._call, params, settings.past_at == "reject")
        self._schedules.append((label, check_role(schedule, self._store.iam, settings.iam)))

    def rule(self, params: Document, targets: Callable[[], Sequence[Document]], label: Any) -> bool:
        """Add the rule a shape-validated PutRule request describes, with the targets
        ``targets`` gives (shape-validated PutTargets entries, asked for once PutRule's
        checks have passed, as PutTargets follows PutRule); whether it is created: a rule
        with an ``EventPattern`` alone on another bus than the default is not, the emulator
        keeping the default bus alone. Unlike PutTargets, a target that would fail alone
        (or repeat an id) refuses the rule (ApiError): a rule is created whole or not."""
        check_rule_request(params)
        accepted = every_target(targets(), self._call.region)
        bus = bus_name(params.get("EventBusName"))
        if bus != DEFAULT_EVENT_BUS:
            return False  # an EventPattern alone: check_rule_request refused an expression
        event_bus(self._call, params.get("EventBusName"))  # a default bus of another account
        rule = dataclasses.replace(rule_from(self._call, params, bus), targets=tuple(accepted))
        self._rules.append((label, rule))
        return True

    def apply(self) -> Created:
        """Store every resource added (groups, then schedules, then rules), or none:
        ``BatchRefused`` names the first that may not be created. The change is durable
        (with a state file) when this returns."""
        store = self._store
        with store.lock:
            pending: dict[tuple[str, str], Pending] = {}
            items: list[tuple[Any, ScheduleGroup | Schedule | Rule]] = [
                *self._groups,
                *self._schedules,
                *self._rules,
            ]
            for label, item in items:
                try:
                    store.admit(item, pending.setdefault((item.account_id, item.region), Pending()))
                except ApiError as refused:
                    raise BatchRefused(label, refused) from None
            created = Created(
                [store.create_group(group) for _, group in self._groups],
                [store.create_schedule(schedule) for _, schedule in self._schedules],
                [store.rules.create(rule) for _, rule in self._rules],
            )
        store.commit()
        return created
