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
#: The bucket a local ``CodeUri`` is written into before translation: the translator takes
#: only S3 URIs (``sam build`` and ``sam package`` upload the directory first), so a
#: function's directory, relative to the template, travels through it as this bucket's
#: key and comes out as the function's ``Code`` (``S3Bucket``, ``S3Key``).
LOCAL_CODE_BUCKET = "schedemu-local-code"
_FUNCTION = "AWS::Serverless::Function"


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
            _local_code_addressed(template),
            parameter_values={**parameters, **pseudo},
            get_managed_policy_map=no_lookup,
        )
    except InvalidDocumentException as error:
        causes = "; ".join(str(cause) for cause in error.causes)
        raise file_error(file, f"SAM translation failed: {causes}") from None
    return translated


def _local_code_addressed(template: dict[str, Any]) -> dict[str, Any]:
    """``template`` with each local ``CodeUri`` (a function's, or the ``Globals``') written
    as an S3 URI of ``LOCAL_CODE_BUCKET``; a copy, the template as read left as it was."""
    changed = dict(template)
    resources = template.get("Resources")
    if isinstance(resources, dict):
        changed["Resources"] = {
            logical_id: _with_local_code(definition)
            if isinstance(definition, dict) and definition.get("Type") == _FUNCTION
            else definition
            for logical_id, definition in resources.items()
        }
    globals_ = template.get("Globals")
    if isinstance(globals_, dict) and isinstance(globals_.get("Function"), dict):
        function = dict(globals_["Function"])
        function.update(_local_code(function))
        changed["Globals"] = {**globals_, "Function": function}
    return changed


def _with_local_code(definition: dict[str, Any]) -> dict[str, Any]:
    properties = definition.get("Properties")
    if not isinstance(properties, dict):
        return definition
    return {**definition, "Properties": {**properties, **_local_code(properties)}}


def _local_code(properties: Mapping[str, Any]) -> dict[str, Any]:
    code = properties.get("CodeUri")
    if not isinstance(code, str) or code.startswith("s3://"):
        return {}
    return {"CodeUri": f"s3://{LOCAL_CODE_BUCKET}/{code}"}
