"""Producers: whatever makes occurrences on the clock, behind one interface.

A schedule makes occurrences, and so does each target of a scheduled EventBridge rule. Each
is a ``Producer``, made anew for each definition it takes: it owns what differs between the
kinds (the identity its records carry, its event ids, its activation, its retry ladder,
whether its input can be built, its dead letter), and the planner, the queue, settlement,
bulk play, the state interface and the records read only that interface, never asking which
kind they hold. A function's own asynchronous retries are ``TimedWork``: one piece of work
at one instant each (``timed``).
"""

from pytest_schedemu.dispatch.producers.base import Producer
from pytest_schedemu.dispatch.producers.rule_targets import RuleTargetProducer
from pytest_schedemu.dispatch.producers.schedules import ScheduleProducer
from pytest_schedemu.dispatch.producers.timed import TimedWork

__all__ = ["Producer", "RuleTargetProducer", "ScheduleProducer", "TimedWork"]
