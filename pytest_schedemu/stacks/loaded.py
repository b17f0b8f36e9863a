"""A stack loaded into an emulator: what its template resolved to, and what was created."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pytest_schedemu.model.resources import Schedule, ScheduleGroup
from pytest_schedemu.stacks.stack import ResolvedStack, StackResource

SCHEDULE_GROUP = "AWS::Scheduler::ScheduleGroup"
SCHEDULE = "AWS::Scheduler::Schedule"


@dataclass(frozen=True)
class Stack:
    """A loaded stack: ``stack.resource("ChargeFn").arn`` is what a test asserts on.

    ``schedule_groups`` and ``schedules`` are the records created, in template order, as
    they were when the stack was loaded.
    """

    resolved: ResolvedStack
    schedule_groups: tuple[ScheduleGroup, ...]
    schedules: tuple[Schedule, ...]

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
        raise LookupError(f"{name!r} in stack {self.name} is a {resource.type}, not a schedule")

    def origins(self) -> dict[str, str]:
        """Schedule ARN -> the logical id of the resource that made it."""
        made_by = self.resolved.of_type(SCHEDULE)
        return {schedule.arn: r.logical_id for r, schedule in zip(made_by, self.schedules)}

    def __repr__(self) -> str:
        return (
            f"<Stack {self.name} from {self.source.name}: {len(self.schedule_groups)} groups, "
            f"{len(self.schedules)} schedules>"
        )
