"""boto3 clients bound to an emulator: over HTTP, or in process with no socket at all.

They are built by boto3's default session, the one ``boto3.client()`` in application code
uses. botocore makes a client's exception classes per session, so only a client of the same
session raises the very ``ConflictException`` class that ``schedemu.client().exceptions``
names. Where that session cannot build a client because the profile it names does not
exist (``AWS_PROFILE=fake``), a session that reads no profile builds them: they need
nothing from one, and application clients of the default session fail anyway.
"""

from __future__ import annotations

import functools
import threading
from typing import Any, Callable

from pytest_schedemu.settings.live import LiveSettings
from pytest_schedemu.wire import intercept
from pytest_schedemu.wire.server import WSGIApp
from pytest_schedemu.wire.transport import InProcessTransport


def _unsigned(**_: Any) -> Any:
    from botocore import UNSIGNED

    return UNSIGNED


class ClientFactory:
    """Builds the emulator's clients: dummy credentials, its region, no retries."""

    def __init__(self, *, app: WSGIApp, settings: LiveSettings, url: Callable[[], str]) -> None:
        self._app = app
        self._settings = settings
        self._url = url
        self._lock = threading.Lock()
        # The session the cached clients were built by: a new default session (a test's
        # boto3.setup_default_session(), moto's mock_aws) makes them stale.
        self._session: Any = None
        self._cached: dict[tuple[str, str, str], Any] = {}

    def client(self, service_name: str = "scheduler", **kwargs: Any) -> Any:
        """A boto3 client for ``service_name``; built once and reused without ``kwargs``."""
        settings = self._settings.current
        key = (service_name, settings.transport, settings.region)
        if kwargs:
            return self._new(self._building_session(), service_name, **kwargs)
        with self._lock:
            session = self._building_session()
            if session is not self._session:
                self._session, self._cached = session, {}
            client = self._cached.get(key)
            if client is None:
                client = self._cached[key] = self._new(session, service_name)
            return client

    def _building_session(self) -> Any:
        from botocore.exceptions import ProfileNotFound

        try:
            return applications_session()
        except ProfileNotFound:
            return _profileless_session()

    def _new(self, session: Any, service_name: str, **kwargs: Any) -> Any:
        from botocore.config import Config
        from botocore.exceptions import ProfileNotFound

        settings = self._settings.current
        # Signed with the first known key when signatures are checked, dummies otherwise.
        access_key, secret_key = next(iter(settings.credentials.items()), ("testing",) * 2)
        options: dict[str, Any] = {
            "region_name": settings.region,
            "endpoint_url": self._url(),
            "aws_access_key_id": access_key,
            "aws_secret_access_key": secret_key,
            # botocore would sleep in real time between retries.
            "config": Config(retries={"total_max_attempts": 1, "mode": "standard"}),
        }
        options.update(kwargs)
        try:
            client = session.client(service_name, **options)
        except ProfileNotFound:
            # The profile was named after the session was made.
            client = _profileless_session().client(service_name, **options)
        if settings.transport == "inprocess":
            service_id = client.meta.service_model.service_id.hyphenize()
            if not settings.verify_signatures:
                # Unchecked, SigV4 is a quarter of the cost of a call: in-process requests
                # go unsigned, with only the credential scope the account and region are
                # read from.
                client.meta.events.register_first(f"choose-signer.{service_id}", _unsigned)
            # botocore builds the User-Agent header twice per request; the emulator reads
            # neither, so in process the first one stands (a tenth of a call's cost).
            creator = getattr(client, "_user_agent_creator", None)
            if creator is not None:
                client.meta.events.unregister(
                    f"request-created.{service_id}",
                    creator.rebuild_and_replace_user_agent_handler,
                )
            client.meta.events.register_first(
                f"before-send.{service_id}",
                InProcessTransport(
                    self._app,
                    access_key=str(options["aws_access_key_id"]),
                    region=client.meta.region_name,
                    signing_name=client.meta.service_model.signing_name,
                ),
            )
        else:
            # transport="http" asks for the socket, and this emulator's clients must reach
            # this emulator even while another one intercepts.
            intercept.exempt(client)
        return client


def applications_session() -> Any:
    """boto3's default session, made as ``boto3.client()`` makes it when there is none."""
    import boto3

    if boto3.DEFAULT_SESSION is None:
        boto3.setup_default_session()
    return boto3.DEFAULT_SESSION


@functools.cache
def _profileless_session() -> Any:
    """A boto3 session that reads no profile from the environment."""
    import boto3
    import botocore.session

    # botocore's session variable: (config file key, environment variables, default, parser).
    unnamed = botocore.session.Session(session_vars={"profile": (None, None, None, None)})
    return boto3.session.Session(botocore_session=unnamed)
