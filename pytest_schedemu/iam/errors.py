"""The one error of the IAM wing: a policy document it cannot read."""

from __future__ import annotations

from pytest_schedemu.errors import SchedemuError


class PolicyError(SchedemuError, ValueError):
    """A policy document that is not valid policy grammar.

    The message names the policy, the statement (its ``Sid``, or its index from 0 when it
    has none) and the element at fault, shows the value and says what would be right, the
    way IAM's ``MalformedPolicyDocument`` refuses it.
    """

    def __init__(
        self,
        problem: str,
        *,
        policy: str,
        statement: str | None = None,
        element: str | None = None,
    ) -> None:
        where = [f"policy {policy}"]
        if statement is not None:
            where.append(statement)
        if element is not None:
            where.append(f"element {element}")
        super().__init__(f"{', '.join(where)}: {problem}")
        self.policy = policy
        self.statement = statement
        self.element = element
        self.problem = problem
