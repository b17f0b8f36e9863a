"""What the plugin lends a run on a machine without AWS configuration: a region, and test
credentials, each only where botocore finds none of its own.

Application code may build clients at import, while pytest collects, before any test (and
its interception) runs. botocore refuses to build a client without a region; and without
credentials it asks the machine's credential endpoints for some as the client is built: the
EC2 instance metadata service, a container's credentials endpoint. On a CI host with an
instance role that would fetch real credentials. Lent test credentials end botocore's search
before it reaches those endpoints, and ``AWS_EC2_METADATA_DISABLED`` keeps it from them
where a client asks for no credentials at all.

Whether botocore would find credentials is worked out from what the environment and the
files hold, never by asking the whole chain: that would be the very request to the metadata
service this is here to prevent.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Callable

#: The credentials a client gets where it has none of its own: the emulator takes any.
TEST_CREDENTIALS: Mapping[str, str] = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
}
#: botocore's switch that keeps it from the instance metadata service.
_METADATA_DISABLED = "AWS_EC2_METADATA_DISABLED"
# The providers of botocore's chain that only read the environment or a file: asking them
# is safe. The rest either call out or run something (assume-role, web identity, SSO,
# login, credential_process), and are the user's own configuration: a profile key that
# names one of them counts as credentials found; or they are the machine's endpoints
# (container-role, iam-role), which lent credentials are there to keep botocore from.
_READ_ONLY_PROVIDERS = frozenset(
    {"env", "shared-credentials-file", "config-file", "ec2-credentials-file", "boto-config"}
)
_CONFIGURED_PROFILE_KEYS = frozenset(
    {
        "role_arn",
        "web_identity_token_file",
        "credential_process",
        "sso_session",
        "sso_start_url",
        "login_session",
    }
)
_CONFIGURED_VARIABLES = ("AWS_WEB_IDENTITY_TOKEN_FILE",)


def lend(variables: Mapping[str, str]) -> Callable[[], None]:
    """Set ``variables`` in the environment; the function returned takes back each one that
    still holds what was lent (one the run set to something else is its own by then)."""
    os.environ.update(variables)

    def take_back() -> None:
        for name, value in variables.items():
            if os.environ.get(name) == value:
                del os.environ[name]

    return take_back


def credentials_to_lend() -> dict[str, str]:
    """The test credentials, with the metadata service turned off unless the environment
    already says whether to use it."""
    lent = dict(TEST_CREDENTIALS)
    if _METADATA_DISABLED not in os.environ:
        lent[_METADATA_DISABLED] = "true"
    return lent


def botocore_finds_a_region() -> bool:
    if os.environ.get("AWS_DEFAULT_REGION"):
        return True
    import botocore.session
    from botocore.exceptions import ProfileNotFound

    try:
        return botocore.session.Session().get_config_variable("region") is not None
    except ProfileNotFound:
        # Every client fails naming the missing profile, with a region or without.
        return True


def botocore_finds_credentials() -> bool:
    """Whether botocore finds credentials before its search reaches this machine's
    credential endpoints: in the environment, in the shared files, or as a profile's own
    way to get them."""
    import botocore.session
    from botocore.credentials import create_credential_resolver
    from botocore.exceptions import BotoCoreError, ProfileNotFound

    if any(os.environ.get(name) for name in _CONFIGURED_VARIABLES):
        return True
    session = botocore.session.Session()
    try:
        profile: Mapping[str, Any] = session.get_scoped_config()
    except ProfileNotFound:
        # Every client fails naming the missing profile, with credentials or without.
        return True
    if _CONFIGURED_PROFILE_KEYS & profile.keys():
        return True
    # Building the chain contacts nothing; only its providers' load() may.
    for provider in create_credential_resolver(session).providers:
        if provider.METHOD not in _READ_ONLY_PROVIDERS:
            continue
        try:
            if provider.load() is not None:
                return True
        except BotoCoreError:
            # Half a key pair, a file botocore cannot read: its own error is the user's to
            # see, not hidden behind lent credentials.
            return True
    return False
