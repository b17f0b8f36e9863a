"""A policy written by hand that IAM would refuse is refused where it is written, naming the
statement and the element, and changes nothing the emulator knew: what was declared before
still decides (here, still refuses)."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_schedemu import Emulator
from pytest_schedemu.iam import PolicyError
from tests.constants import QUEUE, ROLE
from tests.helpers import create, put_rule, rule_target
from tests.iam_delivery.documents import letting, trusting


def test_a_malformed_role_leaves_the_role_declared_before(emu: Emulator, client: Any) -> None:
    emu.iam.role(ROLE, trust=trusting())  # allowed nothing
    with pytest.raises(PolicyError, match="policy scheduler trust policy: is not JSON"):
        emu.iam.role(ROLE, trust="{not json")
    with pytest.raises(PolicyError) as raised:
        emu.iam.role(
            ROLE,
            trust=trusting(),
            policies={"send": {"Statement": [{"Sid": "Send", "Effect": "Maybe"}]}},
        )
    assert str(raised.value) == (
        "policy send, statement Send, element Effect: must be Allow or Deny, not 'Maybe'"
    )
    assert emu.iam.roles() == [ROLE]
    create(client, expression="at(2026-03-01T10:00:00)")
    emu.clock.advance(minutes=1)
    assert emu.attempts()[0].error_code == "AccessDeniedException"


def test_a_malformed_resource_policy_leaves_the_one_declared_before(emu: Emulator) -> None:
    emu.iam.resource_policy(QUEUE, letting("sns.amazonaws.com", "sqs:SendMessage", QUEUE))
    with pytest.raises(PolicyError, match="statement 0, element Effect: must be Allow or Deny"):
        emu.iam.resource_policy(QUEUE, {"Statement": [{"Effect": "Maybe"}]})
    put_rule(emu, "nightly", "rate(1 hour)", rule_target("q", QUEUE))
    emu.clock.advance(hours=1, seconds=1)
    assert emu.attempts()[0].error_code == "NO_PERMISSIONS"
