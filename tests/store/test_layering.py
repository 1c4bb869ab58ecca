"""Imports go one way (DESIGN.md): tui.app/cli → screens → tui.widgets → store.

Two checks: a subprocess imports every ``store`` module and finds neither Textual nor Rich
loaded; and every import statement of every module is read (an import-linter-style contract)
so that a forbidden import fails even where it sits inside a function.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

FORBIDDEN = {
    "store": ("textual", "rich", "screens", "tui"),
    "screens": ("tui.app", "tui.cli"),
    "tui/widgets": ("screens", "tui.app", "tui.cli"),
}


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(), str(path))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.lineno, node.module))
    return out


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_import_contract(package: str) -> None:
    bad = [
        f"{path.relative_to(REPO)}:{line}: {name}"
        for path in sorted((REPO / package).rglob("*.py"))
        for line, name in _imports(path)
        if any(name == f or name.startswith(f + ".") for f in FORBIDDEN[package])
    ]
    assert bad == []


def test_store_imports_neither_textual_nor_rich_at_run_time() -> None:
    code = (
        "import sys, pkgutil, importlib, store\n"
        "for m in pkgutil.walk_packages(store.__path__, 'store.'):\n"
        "    importlib.import_module(m.name)\n"
        "print(','.join(sorted(n for n in sys.modules if n.split('.')[0] in ('textual', 'rich'))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == ""
