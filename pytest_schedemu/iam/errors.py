"""The one error of the IAM wing: a policy document it cannot read. It is defined with the
package's other errors, so that a caller's mistake is known as one there
(``errors.raised_for_the_caller``)."""

from __future__ import annotations

from pytest_schedemu.errors import PolicyError

__all__ = ["PolicyError"]
