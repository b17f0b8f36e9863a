"""A stack loaded into an emulator: what its template resolved to, and what was created."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pytest_schedemu.errors import raised_for_the_caller
from pytest_schedemu.model.resources import Schedule, ScheduleGroup
from pytest_schedemu.model.rules import DEFAULT_EVENT_BUS, Rule, rule_target_key
from pytest_schedemu.stacks.check import StackCheck
from pytest_schedemu.stacks.stack import ResolvedStack, StackResource

# A caller's mistake is reported at the caller's line, without this module's frames.
__tracebackhide__ = raised_for_the_caller

SCHEDULE_GROUP = "AWS::Scheduler::ScheduleGroup"
SCHEDULE = "AWS::Scheduler::Schedule"
RULE = "AWS::Events::Rule"


@dataclass(frozen=True)
class Stack:
    """A loaded stack: ``stack.resource("ChargeFn").arn`` is what a test asserts on.

    ``schedule_groups``, ``schedules`` and ``rules`` (EventBridge rules, with their
    targets) are the records created, in template order, as they were when the stack was
    loaded.
    """

    resolved: ResolvedStack
    schedule_groups: tuple[ScheduleGroup, ...]
    schedules: tuple[Schedule, ...]
    rules: tuple[Rule, ...] = ()
    #: Its check, as the emulator that loaded it works it out (``check``).
    checker: Callable[[Stack], StackCheck] | None = field(default=None, compare=False, repr=False)

    @property
    def name(self) -> str:
        return self.resolved.name

    @property
    def source(self) -> Path:
        return self.resolved.source

    @property
    def account(self) -> str:
        return self.resolved.account

    @property
    def region(self) -> str:
        return self.resolved.region

    @property
    def stack_id(self) -> str:
        return self.resolved.stack_id

    @property
    def resources(self) -> tuple[StackResource, ...]:
        return self.resolved.resources

    def resource(self, name: str) -> StackResource:
        """The resource named ``name``: its logical id, CDK construct id or CDK path;
        LookupError, naming the closest, when no resource or several have that name."""
        return self.resolved.resource(name)

    def schedule(self, name: str) -> Schedule:
        """The schedule a resource of type AWS::Scheduler::Schedule created, by any of the
        resource's names; LookupError when it names no such resource."""
        resource = self.resource(name)
        for found, schedule in zip(self.resolved.of_type(SCHEDULE), self.schedules):
            if found is resource:
                return schedule
        raise LookupError(f"{name!r} in stack {self.name} is {_typed(resource)}, not a schedule")

    def rule(self, name: str) -> Rule:
        """The EventBridge rule a resource of type AWS::Events::Rule created, by any of the
        resource's names; LookupError when it names no such resource, or one that was not
        created (an EventPattern alone on a bus other than ``default``)."""
        resource = self.resource(name)
        if resource.type != RULE:
            raise LookupError(f"{name!r} in stack {self.name} is {_typed(resource)}, not a rule")
        rule = self._rules_by_resource().get(resource.logical_id)
        if rule is None:
            raise LookupError(
                f"{name!r} in stack {self.name} is a rule on the event bus "
                f"{resource.properties.get('EventBusName')}, which the emulator does not keep: "
                "a rule with an EventPattern alone there is not created"
            )
        return rule

    def _rules_by_resource(self) -> dict[str, Rule]:
        """Logical id -> the rule it created: the rule of its physical name on the default
        bus (a rule elsewhere is not created)."""
        by_name = {rule.name: rule for rule in self.rules}
        made = {}
        for resource in self.resolved.of_type(RULE):
            rule = by_name.get(resource.physical_name or "")
            if rule is not None and rule.event_bus_name == DEFAULT_EVENT_BUS:
                made[resource.logical_id] = rule
        return made

    def check(self) -> StackCheck:
        """Without moving the clock: every schedule and rule target of the stack, with its
        next three fire times on its own zone's clock and whether it can deliver, under
        what the emulator knows of IAM and its ``iam`` setting (the verdict its attempts
        would meet), with the reason when it cannot. ``check().ok`` when all can;
        ``str(check())`` is what ``schedemu check --stack`` prints."""
        if self.checker is None:
            raise RuntimeError(f"stack {self.name} was not loaded by an emulator: no check")
        return self.checker(self)

    def origins(self) -> dict[str, str]:
        """Schedule ARN, rule ARN and rule target key (``<rule ARN>#<target id>``, a rule
        target's lane and records) -> the logical id of the resource that made it."""
        made_by = self.resolved.of_type(SCHEDULE)
        found = {schedule.arn: r.logical_id for r, schedule in zip(made_by, self.schedules)}
        for logical_id, rule in self._rules_by_resource().items():
            found[rule.arn] = logical_id
            for target in rule.targets:
                found[rule_target_key(rule.arn, target.id)] = logical_id
        return found

    def __repr__(self) -> str:
        return (
            f"<Stack {self.name} from {self.source.name}: {len(self.schedule_groups)} groups, "
            f"{len(self.schedules)} schedules, {len(self.rules)} rules>"
        )


def _typed(resource: StackResource) -> str:
    """The resource's type with its article, as a sentence reads it: "an AWS::SQS::Queue"
    (AWS is read letter by letter), "a Custom::Thing"."""
    article = "an" if resource.type[:1].upper() in "AEIOU" else "a"
    return f"{article} {resource.type}"
