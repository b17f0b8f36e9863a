"""Stacks: CloudFormation templates, SAM templates and CDK cloud assemblies, read and
resolved into concrete resources (names, ARNs, properties) without contacting AWS.

A pure wing: it reads files and computes; creating what it finds is the emulator's.
"""

from pytest_schedemu.model.template_limits import TemplateLimits
from pytest_schedemu.stacks.reader import read_stack
from pytest_schedemu.stacks.stack import ResolvedStack, StackResource

__all__ = ["ResolvedStack", "StackResource", "TemplateLimits", "read_stack"]
