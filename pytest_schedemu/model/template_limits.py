"""How large a stack's template may be: the bounds a template is read and resolved within.

Each is far above any template CloudFormation deploys (it takes at most 1 MB of template
and 500 resources), so that only a hostile or broken file reaches one; the settings
``max_template_bytes``, ``max_template_nodes`` and ``max_template_depth`` raise them.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Five times the largest template body CloudFormation accepts (1 MB, from S3).
DEFAULT_MAX_TEMPLATE_BYTES = 5_000_000
#: A 500-resource template of schedules, queues and roles holds about 7,000 values.
DEFAULT_MAX_TEMPLATE_NODES = 500_000
#: A resource's properties nest a dozen levels deep in the deepest templates CDK writes.
DEFAULT_MAX_TEMPLATE_DEPTH = 100


@dataclass(frozen=True)
class TemplateLimits:
    """The bounds of one template: the bytes of its file and of the text its functions
    make, its values with every YAML alias expanded (and those its functions make), and
    how deep its values nest."""

    max_bytes: int = DEFAULT_MAX_TEMPLATE_BYTES
    max_nodes: int = DEFAULT_MAX_TEMPLATE_NODES
    max_depth: int = DEFAULT_MAX_TEMPLATE_DEPTH
