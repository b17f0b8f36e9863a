"""What a stack says of one Lambda function: its runtime, handler, code and the settings of
its asynchronous invocation."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

#: Lambda's defaults when a template does not say.
DEFAULT_TIMEOUT_SECONDS = 3
DEFAULT_MEMORY_MB = 128
DEFAULT_MAXIMUM_RETRY_ATTEMPTS = 2
DEFAULT_MAXIMUM_EVENT_AGE_SECONDS = 21600


@dataclass(frozen=True)
class FunctionDefinition:
    """What a stack says of one Lambda function."""

    arn: str  # the unqualified function ARN
    name: str  # FunctionName
    logical_id: str | None
    stack: str | None
    runtime: str | None  # "python3.12", "nodejs20.x", None for an image
    handler: str | None  # "app.handler"
    code_dir: Path | None  # a directory holding the code, or None
    inline_code: str | None  # ZipFile source (module "index")
    environment: Mapping[str, str]
    timeout_seconds: int
    memory_mb: int
    maximum_retry_attempts: int
    maximum_event_age_seconds: int
    on_success: str | None  # destination ARN
    on_failure: str | None
    dead_letter_arn: str | None  # the function's own DeadLetterConfig.TargetArn
    # None when it runs; else why not ("runtime nodejs20.x", "an image", "code not on disk: ...")
    not_runnable: str | None
