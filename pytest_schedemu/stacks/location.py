"""Where in a template something is: the file, the section entry, the property path.

Every StackError is made here, so that each names its place the same way:
``template.yaml: resource Nightly: <what is wrong> (at Properties.Target.Arn)``.
"""

from __future__ import annotations

from dataclasses import dataclass

from pytest_schedemu.errors import StackError


@dataclass(frozen=True)
class Location:
    file: str
    #: "resource", "condition", "output", ...
    section: str
    name: str
    path: tuple[str, ...] = ()

    def at(self, step: str | int) -> Location:
        return Location(self.file, self.section, self.name, (*self.path, str(step)))

    def error(self, what: str) -> StackError:
        where = f" (at {'.'.join(self.path)})" if self.path else ""
        return StackError(f"{self.file}: {self.section} {self.name}: {what}{where}")


def file_error(file: str, what: str) -> StackError:
    """An error of the file as a whole (it cannot be read, it is no template)."""
    return StackError(f"{file}: {what}")
