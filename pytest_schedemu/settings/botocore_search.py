"""What botocore finds on this machine without asking the network: a region, and
credentials in the environment, the shared files or a profile's own way to get them.

Both are read from what the environment and the files hold, never by asking the whole
credential chain: that would ask the EC2 instance metadata service or a container's
credentials endpoint, the very requests off the machine that lent test credentials exist to
prevent (the plugin before a run's first client; boto3 delivery to an endpoint of the
test's own).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

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
