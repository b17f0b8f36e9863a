"""What IAM the emulator knows: the roles, resource policies and ECS task definitions' roles
each source declared (a loaded stack, the user by hand), joined into one view that
evaluation reads.

``IamKnowledge`` owns it behind its own lock (a leaf lock: it calls nothing while holding
it). Each source's declarations replace that source's earlier ones whole; ``version`` moves
on every change, so that a caller caching decisions keys them with it and never answers
from a policy that has changed since.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any, Union

from pytest_schedemu.errors import raised_for_the_caller
from pytest_schedemu.iam import IamDeclarations, Policy, Role, parse_policy
from pytest_schedemu.iam.declarations import NOTHING, task_definition_names

# A malformed policy is the caller's mistake: reported at the caller's line, without
# this module's frames.
__tracebackhide__ = raised_for_the_caller

#: The source of what a test declared by hand (``emu.iam``).
BY_HAND = "by hand"
#: The source of what the services a boto3 delivery reaches declare (moto's IAM).
DELIVERY_SERVICES = "the delivery's services"

#: A policy as a user gives one: its document as a dict, or as JSON text.
PolicyDocument = Union[str, Mapping[str, Any]]


_RANKS = {DELIVERY_SERVICES: 0, BY_HAND: 2}


def stack_source(name: str) -> str:
    """The source name of a loaded stack's declarations."""
    return f"stack {name}"


class IamKnowledge:
    """Every source's IAM declarations, and the view they make together."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sources: dict[str, IamDeclarations] = {}
        self._joined = NOTHING
        #: Moves on whenever what is known changes (read without the lock: an int).
        self.version = 0

    def declare(self, source: str, declarations: IamDeclarations) -> None:
        """``source``'s declarations, in place of what it declared before."""
        with self._lock:
            if self._sources.get(source) == declarations:
                return  # read again unchanged (moto's, at each move): nothing to ask again
            self._sources[source] = declarations
            self._rejoin()

    def forget(self, source: str) -> None:
        """Drop what ``source`` declared (a stack that failed to load, or went)."""
        with self._lock:
            if self._sources.pop(source, None) is not None:
                self._rejoin()

    def clear(self) -> None:
        with self._lock:
            if self._sources:
                self._sources.clear()
                self._rejoin()

    def _rejoin(self) -> None:
        joined = NOTHING
        # A later source wins a role both declare: what the delivery's services hold, then
        # the stacks in the order they were loaded, then the user's hand over all.
        ranked = sorted(self._sources.items(), key=lambda item: _RANKS.get(item[0], 1))
        for _, declarations in ranked:
            joined = joined.merged(declarations)
        self._joined = joined
        self.version += 1

    def declared(self, source: str) -> IamDeclarations:
        with self._lock:
            return self._sources.get(source, NOTHING)

    @property
    def empty(self) -> bool:
        """Whether nothing at all is known (read without the lock, as ``version``)."""
        joined = self._joined
        return not (joined.roles or joined.resource_policies)

    # -- what evaluation reads: one joined view, replaced whole, so read without the lock --

    def role(self, arn: str) -> Role | None:
        return self._joined.roles.get(arn)

    def resource_policy(self, arn: str) -> Policy | None:
        return self._joined.resource_policies.get(arn)

    def role_arns(self) -> list[str]:
        return sorted(self._joined.roles)

    def unknown_policies(self, role_arn: str) -> tuple[str, ...]:
        """The managed policies attached to the role that the emulator has no copy of."""
        return self._joined.unknown_policies.get(role_arn, ())

    def task_roles(self, task_definition: str) -> tuple[str, ...] | None:
        """The roles the ECS task definition passes to its tasks; None when it is not
        known."""
        return self._joined.task_roles.get(task_definition)


def _name(arn: str) -> str:
    return arn.rsplit("/", 1)[-1]


class IamByHand:
    """What a test tells the emulator of IAM itself: ``emu.iam.role(...)``,
    ``emu.iam.resource_policy(...)``, ``emu.iam.task_definition(...)``. Gone with the
    emulator's reset; a policy that cannot be read changes nothing."""

    def __init__(self, knowledge: IamKnowledge) -> None:
        self._knowledge = knowledge
        self._lock = threading.Lock()

    def role(
        self,
        arn: str,
        *,
        trust: PolicyDocument,
        policies: Iterable[PolicyDocument] | Mapping[str, PolicyDocument] = (),
        unknown_policies: Iterable[str] = (),
    ) -> Role:
        """Declare the role ``arn``: its trust policy and its identity policies (inline and
        attached, as dicts or JSON text; a mapping names them), and the ARNs of attached
        managed policies the emulator has no copy of. A malformed policy raises
        ``PolicyError`` naming it."""
        name = _name(arn)
        named = (
            list(policies.items())
            if isinstance(policies, Mapping)
            else [(f"{name} policy {index}", document) for index, document in enumerate(policies)]
        )
        role = Role(
            arn,
            trust=parse_policy(trust, name=f"{name} trust policy", kind="trust"),
            policies=tuple(parse_policy(document, name=label) for label, document in named),
        )
        unknown = tuple(unknown_policies)
        with self._lock:
            mine = self._knowledge.declared(BY_HAND)
            unknowns = {key: value for key, value in mine.unknown_policies.items() if key != arn}
            if unknown:
                unknowns[arn] = unknown
            self._knowledge.declare(
                BY_HAND, replace(mine, roles={**mine.roles, arn: role}, unknown_policies=unknowns)
            )
        return role

    def resource_policy(self, arn: str, policy: PolicyDocument) -> Policy:
        """Declare the policy of the queue, topic, function or bus ``arn`` (in place of one
        declared by hand before)."""
        parsed = parse_policy(policy, name=f"policy of {_name(arn)}", kind="resource")
        with self._lock:
            mine = self._knowledge.declared(BY_HAND)
            self._knowledge.declare(
                BY_HAND, replace(mine, resource_policies={**mine.resource_policies, arn: parsed})
            )
        return parsed

    def task_definition(
        self, arn: str, *, task_role: str | None = None, execution_role: str | None = None
    ) -> None:
        """Declare the ECS task definition ``arn`` and the roles it gives its tasks (their
        ARNs), which a schedule or rule that runs it must be allowed to pass
        (``iam:PassRole``); in place of one declared by hand before."""
        roles = tuple(role for role in (task_role, execution_role) if role)
        with self._lock:
            mine = self._knowledge.declared(BY_HAND)
            named = dict.fromkeys(task_definition_names(arn), roles)
            self._knowledge.declare(BY_HAND, replace(mine, task_roles={**mine.task_roles, **named}))

    def roles(self) -> list[str]:
        """The ARNs of every role the emulator knows, from any source."""
        return self._knowledge.role_arns()
