"""IAM at each attempt: whether a producer's attempts, and its dead letters, may go, under
what the emulator knows of IAM (``state.iam``) and the ``iam`` setting.

The verdict is the targets wing's (``targets.permissions``), the same code that a stack's
check asks. It depends on the producer's definition, on what is known and on the setting,
never on the attempt: so it is cached per definition (the producer keeps it) and per
question (``Delivering``: role, action, resource, context), both under a stamp of the
knowledge's version and the setting, which any change moves on.

The common case costs nothing per attempt: a move plays attempts without asking anything
(and long stretches in bulk) while no live plan is refused; the planner keeps the keys of
the refused ones (``Planner.refused``), as it keeps those whose input cannot be built.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Callable

from pytest_schedemu.delivery.backends import Outcome
from pytest_schedemu.settings.live import LiveSettings
from pytest_schedemu.state.iam import IamKnowledge
from pytest_schedemu.targets.kinds import target_kind
from pytest_schedemu.targets.permissions import (
    ENFORCE,
    OFF,
    Delivering,
    Knowledge,
    Refusal,
    attempt_verdict,
    dead_letter_verdict,
)

if TYPE_CHECKING:
    from pytest_schedemu.dispatch.planner import Planner
    from pytest_schedemu.dispatch.producers import Producer

Stamp = tuple[int, str]
#: The kinds of target whose own resource policy may decide a delivery to them.
_POLICY_HOLDERS = frozenset({"sqs", "sns", "lambda"})
Verdict = Callable[[Delivering, Knowledge, str], "Refusal | None"]


def _outcome(refusal: Refusal | None) -> Outcome | None:
    # Refused by IAM is permanent: no retry can change a policy.
    return None if refusal is None else Outcome.failure(refusal.code, refusal.message, False)


class Permissions:
    """The verdicts on producers' attempts and dead letters, cached."""

    def __init__(self, knowledge: IamKnowledge, settings: LiveSettings) -> None:
        self.knowledge = knowledge
        self._settings = settings
        self._answers: dict[tuple[Delivering, Verdict], Refusal | None] = {}
        self._answered: Stamp | None = None
        #: The stamp the planner's refused plans were last worked out under.
        self._vetted: Stamp | None = None

    def stamp(self) -> Stamp:
        return self.knowledge.version, self._settings.current.iam

    def _asks_nothing(self, mode: str) -> bool:
        # Under enforce, with nothing known, everything is allowed: no question to ask.
        return mode == OFF or (mode == ENFORCE and self.knowledge.empty)

    def _verdict(self, delivering: Delivering, verdict: Verdict, stamp: Stamp) -> Refusal | None:
        if stamp != self._answered:
            self._answers = {}
            self._answered = stamp
        key = (delivering, verdict)
        try:
            return self._answers[key]
        except KeyError:
            answer = self._answers[key] = verdict(delivering, self.knowledge, stamp[1])
            return answer

    def attempt(self, producer: Producer) -> Outcome | None:
        """The outcome of each attempt of ``producer`` when IAM refuses it, else None."""
        stamp = self.stamp()
        kept = producer.permission
        if kept is not None and kept[0] == stamp:
            return kept[1]
        if self._asks_nothing(stamp[1]):
            outcome = None
        else:
            outcome = _outcome(self._verdict(producer.delivering, attempt_verdict, stamp))
        producer.permission = (stamp, outcome)
        return outcome

    def dead_letter(self, producer: Producer) -> Outcome | None:
        """The outcome of sending ``producer``'s dead letter when IAM refuses it, else None."""
        stamp = self.stamp()
        if self._asks_nothing(stamp[1]):
            return None
        return _outcome(self._verdict(producer.delivering, dead_letter_verdict, stamp))

    def permits(self, producer: Producer) -> bool:
        """Whether ``producer``'s attempts may go: what the planner asks of each definition."""
        return self.attempt(producer) is None

    @staticmethod
    def named(planner: Planner) -> tuple[set[str], set[str]]:
        """The roles, and the queues, topics and functions whose policies may decide, that
        the live plans name: what a boto3 delivery's services are asked about."""
        roles: set[str] = set()
        resources: set[str] = set()
        for plan in planner.plans.values():
            delivering = plan.producer.delivering
            if delivering.role_arn is not None:
                roles.add(delivering.role_arn)
            resources.update(
                arn
                for arn in (delivering.target_arn, delivering.dead_letter_arn)
                if arn is not None and target_kind(arn).name in _POLICY_HOLDERS
            )
        return roles, resources

    def any_refused(self, planner: Planner, lock: AbstractContextManager[object]) -> bool:
        """Whether a live plan's attempts are refused, worked out again for every plan (under
        the store's ``lock``) when what is known, or the setting, changed since."""
        stamp = self.stamp()
        if stamp != self._vetted:
            with lock:
                planner.vet_all()
            self._vetted = stamp
        return bool(planner.refused)
