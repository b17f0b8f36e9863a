"""Maintainers' scripts, outside the wheel."""
