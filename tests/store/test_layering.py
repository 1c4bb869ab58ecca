"""The data layer never imports the UI toolkit (DESIGN.md architecture)."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO


def test_store_imports_neither_textual_nor_rich() -> None:
    code = (
        "import sys, pkgutil, importlib, store\n"
        "for m in pkgutil.walk_packages(store.__path__, 'store.'):\n"
        "    importlib.import_module(m.name)\n"
        "bad = sorted(n for n in sys.modules if n.split('.')[0] in ('textual', 'rich'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == ""


def test_screens_do_not_import_the_app() -> None:
    code = (
        "import sys, pkgutil, importlib, screens\n"
        "for m in pkgutil.walk_packages(screens.__path__, 'screens.'):\n"
        "    importlib.import_module(m.name)\n"
        "print(','.join(n for n in ('tui.app', 'tui.cli') if n in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == ""
