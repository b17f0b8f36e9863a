"""A function's own modules: importable for its call only, kept apart from the test's and
from other functions', and kept warm between its calls.

``sys.modules`` and ``sys.path`` belong to the process, so the call changes them and puts
them back: the test's modules of the names the function's code holds are set aside, the
function's warm modules (from its last call) put in their place, its directory put first
on ``sys.path``; after the call the function's modules go back to its warm store and the
test's return. A name of the standard library is never set aside: other threads may be
importing it; nor is the AWS SDK (``PROCESS_SDK``). A module the function imports from
elsewhere (the standard library, site-packages) stays, as an installed package is one for
the whole process.
"""

from __future__ import annotations

import importlib
import linecache
import sys
import threading
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from pytest_schedemu.functions.definition import FunctionDefinition

#: The module an inline ``ZipFile`` becomes, as Lambda names it.
INLINE_MODULE = "index"
#: The AWS SDK is always the process's, even where a function bundles a copy of its own:
#: the interception that keeps a handler's requests from AWS, and moto, patch this one.
PROCESS_SDK = ("botocore", "boto3", "s3transfer")


class WarmModules:
    """Each function's modules between its calls, by function ARN."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._modules: dict[str, dict[str, types.ModuleType]] = {}

    def take(self, arn: str) -> dict[str, types.ModuleType]:
        with self._lock:
            return self._modules.pop(arn, {})

    def keep(self, arn: str, modules: dict[str, types.ModuleType]) -> None:
        with self._lock:
            self._modules[arn] = modules

    def clear(self) -> None:
        with self._lock:
            self._modules.clear()


@contextmanager
def importable(
    definition: FunctionDefinition, warm: WarmModules | None
) -> Iterator[Callable[[str], types.ModuleType]]:
    """While the block runs, the function's modules are the ones imported by their names;
    it gets the function that imports one (``app``, ``handlers.billing``). The caller
    holds the process's lock."""
    own = _own_names(definition)
    for name in PROCESS_SDK:
        _import_from_the_process(name)
    kept = warm.take(definition.arn) if warm is not None else {}
    set_aside = {name: module for name, module in sys.modules.items() if _top(name) in own}
    for name in set_aside:
        del sys.modules[name]
    sys.modules.update(kept)
    entry = None if definition.code_dir is None else str(definition.code_dir)
    if entry is not None:
        sys.path.insert(0, entry)
        importlib.invalidate_caches()
    try:
        yield lambda name: _import(definition, name)
    finally:
        mine = {name: module for name, module in sys.modules.items() if _top(name) in own}
        for name in mine:
            del sys.modules[name]
        sys.modules.update(set_aside)
        if entry is not None and entry in sys.path:
            sys.path.remove(entry)
        if warm is not None:
            warm.keep(definition.arn, mine)


def _import_from_the_process(name: str) -> None:
    # botocore is always there (this package's own dependency); where boto3 is not, a copy
    # the function bundles builds on the process's botocore all the same.
    with suppress(ImportError):
        importlib.import_module(name)


def _import(definition: FunctionDefinition, name: str) -> types.ModuleType:
    if definition.inline_code is not None and name == INLINE_MODULE:
        found = sys.modules.get(INLINE_MODULE)
        if found is None:
            found = _inline(definition)
        return found
    return importlib.import_module(name)


def _inline(definition: FunctionDefinition) -> types.ModuleType:
    source = definition.inline_code or ""
    # A name of its own, so that a stack trace shows the inline code's lines.
    filename = f"<inline code of {definition.name}>/{INLINE_MODULE}.py"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    module = types.ModuleType(INLINE_MODULE)
    module.__file__ = filename
    sys.modules[INLINE_MODULE] = module
    try:
        exec(compile(source, filename, "exec"), module.__dict__)
    except BaseException:
        # As an import that fails: the next call initialises the code again.
        sys.modules.pop(INLINE_MODULE, None)
        raise
    return module


def _own_names(definition: FunctionDefinition) -> frozenset[str]:
    """The top-level module names the function's code holds, but the standard library's."""
    if definition.code_dir is None:
        return frozenset({INLINE_MODULE} if definition.inline_code is not None else ())
    names = {_module_name(path) for path in definition.code_dir.iterdir()}
    return frozenset(names - {""} - set(sys.stdlib_module_names) - set(PROCESS_SDK))


def _module_name(path: Path) -> str:
    if path.is_dir():
        return path.name if path.name.isidentifier() else ""
    if path.suffix == ".py" and path.stem.isidentifier():
        return path.stem
    return ""


def _top(name: str) -> str:
    return name.partition(".")[0]
