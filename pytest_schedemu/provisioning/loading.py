"""Loading a stack: its schedule groups, schedules and EventBridge rules created through
exactly the checks CreateScheduleGroup, CreateSchedule, PutRule and PutTargets apply, all
or nothing.

A resource's properties are its API request: CloudFormation's ``AWS::Scheduler::*``
properties carry the API's member names. They are shape-validated by the service model
(after the type conversions CloudFormation makes: a template's ``"3"`` is an integer where
the model says so), and handed to one batch of the command layer (``Commands.batch``),
which checks each as its operation does and then all of them against the state before it
stores any. The first that fails fails the load with the file, the logical id and AWS's
message. A rule's two requests are made in ``provisioning.rules``.

What IAM a stack declares (its roles, their policies, its queues', topics' and functions'
policies) is known from the moment its load starts, so that CreateSchedule's check of an
execution role sees the stack's own roles; a load that fails forgets it again.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from pytest_schedemu.commands.batch import BatchRefused
from pytest_schedemu.commands.call import Call
from pytest_schedemu.commands.layer import Commands
from pytest_schedemu.commands.rules import bus_name
from pytest_schedemu.errors import ApiError, StackError, raised_for_the_caller
from pytest_schedemu.formats.listing import suggestion
from pytest_schedemu.functions.catalogue import FunctionCatalogue
from pytest_schedemu.functions.reading import read_functions
from pytest_schedemu.iam import IamDeclarations
from pytest_schedemu.iam.declarations import NOTHING
from pytest_schedemu.model.resources import DEFAULT_GROUP
from pytest_schedemu.model.rules import DEFAULT_EVENT_BUS, parse_rule_target_key
from pytest_schedemu.model.template_limits import TemplateLimits
from pytest_schedemu.protocol.validation import ServiceValidator
from pytest_schedemu.provisioning.checking import check_stack
from pytest_schedemu.provisioning.requests import failure, refuse_unknown, typed
from pytest_schedemu.provisioning.rules import add_rule
from pytest_schedemu.settings.options import Settings
from pytest_schedemu.stacks import ResolvedStack, StackResource, read_stack
from pytest_schedemu.stacks.check import StackCheck
from pytest_schedemu.stacks.loaded import RULE, SCHEDULE, SCHEDULE_GROUP, Stack
from pytest_schedemu.state.iam import stack_source

#: What IAM a resolved stack declares.
IamReader = Callable[[ResolvedStack], IamDeclarations]

# A caller's mistake is reported at the caller's line, without this module's frames.
__tracebackhide__ = raised_for_the_caller


class StackLoader:
    """Creates a resolved stack's groups, schedules and rules, through the command layer."""

    def __init__(
        self,
        validator: ServiceValidator,
        commands: Commands,
        now: Callable[[], datetime],
        read_iam: IamReader = lambda resolved: NOTHING,
    ) -> None:
        self._validator = validator
        self._commands = commands
        self._store = commands.store
        self._now = now
        self._read_iam = read_iam

    @contextmanager
    def iam_declared(self, resolved: ResolvedStack) -> Iterator[None]:
        """What IAM the stack declares, known while the block runs and after it; forgotten
        when the block raises (the stack is not loaded)."""
        source = stack_source(resolved.name)
        iam = self._store.iam
        iam.declare(source, self._read_iam(resolved))
        try:
            yield
        except BaseException:
            iam.forget(source)
            raise

    def check(self, stack: Stack) -> StackCheck:
        """``stack``'s check now, under what the emulator knows of IAM and its setting."""
        return check_stack(
            stack,
            knowledge=self._store.iam,
            mode=self._commands.settings.current.iam,
            at=self._now(),
        )

    def load(self, resolved: ResolvedStack) -> Stack:
        batch = self._commands.batch(Call(resolved.account, resolved.region, self._now()))
        for resource in resolved.of_type(SCHEDULE_GROUP):
            self._add("CreateScheduleGroup", batch.group, resolved, resource)
        for resource in resolved.of_type(SCHEDULE):
            self._add("CreateSchedule", batch.schedule, resolved, resource)
        for resource in resolved.of_type(RULE):
            add_rule(batch, resolved, resource)
        try:
            created = batch.apply()
        except BatchRefused as refused:
            raise failure(resolved, refused.label, refused.error) from None
        return Stack(
            resolved,
            tuple(created.groups),
            tuple(created.schedules),
            tuple(created.rules),
            self.check,
        )

    def adopt(self, resolved: ResolvedStack) -> Stack | None:
        """The stack as stored, when every group, schedule and rule of it is; None when none
        is. Some but not all is a state this stack did not make: StackError."""
        account, region = resolved.account, resolved.region
        groups = [
            self._store.find_group(account, region, self._name(resolved, r))
            for r in resolved.of_type(SCHEDULE_GROUP)
        ]
        schedules = [
            self._store.find_schedule(
                account,
                region,
                str(r.properties.get("GroupName", DEFAULT_GROUP)),
                self._name(resolved, r),
            )
            for r in resolved.of_type(SCHEDULE)
        ]
        rules = [
            self._store.rules.find_rule(account, region, bus, self._name(resolved, r))
            for r, bus in self._created_rules(resolved)
        ]
        found = [item for item in (*groups, *schedules, *rules) if item is not None]
        if not found:
            return None
        if len(found) < len(groups) + len(schedules) + len(rules):
            raise StackError(
                f"{resolved.source.name}: the state holds some of stack {resolved.name}'s "
                "schedules, groups and rules but not all: it was not made by this template"
            )
        return Stack(
            resolved,
            tuple(g for g in groups if g is not None),
            tuple(s for s in schedules if s is not None),
            tuple(r for r in rules if r is not None),
            self.check,
        )

    @staticmethod
    def _created_rules(stack: ResolvedStack) -> list[tuple[StackResource, str]]:
        """The stack's rules that loading it creates, each with its bus: those on the
        default bus (``stack_rules``: a pattern on another bus is not created)."""
        made = ((r, bus_name(r.properties.get("EventBusName"))) for r in stack.of_type(RULE))
        return [(r, bus) for r, bus in made if bus == DEFAULT_EVENT_BUS]

    @staticmethod
    def _name(stack: ResolvedStack, resource: StackResource) -> str:
        name = resource.physical_name or resource.properties.get("Name")
        if not isinstance(name, str):
            raise StackError(f"{stack.source.name}: resource {resource.logical_id} has no name")
        return name

    def _add(
        self,
        operation: str,
        add: Callable[[dict[str, Any], StackResource], None],
        stack: ResolvedStack,
        resource: StackResource,
    ) -> None:
        """Add the resource to the batch as the request of ``operation``."""
        params = self._request(operation, stack, resource)
        try:
            add(self._validator[operation].validate(params), resource)
        except ApiError as error:
            raise failure(stack, resource, error) from None

    def _request(
        self, operation: str, stack: ResolvedStack, resource: StackResource
    ) -> dict[str, Any]:
        """The resource's properties as the operation's request, typed as the model says."""
        shape = self._validator.model.operation_model(operation).input_shape
        refuse_unknown(stack, resource, [name for name in shape.members if name != "ClientToken"])
        request = dict(resource.properties)
        if resource.physical_name is not None:
            request["Name"] = resource.physical_name
        converted: dict[str, Any] = typed(request, shape)
        return converted


class LoadedStacks:
    """The stacks an emulator has loaded since its last reset, by name, and which stack
    and resource each of their schedules and rules came from; the functions of those
    loaded with ``run_functions`` go to the emulator's catalogue."""

    def __init__(self, loader: StackLoader, functions: FunctionCatalogue | None = None) -> None:
        self._loader = loader
        self.functions = FunctionCatalogue() if functions is None else functions
        self._lock = threading.Lock()
        self._stacks: dict[str, Stack] = {}
        self._origins: dict[str, tuple[str, str]] = {}

    def load(
        self,
        source: str | os.PathLike[str],
        settings: Settings,
        parameters: Mapping[str, str] | None = None,
        stack_name: str | None = None,
        imports: Mapping[str, str] | None = None,
        placeholders: bool = False,
        *,
        adopt: bool = False,
        run_functions: bool | None = None,
    ) -> Stack:
        """Read ``source`` for the settings' account, region and seed, and load it; with
        ``adopt``, a stack whose groups and schedules are all stored already is taken back
        as it is (a restarted service's state file holds it). With ``run_functions`` (the
        setting's value when None) its functions join the catalogue of those that run."""
        resolved = read_stack(
            source,
            account=settings.account_id,
            region=settings.region,
            seed=settings.seed,
            parameters=parameters,
            stack_name=stack_name,
            imports=imports,
            placeholders=placeholders,
            limits=TemplateLimits(
                max_bytes=settings.max_template_bytes,
                max_nodes=settings.max_template_nodes,
                max_depth=settings.max_template_depth,
            ),
        )
        if self.loaded(resolved.name):
            raise StackError(
                f"A stack named {resolved.name} is already loaded: give another stack_name="
            )
        running = settings.run_functions if run_functions is None else run_functions
        functions = read_functions(resolved) if running else ()
        with self._loader.iam_declared(resolved):
            stack = self._loader.adopt(resolved) if adopt else None
            if stack is None:
                stack = self._loader.load(resolved)
        self.functions.add(*functions)
        with self._lock:
            self._stacks[stack.name] = stack
            for arn, logical_id in stack.origins().items():
                self._origins[arn] = (stack.name, logical_id)
        return stack

    def load_configured(self, settings: Settings, adopt: bool) -> None:
        """Load the stacks ``settings`` name: ``path``, or ``path#StackName`` for one stack
        of a CDK assembly."""
        parameters = dict(settings.stack_parameters) or None
        for entry in settings.stacks:
            path, _, name = entry.partition("#")
            self.load(path, settings, parameters=parameters, stack_name=name or None, adopt=adopt)

    def loaded(self, name: str) -> bool:
        with self._lock:
            return name in self._stacks

    def get(self, name: str) -> Stack:
        with self._lock:
            stack = self._stacks.get(name)
            known = sorted(self._stacks)
        if stack is None:
            raise LookupError(
                f"No stack {name!r} is loaded; {suggestion(name, known, 'loaded stacks')}"
            )
        return stack

    def all(self) -> list[Stack]:
        with self._lock:
            return list(self._stacks.values())

    def origin(self, schedule_arn: str) -> tuple[str, str] | None:
        """(stack name, logical id) of the resource that made the schedule, or the rule
        of a rule target's key (a target put on a stack's rule later included), or None."""
        with self._lock:
            found = self._origins.get(schedule_arn)
        if found is not None:
            return found
        target = parse_rule_target_key(schedule_arn)
        if target is None:
            return None
        with self._lock:
            return self._origins.get(target.rule_arn)

    def clear(self) -> None:
        with self._lock:
            self._stacks.clear()
            self._origins.clear()
        self.functions.clear()
