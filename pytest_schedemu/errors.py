"""The exceptions of pytest-schedemu.

::

    SchedemuError                     anything the emulator raises on purpose
    ├── ServerStartError              the server could not bind its address
    ├── ClockError (ValueError)       the clock cannot move as asked (real time; backwards)
    ├── DispatchLimitExceeded         one clock operation made too many attempts
    ├── HandlerError                  a target handler raised something other than DeliveryError
    ├── StateError                    a state file that cannot be used (foreign, corrupt, newer)
    ├── StackError (ValueError)       a template, SAM template or CDK assembly that cannot be
    │                                 read or resolved (names the file, the resource, the fault)
    ├── InvalidScheduleExpression (ValueError)  an at(), rate() or cron() AWS refuses
    ├── InvalidTimezone (ValueError)  a time zone that is not an IANA name AWS accepts
    ├── PolicyError (ValueError)      an IAM policy document that is not policy grammar (names
    │                                 the policy, the statement and the element)
    └── ApiError                      an AWS-shaped error answer (code, HTTP status, message)
        ├── ValidationException           400
        ├── SerializationException        400  the body could not be parsed
        ├── LimitExceededException        400  (events) a rule's targets, or rules, over the limit
        ├── InvalidEventPatternException  400  (events) an EventPattern that is not a JSON object
        ├── ManagedRuleException          400  (events) a managed rule changed without Force
        ├── InvalidToken                  400  (events) a NextToken that is not one it gave
        ├── ResourceAlreadyExistsException 400 (events) a stack's rule whose name is taken
        ├── ServiceQuotaExceededException 402
        ├── MissingAuthenticationTokenException 403  no Authorization header (signatures on)
        ├── IncompleteSignatureException  403  a header missing a part (events: 400)
        ├── UnrecognizedClientException   403  an unknown access key (events: 400)
        ├── InvalidSignatureException     403  a wrong signature, scope or date (events: 400)
        ├── AccessDeniedException         403  a Host or Origin the service does not answer
        ├── ResourceNotFoundException     404
        ├── UnknownOperationException     404  no route for this method and path (400 for AWSEvents)
        ├── RequestTimeoutException       408  the body did not arrive within the connection timeout
        ├── ConflictException             409
        ├── RequestEntityTooLargeException 413
        ├── UnsupportedMediaTypeException 415  a body type a browser sends without asking
        ├── ThrottlingException           429  only when a test injects it
        ├── InternalServerException       500
        └── ServiceUnavailableException   503  the state file refused a write (undone)

    AssertionError
    ├── DeliveryAssertionError        an ``assert_*`` helper of the emulator failed
    └── ClockTimeout (SchedemuError)  ``run_until``/``run_until_idle`` ran out of ``within``

``DeliveryError`` is not an emulator failure: a target handler raises it to choose the
outcome of one delivery attempt. Any other exception from a handler is a bug in the test,
and comes back to it as ``HandlerError``.

The functions at the end build the errors whose text several places share, so that each
text is written once.
"""

from __future__ import annotations

from typing import Any, ClassVar


class SchedemuError(Exception):
    """Base class of every error the emulator raises on purpose."""


class ServerStartError(SchedemuError):
    """The emulator's HTTP server could not start, e.g. because the port is in use."""


class ClockError(SchedemuError, ValueError):
    """The clock cannot do what was asked, e.g. move a real-time clock."""


class DeliveryAssertionError(AssertionError):
    """An ``assert_*`` helper of the emulator failed; the message says what happened."""


class ClockTimeout(SchedemuError, AssertionError):
    """``run_until`` or ``run_until_idle`` moved the clock as far as ``within`` allowed and
    what it waited for did not happen: a failed expectation of the test, so an
    ``AssertionError``; the message names the condition, ``within`` and the clock."""


def raised_for_the_caller(excinfo: Any) -> bool:
    """Whether pytest's ``excinfo`` holds an error the emulator raises on purpose about its
    caller's own request: a name nothing ever had, a filter that cannot match
    (``LookupError``, ``ValueError``), a failed assertion, a stack that cannot load
    (``StackError``), or a policy written by hand that is not one (``PolicyError``).

    The modules such an error passes through (the read side, stacks, provisioning, the
    IAM wing's parsing and what a test declares of IAM by hand, the ``Emulator``) set
    ``__tracebackhide__`` to this, so pytest reports it at the test's own line, without
    the emulator's frames in between, and any other exception, a bug, with its whole
    traceback. The pytest plugin leaves the attempts out of such a report: they
    say nothing about a misspelt name.
    """
    error = getattr(excinfo, "value", None)
    return type(error) in (LookupError, ValueError) or isinstance(
        error, (DeliveryAssertionError, StackError, PolicyError)
    )


class DispatchLimitExceeded(SchedemuError):
    """A single clock operation made more attempts than ``max_attempts_per_advance``."""


class HandlerError(SchedemuError):
    """A target handler raised something other than ``DeliveryError``: a bug in the test's
    handler, never a failed delivery.

    The clock move that made the attempt raises it, chained from the handler's exception;
    where no test waits on the move (a real-time clock, a move over HTTP) the emulator keeps
    it (``Emulator.handler_errors``) and the pytest plugin fails the test at teardown.
    """

    def __init__(self, message: str, *, handler_traceback: str) -> None:
        super().__init__(message)
        #: The handler's exception as Python prints it, for where the chain is not shown.
        self.handler_traceback = handler_traceback

    def report(self) -> str:
        """The message and the handler's traceback: what a teardown or a log shows."""
        return f"{self}\n{self.handler_traceback.rstrip()}"


class StateError(SchedemuError):
    """A state file (``state=PATH``) cannot be opened, read or written; nothing was changed."""


class StackError(SchedemuError, ValueError):
    """A CloudFormation template, SAM template or CDK cloud assembly cannot be read or
    resolved; the message names the file, the resource or parameter where there is one, and
    what is wrong."""


class PolicyError(SchedemuError, ValueError):
    """A policy document that is not valid policy grammar (``pytest_schedemu.iam``).

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


class InvalidScheduleExpression(SchedemuError, ValueError):
    """A malformed ``at()``, ``rate()`` or ``cron()`` expression; ``str()`` is AWS's message,
    the one CreateSchedule answers.

    It keeps the offending text in ``args`` (not the formatted message), so it pickles and
    compares by what was received.
    """

    def __init__(self, expression: str) -> None:
        super().__init__(expression)
        self.expression = expression

    def __str__(self) -> str:
        # AWS echoes the received string byte for byte, surrounding spaces included.
        return f"Invalid Schedule Expression {self.expression}."


class InvalidTimezone(SchedemuError, ValueError):
    """A ``ScheduleExpressionTimezone`` that is not an IANA zone name; ``str()`` is AWS's
    message, the one CreateSchedule answers."""

    def __init__(self, timezone: str) -> None:
        super().__init__(timezone)
        self.timezone = timezone

    def __str__(self) -> str:
        return f"Invalid Schedule Expression Timezone {self.timezone}."


class ApiError(SchedemuError):
    """An error answered to an API caller in the AWS wire format."""

    code: ClassVar[str] = "InternalServerException"
    status: ClassVar[int] = 500

    def __init__(self, message: str, *, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        #: Members the error's JSON carries besides Message and __type.
        self.details = details or {}


class ValidationException(ApiError):
    code = "ValidationException"
    status = 400


class SerializationException(ApiError):
    code = "SerializationException"
    status = 400

    def __init__(self, message: str = "Unable to parse request body.") -> None:
        super().__init__(message)


class LimitExceededException(ApiError):
    code = "LimitExceededException"
    status = 400


class InvalidEventPatternException(ApiError):
    code = "InvalidEventPatternException"
    status = 400


class ManagedRuleException(ApiError):
    code = "ManagedRuleException"
    status = 400


class InvalidToken(ApiError):
    """EventBridge's answer to a ``NextToken`` it did not give, or gave for other filters."""

    code = "InvalidToken"
    status = 400


class ResourceAlreadyExistsException(ApiError):
    """A stack's rule whose name another rule on its bus has: CloudFormation creates a
    rule, where PutRule would replace it."""

    code = "ResourceAlreadyExistsException"
    status = 400


class ServiceQuotaExceededException(ApiError):
    code = "ServiceQuotaExceededException"
    status = 402


class MissingAuthenticationTokenException(ApiError):
    code = "MissingAuthenticationTokenException"
    status = 403


class IncompleteSignatureException(ApiError):
    code = "IncompleteSignatureException"
    status = 403


class UnrecognizedClientException(ApiError):
    code = "UnrecognizedClientException"
    status = 403


class InvalidSignatureException(ApiError):
    code = "InvalidSignatureException"
    status = 403


class AccessDeniedException(ApiError):
    code = "AccessDeniedException"
    status = 403


class ResourceNotFoundException(ApiError):
    code = "ResourceNotFoundException"
    status = 404


class UnknownOperationException(ApiError):
    code = "UnknownOperationException"
    status = 404


class RequestTimeoutException(ApiError):
    code = "RequestTimeoutException"
    status = 408


class ConflictException(ApiError):
    code = "ConflictException"
    status = 409


class RequestEntityTooLargeException(ApiError):
    code = "RequestEntityTooLargeException"
    status = 413


class UnsupportedMediaTypeException(ApiError):
    code = "UnsupportedMediaTypeException"
    status = 415


class ThrottlingException(ApiError):
    code = "ThrottlingException"
    status = 429


class InternalServerException(ApiError):
    code = "InternalServerException"
    status = 500

    def __init__(
        self,
        message: str = "Unexpected error occurred while processing the request",
        *,
        details: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message, details=details)


class ServiceUnavailableException(ApiError):
    """The state file (``state=PATH``) refused the write that would make a change
    durable; the change was undone."""

    code = "ServiceUnavailableException"
    status = 503


API_ERRORS: dict[str, type[ApiError]] = {
    cls.code: cls
    for cls in (
        ValidationException,
        SerializationException,
        ServiceQuotaExceededException,
        MissingAuthenticationTokenException,
        IncompleteSignatureException,
        UnrecognizedClientException,
        InvalidSignatureException,
        ResourceNotFoundException,
        UnknownOperationException,
        ConflictException,
        RequestEntityTooLargeException,
        ThrottlingException,
        InternalServerException,
    )
}


class DeliveryError(Exception):
    """Raised by a target handler to make one delivery attempt fail with this outcome."""

    def __init__(self, code: str, message: str = "", *, retryable: bool = True) -> None:
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code
        self.message = message
        self.retryable = retryable


# -- shared messages -------------------------------------------------------------------------


#: Scheduler's words for an execution role it may not assume: CreateSchedule's
#: ValidationException, and an attempt's AccessDeniedException.
ROLE_NOT_ASSUMABLE = (
    "The execution role you provide must allow AWS EventBridge Scheduler to assume the role."
)


def group_not_found(name: str) -> ResourceNotFoundException:
    return ResourceNotFoundException(f"Schedule group {name} does not exist.")


def group_being_deleted(name: str) -> ConflictException:
    return ConflictException(f"Schedule group {name} is being deleted.")


def group_exists(name: str) -> ConflictException:
    return ConflictException(f"Schedule group {name} already exists.")


def schedule_not_found(name: str) -> ResourceNotFoundException:
    return ResourceNotFoundException(f"Schedule {name} does not exist.")


def rule_not_found(name: str, event_bus: str) -> ResourceNotFoundException:
    return ResourceNotFoundException(f"Rule {name} does not exist on EventBus {event_bus}.")


def rule_exists(name: str, event_bus: str) -> ResourceAlreadyExistsException:
    return ResourceAlreadyExistsException(f"Rule {name} already exists on EventBus {event_bus}.")


def schedule_exists(name: str) -> ConflictException:
    return ConflictException(f"Schedule {name} already exists.")


def default_group_refused(name: str) -> ValidationException:
    return ValidationException(f"This operation cannot be performed on schedule group {name}.")


def too_many_tags() -> ValidationException:
    return ValidationException("Number of tags on the resource cannot exceed 200.")
