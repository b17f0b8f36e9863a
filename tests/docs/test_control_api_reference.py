"""The control API's reference (docs/reference/control-api.md) names every route the control
API declares, with its method."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "reference" / "control-api.md"
CONTROL_API = ROOT / "pytest_schedemu" / "control_api"
METHODS = {"GET", "POST", "PUT", "PATCH", "DELETE"}


def declared_routes() -> set[str]:
    """Each ``("METHOD", "path")`` the control API's modules write out, as ``METHOD path``."""
    found = set()
    for module in CONTROL_API.glob("*.py"):
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Tuple)
                and len(node.elts) == 2
                and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts)
            ):
                method, path = (e.value for e in node.elts if isinstance(e, ast.Constant))
                if method in METHODS:
                    found.add(f"{method} /_schedemu/{path}")
    return found


def documented_routes() -> set[str]:
    text = PAGE.read_text(encoding="utf-8")
    return set(re.findall(r"`((?:GET|POST|PUT|PATCH|DELETE) /_schedemu/[^`\s]*)`", text))


def test_the_scan_finds_the_routes_it_should() -> None:
    routes = declared_routes()
    assert {"GET /_schedemu/health", "POST /_schedemu/clock/advance"} <= routes
    assert "POST /_schedemu/schedules/{group}/{name}/fire" in routes
    assert len(routes) >= 20


def test_every_declared_route_is_in_the_reference() -> None:
    missing = declared_routes() - documented_routes()
    assert missing == set(), f"docs/reference/control-api.md does not name {sorted(missing)}"
