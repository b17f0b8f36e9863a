"""The iam setting: one of enforce, strict and off, by every door of the options table."""

from __future__ import annotations

import pytest

from pytest_schedemu import Emulator, SchedemuError
from pytest_schedemu.iam import IamDeclarations, Role, parse_policy
from pytest_schedemu.settings.options import OPTIONS
from pytest_schedemu.state.iam import (
    BY_HAND,
    DELIVERY_SERVICES,
    IamByHand,
    IamKnowledge,
    stack_source,
)


def test_enforce_is_the_default_and_a_bad_value_is_refused_with_the_choices() -> None:
    assert Emulator().settings.iam == "enforce"
    with pytest.raises((SchedemuError, ValueError)) as raised:
        Emulator(iam="permissive")
    assert "'enforce', 'strict', 'off'" in str(raised.value)


def test_each_door_of_the_setting_is_named_after_it() -> None:
    option = OPTIONS["iam"]
    assert (option.flag, option.environment_variable, option.pytest_flag, option.ini_key) == (
        "--iam",
        "SCHEDEMU_IAM",
        "--schedemu-iam",
        "schedemu_iam",
    )


def test_a_reset_forgets_what_was_declared_by_hand(emu: Emulator) -> None:
    emu.iam.role(
        "arn:aws:iam::123456789012:role/r",
        trust={"Statement": {"Effect": "Allow", "Principal": "*", "Action": "sts:AssumeRole"}},
    )
    assert emu.iam.roles() == ["arn:aws:iam::123456789012:role/r"]
    emu.reset()
    assert emu.iam.roles() == []


def test_a_role_declared_by_hand_wins_over_a_stacks_whenever_either_came() -> None:
    arn = "arn:aws:iam::123456789012:role/r"

    def role(name: str) -> Role:
        trust = {"Statement": {"Effect": "Allow", "Principal": "*", "Action": "sts:AssumeRole"}}
        return Role(arn, trust=parse_policy(trust, name=name, kind="trust"))

    knowledge = IamKnowledge()
    IamByHand(knowledge).role(arn, trust={"Statement": []})
    knowledge.declare(stack_source("app"), IamDeclarations(roles={arn: role("stack")}))
    knowledge.declare(DELIVERY_SERVICES, IamDeclarations(roles={arn: role("moto")}))
    found = knowledge.role(arn)
    assert found is not None and found.trust.name == "r trust policy"
    knowledge.forget(BY_HAND)
    found = knowledge.role(arn)
    assert found is not None and found.trust.name == "stack"
