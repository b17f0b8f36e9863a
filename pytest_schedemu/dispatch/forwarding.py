"""Delivery into real services through boto3: moto, a local emulator, or AWS itself.

Each attempt sends its materialized request with a boto3 client of the target's service
(the region from the target ARN; the endpoint from ``endpoint_url`` or boto3's own
configuration, so under moto's ``mock_aws`` the request lands in moto's backend). The
answer is classified as the reference says: throttling, 429, 5xx and connection failures
are retryable, any other 4xx (a missing queue or function, a denied call) is permanent.

Without an endpoint, and without leave to reach AWS, each request is sent only while moto's
``mock_aws`` answers botocore: an emulator made under the mock may still be moved after it
ended, and its deliveries would then reach AWS.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from typing import Any

from pytest_schedemu.delivery.backends import OK, DeadLetterRequest, DeliveryRequest, Outcome
from pytest_schedemu.dispatch.service_iam import read_service_iam
from pytest_schedemu.errors import SchedemuError
from pytest_schedemu.iam import IamDeclarations
from pytest_schedemu.settings.botocore_search import botocore_finds_credentials
from pytest_schedemu.settings.mocked import moto_answers_botocore
from pytest_schedemu.targets import classify_error, decode_blobs, target_kind

logger = logging.getLogger("pytest_schedemu.delivery.backends")

INTERNAL_CODE = "AWS.Scheduler.InternalServerError"
INTERNAL_MESSAGE = "Unexpected error occurred while processing the request"
VALIDATION_CODE = "ValidationException"


class Boto3Delivery:
    """Sends every attempt and dead letter to the target's real API with boto3."""

    needs_request = True

    def __init__(
        self,
        endpoint_url: str | None = None,
        session: Any = None,
        timeout: float = 30.0,
        aws_allowed: bool = True,
    ) -> None:
        self.endpoint_url = endpoint_url
        #: Whether a request without an endpoint may go where boto3's configuration says
        #: (AWS itself) when moto's mock_aws does not answer it.
        self.aws_allowed = aws_allowed
        #: Seconds to connect, and to wait for an answer: past them the attempt fails,
        #: retryably.
        self.timeout = timeout
        self._session = session
        self._clients: dict[tuple[str, str | None], Any] = {}
        self._lock = threading.Lock()

    def _client(self, service: str, region: str | None) -> Any:
        key = (service, region)
        with self._lock:
            client = self._clients.get(key)
            if client is None:
                import boto3
                from botocore.config import Config

                session = self._session or boto3.session.Session()
                options: dict[str, Any] = {
                    "region_name": region or session.region_name or "us-east-1",
                    # The dispatcher does the retrying, by the schedule's retry policy.
                    "config": Config(
                        retries={"total_max_attempts": 1},
                        connect_timeout=self.timeout,
                        read_timeout=self.timeout,
                    ),
                }
                if self.endpoint_url is not None:
                    options["endpoint_url"] = self.endpoint_url
                # A session of the emulator's own making asks only the environment and the
                # files: the full chain would ask this machine's credential endpoints.
                if (
                    not botocore_finds_credentials()
                    if self._session is None
                    else session.get_credentials() is None
                ):
                    options["aws_access_key_id"] = "testing"
                    options["aws_secret_access_key"] = "testing"
                client = session.client(service, **options)
                self._clients[key] = client
            return client

    def _call(self, service: str, operation: str, region: str | None, params: Any) -> Outcome:
        from botocore import xform_name
        from botocore.exceptions import BotoCoreError, ClientError, ParamValidationError

        if self.endpoint_url is None and not self.aws_allowed and not moto_answers_botocore():
            raise SchedemuError(
                f"{service}:{operation} was not sent: delivery='boto3' without "
                "delivery_endpoint_url reaches moto while its mock_aws is active, and would "
                "call AWS itself with your credentials now that it is not. Move the clock "
                "inside the mock, give delivery_endpoint_url, or allow_aws_delivery=True."
            )
        try:
            client = self._client(service, region)
            method = getattr(client, xform_name(operation))
            method(**params)
        except ClientError as error:
            response = error.response
            code = response.get("Error", {}).get("Code") or "UnknownError"
            message = response.get("Error", {}).get("Message") or ""
            status = response.get("ResponseMetadata", {}).get("HTTPStatusCode")
            return Outcome.failure(code, message, classify_error(status, code))
        except ParamValidationError as error:
            # Parameters the service would refuse (a universal target's Input without a
            # required member, say): an invalid-parameter 4xx, which is never retried.
            return Outcome.failure(VALIDATION_CODE, str(error), False)
        except (BotoCoreError, OSError, AttributeError, TypeError) as error:
            # A connection failure or an unknown operation: the emulator's own adapter
            # failed, which AWS reports with exactly this code and message. The cause goes
            # to the log, not into the record.
            logger.warning("forwarding %s.%s failed: %s", service, operation, error)
            return Outcome.failure(INTERNAL_CODE, INTERNAL_MESSAGE, True)
        return OK

    def deliver(self, request: DeliveryRequest | None) -> Outcome:
        assert request is not None
        if request.service is None or request.operation is None:
            return OK  # a target of no known API: recorded only
        params: Any = request.request
        if not isinstance(params, dict):
            # A universal target whose substituted Input is not a JSON object: parameters
            # no SDK call can take.
            return Outcome.failure(
                VALIDATION_CODE,
                f"The input of a universal target must be a JSON object of "
                f"{request.service}:{request.operation} parameters",
                False,
            )
        return self._call(
            request.service,
            request.operation,
            request.region,
            # The request carries Kinesis and Firehose data base64-encoded, as it travels on
            # the wire; boto3 takes the raw bytes and encodes them itself.
            decode_blobs(target_kind(request.target_arn), params),
        )

    def send_dead_letter(self, request: DeadLetterRequest) -> Outcome:
        region = request.queue_arn.split(":")[3]
        return self._call(
            "sqs",
            "SendMessage",
            region,
            {
                "QueueUrl": request.queue_url,
                "MessageBody": request.body,
                "MessageAttributes": request.message_attributes,
            },
        )

    def read_iam(
        self, region: str, roles: Iterable[str], resources: Iterable[str]
    ) -> IamDeclarations | None:
        """What IAM the services it delivers into declare of ``roles`` and ``resources``
        (``service_iam``), when they are moto's or an endpoint's; None where they would be
        AWS's, or cannot be read."""
        if self.endpoint_url is None and not moto_answers_botocore():
            return None
        try:
            return read_service_iam(self._client, region, roles, resources)
        except Exception as error:
            logger.warning("the IAM of the delivery's services could not be read: %s", error)
            return None

    def close(self) -> None:
        with self._lock:
            for client in self._clients.values():
                client.close()
            self._clients.clear()
