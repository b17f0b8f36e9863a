"""CloudFormation's YAML: its short-form tags, and dates that stay strings.

PyYAML, because it is the YAML loader the ecosystem shares (aws-sam-translator and
cfn-lint read templates with it too) and its SafeLoader takes constructors per tag; a
round-trip loader such as ruamel.yaml would only add comments and layout nobody reads here.
"""

from __future__ import annotations

from typing import Any

import yaml

from pytest_schedemu.errors import raised_for_the_caller
from pytest_schedemu.model.template_limits import TemplateLimits
from pytest_schedemu.stacks.bounds import check_nodes

# A caller's mistake is reported at the caller's line, without this module's frames.
__tracebackhide__ = raised_for_the_caller

#: Short-form tags and the long form each stands for.
_FUNCTIONS = {
    "Ref": "Ref",
    "Condition": "Condition",
    **{
        name: f"Fn::{name}"
        for name in (
            "Sub",
            "Join",
            "Select",
            "Split",
            "If",
            "Equals",
            "And",
            "Or",
            "Not",
            "FindInMap",
            "Base64",
            "ImportValue",
            "GetAZs",
            "Cidr",
        )
    },
}


# libyaml's parser where PyYAML was built with it: ten times faster on a large template.
_SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class TemplateLoader(_SafeLoader):  # type: ignore[valid-type,misc]
    """A SafeLoader that reads ``!Ref X`` as ``{"Ref": "X"}`` and so on, and keeps
    timestamp-like scalars (``2010-09-09``) as the strings CloudFormation takes them for."""


def _node_value(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node, deep=True)
    assert isinstance(node, yaml.MappingNode)
    return loader.construct_mapping(node, deep=True)


def _long_form(function: str) -> Any:
    def construct(loader: yaml.SafeLoader, node: yaml.Node) -> dict[str, Any]:
        return {function: _node_value(loader, node)}

    return construct


def _get_att(loader: yaml.SafeLoader, node: yaml.Node) -> dict[str, Any]:
    value = _node_value(loader, node)
    if isinstance(value, str):
        # The attribute may itself hold dots (Endpoint.Address): the first dot separates.
        resource, _, attribute = value.partition(".")
        return {"Fn::GetAtt": [resource, attribute]}
    return {"Fn::GetAtt": value}


def _unknown(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    # Later functions (!Length, !ToJsonString, ...): kept in long form, so that resolving
    # one says which function it is rather than failing to parse the file.
    return {f"Fn::{suffix}": _node_value(loader, node)}


for _tag, _function in _FUNCTIONS.items():
    TemplateLoader.add_constructor(f"!{_tag}", _long_form(_function))
TemplateLoader.add_constructor("!GetAtt", _get_att)
TemplateLoader.add_multi_constructor("!", _unknown)

TemplateLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def load_yaml(text: str, limits: TemplateLimits | None = None) -> Any:
    """The document ``text`` holds; yaml.YAMLError when it is not YAML, ``bounds.OverLimit``
    when it is beyond ``limits`` (the defaults when none are given).

    The parser's nodes are checked before any value is built from them: an alias is one
    node there, however often it is used, so the check costs what the file holds.
    """
    loader = TemplateLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        check_nodes(node, limits or TemplateLimits())
        return loader.construct_document(node)
    finally:
        loader.dispose()
