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
from typing import Callable

# What the plugin asks before it lends, kept beside what it lends.
from pytest_schedemu.settings.botocore_search import (
    botocore_finds_a_region as botocore_finds_a_region,
)
from pytest_schedemu.settings.botocore_search import (
    botocore_finds_credentials as botocore_finds_credentials,
)

#: The credentials a client gets where it has none of its own: the emulator takes any.
TEST_CREDENTIALS: Mapping[str, str] = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
}
#: botocore's switch that keeps it from the instance metadata service.
_METADATA_DISABLED = "AWS_EC2_METADATA_DISABLED"


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
