"""Where in a template something is: the file, the section entry, the property path.

Every StackError is made here, so that each names its place the same way:
``template.yaml: resource Nightly: <what is wrong> (at Properties.Target.Arn)``.
"""

from __future__ import annotations

from pytest_schedemu.errors import StackError, raised_for_the_caller

# A caller's mistake is reported at the caller's line, without this module's frames.
__tracebackhide__ = raised_for_the_caller


class Location:
    """A place in a template. A step further in is made for every value resolved, so it
    is a link to the place it extends, and the path is only spelled out for an error."""

    __slots__ = ("file", "name", "parent", "section", "step")

    def __init__(
        self,
        file: str,
        section: str,
        name: str,
        *,
        parent: Location | None = None,
        step: str = "",
    ) -> None:
        self.file = file
        #: "resource", "condition", ...
        self.section = section
        self.name = name
        self.parent = parent
        self.step = step

    @property
    def path(self) -> tuple[str, ...]:
        steps = []
        place: Location | None = self
        while place is not None and place.step:
            steps.append(place.step)
            place = place.parent
        return tuple(reversed(steps))

    def at(self, step: str | int) -> Location:
        return Location(self.file, self.section, self.name, parent=self, step=str(step))

    def error(self, what: str) -> StackError:
        path = self.path
        where = f" (at {'.'.join(path)})" if path else ""
        return StackError(f"{self.file}: {self.section} {self.name}: {what}{where}")


def file_error(file: str, what: str) -> StackError:
    """An error of the file as a whole (it cannot be read, it is no template)."""
    return StackError(f"{file}: {what}")
