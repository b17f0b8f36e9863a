"""The dashboard's scripts: ES modules the browser loads as they are. With no build step
to stop a broken import, these checks do what a bundler would: every module a script
imports is in the ``ui`` folder and exports each name taken from it, every module is
reached from the page's script, and no script grows past 400 lines.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest_schedemu

UI = Path(pytest_schedemu.__file__).parent / "control_api" / "ui"
MAX_LINES = 400
SCRIPTS = {path.name: path.read_text() for path in sorted(UI.glob("*.js"))}

PAGE_SCRIPT = re.compile(r'<script src="/_schedemu/ui/([^"/]+)" type="module">')
STATEMENT = re.compile(r"^import\b", re.MULTILINE)
# The one form the modules use: named imports from a sibling module.
NAMED_IMPORT = re.compile(r'^import \{([^}]*)\} from "\./([^"/]+)";$', re.MULTILINE)
EXPORT = re.compile(
    r"^export (?:async )?(?:function|const|let|class) ([A-Za-z_$][\w$]*)", re.MULTILINE
)


def imports(text: str) -> dict[str, set[str]]:
    """The names a module takes from each of its siblings."""
    found = {
        module: {name.strip() for name in names.split(",") if name.strip()}
        for names, module in NAMED_IMPORT.findall(text)
    }
    assert len(STATEMENT.findall(text)) == len(NAMED_IMPORT.findall(text)), (
        'an import not of the form `import { name } from "./module.js";`'
    )
    return found


def test_no_script_is_over_400_lines() -> None:
    lengths = {name: text.count("\n") for name, text in SCRIPTS.items()}
    assert {name: n for name, n in lengths.items() if n > MAX_LINES} == {}


def test_every_import_names_a_module_of_the_folder_that_exports_it() -> None:
    missing = []
    for name, text in SCRIPTS.items():
        for module, names in imports(text).items():
            if module not in SCRIPTS:
                missing.append(f"{name}: no module {module}")
                continue
            exported = set(EXPORT.findall(SCRIPTS[module]))
            missing += [f"{name}: {module} exports no {taken}" for taken in names - exported]
    assert missing == []


def test_every_script_is_reached_from_the_page() -> None:
    entries = PAGE_SCRIPT.findall((UI / "index.html").read_text())
    assert entries == ["app.js"]
    reached, waiting = set(), list(entries)
    while waiting:
        name = waiting.pop()
        if name not in reached and name in SCRIPTS:
            reached.add(name)
            waiting += imports(SCRIPTS[name])
    assert sorted(set(SCRIPTS) - reached) == []
