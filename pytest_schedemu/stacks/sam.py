"""SAM templates, translated to CloudFormation by AWS's own translator.

aws-sam-translator is the code CloudFormation runs for ``AWS::Serverless-2016-10-31``; it
is an optional extra (``pytest-schedemu[sam]``). It is called with everything it would
otherwise ask AWS for: the region and partition, and a managed-policy lookup that answers
nothing, so that a policy name it does not bundle is left as written rather than looked up
in IAM.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_schedemu.errors import raised_for_the_caller
from pytest_schedemu.stacks.location import file_error

# A caller's mistake is reported at the caller's line, without this module's frames.
__tracebackhide__ = raised_for_the_caller

SAM_TRANSFORM = "AWS::Serverless-2016-10-31"


class _RegionOnly:
    """What the translator reads of a boto3 session: its region. A real session would
    also read the caller's AWS profile, which may not exist on a test machine."""

    def __init__(self, region: str) -> None:
        self.region_name = region


def translate(
    template: dict[str, Any],
    *,
    file: str,
    parameters: Mapping[str, str],
    pseudo: Mapping[str, str],
) -> dict[str, Any]:
    """The CloudFormation template SAM's translator makes of ``template``."""
    try:
        from samtranslator.model.exceptions import InvalidDocumentException
        from samtranslator.parser.parser import Parser
        from samtranslator.translator.translator import Translator
    except ImportError:
        raise file_error(
            file,
            f"Transform {SAM_TRANSFORM} needs aws-sam-translator: "
            "pip install 'pytest-schedemu[sam]'",
        ) from None

    def no_lookup() -> dict[str, str]:
        return {}

    translator = Translator(
        None,
        Parser(),
        boto_session=_RegionOnly(pseudo["AWS::Region"]),
    )
    try:
        translated: dict[str, Any] = translator.translate(
            template,
            parameter_values={**parameters, **pseudo},
            get_managed_policy_map=no_lookup,
        )
    except InvalidDocumentException as error:
        causes = "; ".join(str(cause) for cause in error.causes)
        raise file_error(file, f"SAM translation failed: {causes}") from None
    return translated
