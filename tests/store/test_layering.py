"""Imports go one way (docs/architecture.md): tui → screens → store, and inside the store
from each layer down; no module imports itself back through others.

The contract, exactly:

- ``store`` imports no ``textual``, ``rich``, ``screens`` or ``tui``;
- ``screens`` imports no ``tui`` module;
- no module of ``screens`` imports a full screen module other than itself: a full screen
  is a module at the top of ``screens/`` (``list_screen``, ``messages`` and ``writing``
  aside); dialogs (``screens.dialogs``), widgets (``screens.widgets``), the list screens'
  base, messages and the write runner are shared. A screen
  asks for another with an ``Open`` message, which the app's router routes;
- inside ``store`` every package and top-level module has a layer (``pyproject.toml``'s
  ``containers = ["store"]`` contract) and imports only from the layers below it, nor from
  a sibling of its own layer (``a | b``), directly or through others;
- no import cycle among the modules of the three packages.

Every import statement of every module is read (relative ones resolved, ``from screens
import x`` counted as ``screens.x``), so that a forbidden import fails even inside a
function; a subprocess imports every ``store`` module and finds neither Textual nor Rich
loaded. The same contract is in ``pyproject.toml`` for import-linter (``lint-imports``, run
by CI); its list of full screens is checked here against the tree. The store's layers and
the cycles are read with grimp (import-linter's own graph), which counts every import: at
the top, inside a function, and under ``if TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import grimp
import pytest

from tests.conftest import REPO

FORBIDDEN = {
    "store": ("textual", "rich", "screens", "tui"),
    "screens": ("tui",),
}
SHARED = {
    "__init__",
    "list_screen",
    "messages",
    "writing",
}  # at the top of screens/, but not a screen


#: packages under screens/ that are not screens
SHARED_PACKAGES = {"dialogs", "widgets"}


def full_screens() -> set[str]:
    """Every screen: a module at the top of screens/, or a package there (a screen kept
    in several modules, e.g. ``screens.session``)."""
    modules = {p.stem for p in (REPO / "screens").glob("*.py") if p.stem not in SHARED}
    packages = {
        p.parent.name
        for p in (REPO / "screens").glob("*/__init__.py")
        if p.parent.name not in SHARED_PACKAGES
    }
    return {f"screens.{name}" for name in modules | packages}


def _screen_of(path: Path) -> str:
    """The screen a file of screens/ belongs to (its module, or its package)."""
    return ".".join(_module(path)[:2])


def _module(path: Path) -> list[str]:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def _imports(path: Path, source: str | None = None) -> list[tuple[int, str]]:
    """Every module ``path`` imports (its text, or ``source`` as its text), absolute, with
    its line."""
    tree = ast.parse(path.read_text() if source is None else source, str(path))
    package = _module(path) if path.name == "__init__.py" else _module(path)[:-1]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            if module:
                out.append((node.lineno, module))
            out += [(node.lineno, f"{module}.{a.name}") for a in node.names if a.name != "*"]
    return out


def _within(name: str, prefixes: tuple[str, ...] | set[str]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_one_direction(package: str) -> None:
    bad = [
        f"{path.relative_to(REPO)}:{line}: {name}"
        for path in sorted((REPO / package).rglob("*.py"))
        for line, name in _imports(path)
        if _within(name, FORBIDDEN[package])
    ]
    assert bad == []


def test_a_screen_imports_no_other_screen() -> None:
    screens = full_screens()
    bad = [
        f"{path.relative_to(REPO)}:{line}: {name}"
        for path in sorted((REPO / "screens").rglob("*.py"))
        for line, name in _imports(path)
        if _within(name, screens - {_screen_of(path)})
    ]
    assert bad == []


def test_the_import_linter_contract_names_every_screen() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]
    (independent,) = [c for c in config["contracts"] if c["type"] == "independence"]
    assert set(independent["modules"]) == full_screens()
    layers = [c["layers"] for c in config["contracts"] if c["type"] == "layers"]
    assert layers[0] == ["tui", "screens", "store"]


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("store", "screens", "tui", cache_dir=None)


def _store_layers() -> list[str]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]
    (layers,) = [c["layers"] for c in config["contracts"] if c.get("containers") == ["store"]]
    return list(layers)


def test_every_part_of_the_store_has_its_layer(graph: grimp.ImportGraph) -> None:
    placed = {f"store.{name.strip()}" for layer in _store_layers() for name in layer.split("|")}
    assert graph.find_children("store") == placed


def test_the_store_imports_only_downwards(graph: grimp.ImportGraph) -> None:
    layers = [grimp.Layer(*(n.strip() for n in layer.split("|"))) for layer in _store_layers()]
    illegal = graph.find_illegal_dependencies_for_layers(layers, containers={"store"})
    bad = sorted(
        f"{d.importer} -> {d.imported}: {' -> '.join([min(r.heads), *r.middle, min(r.tails)])}"
        for d in illegal
        for r in d.routes
    )
    assert bad == []


def test_no_import_cycle(graph: grimp.ImportGraph) -> None:
    """A module in a cycle both imports and is imported by another, through any path."""
    cycles = {
        frozenset({m} | (graph.find_upstream_modules(m) & graph.find_downstream_modules(m)))
        for m in graph.modules
    }
    found = {c for c in cycles if len(c) > 1}
    assert found == set()


def test_the_check_sees_relative_and_package_imports() -> None:
    """The reading itself: ``from .. import x`` and ``from screens import x`` count."""
    source = "from .. import session\nfrom screens import stats\nfrom .text_view import TextView\n"
    names = [name for _line, name in _imports(REPO / "screens/dialogs/confirm.py", source)]
    assert {"screens.session", "screens.stats", "screens.dialogs.text_view"} <= set(names)


@pytest.mark.slow
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
