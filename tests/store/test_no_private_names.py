"""No private name of another package is used in ``store``, ``screens`` or ``tui`` (#42).

A private name (``_x``, not a dunder) belongs to the package that defines it and may change
in any release: Textual's compositor, a widget's styles cache, ``re._parser``. The rule,
exactly, over the AST of every module of the three packages:

1. **Imports.** No import of a module of another package whose dotted path has a private
   part (``textual._compositor``, ``re._parser``, ``pydantic._internal``), no ``sre_*``
   module, and no ``from <another package> import _name``.
2. **A name imported from another package**, then ``name._x`` (``re._parser``,
   ``Widget._check_refresh(widget)``): refused.
3. **``self._x`` / ``cls._x`` / ``super()._x`` in a class of ours**: the class is imported
   and the name looked up along its MRO. Ours when a class of ours in the MRO defines it
   (in its body) or assigns ``self._x`` in one of its methods; refused when the first
   class to define it is another package's (``self._styles_cache`` in a ``ScrollView``,
   ``self._scroll_update``), or when nothing defines it (an attribute another package's
   ``__init__`` sets).
4. **Any other ``obj._x``** (an object of unknown type): ours only when a class of ours
   has an attribute ``_x`` (a method or class attribute in its body, or a ``self._x``
   assignment; a module's function of that name does not count: ``parser._actions``),
   and then only if no class of Textual or Rich defines one of that name too
   (``screen._compositor``, ``widget._check_refresh``: refused either way). An attribute we define that Textual or Rich also defines must not
   be reached through an object of unknown type, in a module that imports Textual or
   Rich: reach it through ``self`` (``store`` imports neither, so its objects are ours).
   A named tuple's documented ``_fields``, ``_replace``, ``_asdict``, ``_make`` are public.
5. **A module of ours** (``from store.check import secrets``), then ``secrets._x``: ours
   when that module defines ``_x`` at its top level.
6. **A private name of another module of ours** (``from store.workspace import _walk``) is
   refused too: it is given a public name where it lives.

Defining a method named like Textual's event handlers (``_on_click``, ``_on_resize``) is
the documented way to handle an event and is not an access.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.conftest import REPO

OURS = ("store", "screens", "tui")
#: the other packages whose classes' private names may collide with ours (rule 4)
WATCHED = ("textual", "rich")
#: a named tuple's documented API, underscored so as not to clash with its fields
NAMEDTUPLE_API = frozenset({"_fields", "_field_defaults", "_asdict", "_make", "_replace"})


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _ours(module: str) -> bool:
    return module.split(".")[0] in OURS


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources(root: Path) -> Iterator[tuple[str, Path, ast.Module]]:
    for package in OURS:
        for path in sorted((root / package).rglob("*.py")):
            yield _module_name(path, root), path, ast.parse(path.read_text("utf-8"), str(path))


def _resolve(module: str, node: ast.ImportFrom) -> str:
    """The module a ``from … import`` reads: a relative one is always one of ours."""
    return module.split(".")[0] if node.level else node.module or ""


@dataclass
class Own:
    """The private names our code defines: anywhere, and per class (by qualified name)."""

    anywhere: set[str] = field(default_factory=set)
    modules: dict[str, set[str]] = field(default_factory=dict)
    by_class: dict[tuple[str, str], set[str]] = field(default_factory=dict)


def _self_assigned(cls: ast.ClassDef) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(cls):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = [node.target]
        for target in targets:
            for t in ast.walk(target):
                if (
                    isinstance(t, ast.Attribute)
                    and isinstance(t.value, ast.Name)
                    and t.value.id in ("self", "cls")
                    and _private(t.attr)
                ):
                    names.add(t.attr)
    return names


def _body_names(body: list[ast.stmt]) -> set[str]:
    names: set[str] = set()
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {n for n in names if _private(n)}


def own_names(root: Path) -> Own:
    own = Own()
    for module, _path, tree in _sources(root):
        own.modules[module] = _body_names(tree.body)
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                names = _body_names(node.body) | _self_assigned(node)
                own.by_class.setdefault((module, node.name), set()).update(names)
                own.anywhere |= names
    return own


def _watched_private_names() -> set[str]:
    """Every private name a class of Textual or Rich defines or assigns on ``self``, read
    from their installed sources."""
    names: set[str] = set()
    for package in WATCHED:
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.submodule_search_locations
        for location in spec.submodule_search_locations:
            for path in Path(location).rglob("*.py"):
                try:
                    tree = ast.parse(path.read_text("utf-8"))
                except (SyntaxError, UnicodeDecodeError):
                    continue
                for node in ast.walk(tree):
                    if isinstance(node, ast.ClassDef):
                        names |= _body_names(node.body) | _self_assigned(node)
    return names


def _class_defines(cls: type, name: str, own: Own) -> bool | None:
    """Whether ``cls`` (in the MRO) defines ``name``: ``True`` ours, ``False`` another
    package's, ``None`` not this class."""
    module = getattr(cls, "__module__", "") or ""
    if _ours(module):
        if name in own.by_class.get((module, cls.__name__), set()) or name in vars(cls):
            return True
        return None
    if name in vars(cls) or name in getattr(cls, "__slots__", ()):
        return False
    return None


def _self_name_is_ours(cls: type, name: str, own: Own) -> bool:
    for klass in cls.__mro__:
        found = _class_defines(klass, name, own)
        if found is not None:
            return found
    return False


class _Checker(ast.NodeVisitor):
    def __init__(self, module: str, own: Own, watched: set[str]) -> None:
        self.module = module
        self.own = own
        self.watched = watched
        self.found: list[str] = []
        self.foreign: set[str] = set()  # names bound by importing from another package
        self.own_modules: dict[str, str] = {}  # names bound to a module of ours
        self.near_textual = False  # the module imports Textual or Rich
        self.classes: list[type | None] = []
        #: per class being visited: when it cannot be imported (defined in a function) and
        #: every base is another package's, the names its own body defines or assigns
        self.nested: list[set[str] | None] = []
        self.where = ""

    def report(self, node: ast.AST, what: str) -> None:
        self.found.append(f"{self.where}:{getattr(node, 'lineno', 0)}: {what}")

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            parts = alias.name.split(".")
            if _ours(alias.name):
                self.own_modules[alias.asname or alias.name] = alias.name
                continue
            self.near_textual |= parts[0] in WATCHED
            if any(_private(p) for p in parts) or parts[0].startswith("sre_"):
                self.report(node, f"import {alias.name}")
            self.foreign.add(alias.asname or parts[0])

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        source = _resolve(self.module, node)
        if source == "__future__":
            return
        if _ours(source):
            for alias in node.names:
                if _private(alias.name):  # (rule 6)
                    self.report(node, f"from {source} import {alias.name}: private to it")
                if f"{source}.{alias.name}" in self.own.modules:  # a module of ours
                    self.own_modules[alias.asname or alias.name] = f"{source}.{alias.name}"
            return
        parts = source.split(".")
        self.near_textual |= parts[0] in WATCHED
        if any(_private(p) for p in parts) or parts[0].startswith("sre_"):
            self.report(node, f"from {source} import …")
        for alias in node.names:
            if _private(alias.name):
                self.report(node, f"from {source} import {alias.name}")
            self.foreign.add(alias.asname or alias.name)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        mod = sys.modules.get(self.module)
        cls = getattr(mod, node.name, None) if mod is not None else None
        self.classes.append(cls if inspect.isclass(cls) else None)
        root = [b.value if isinstance(b, ast.Attribute) else b for b in node.bases]
        foreign_bases = bool(root) and all(
            isinstance(b, ast.Name) and b.id in self.foreign for b in root
        )
        own = _body_names(node.body) | _self_assigned(node)
        self.nested.append(own if self.classes[-1] is None and foreign_bases else None)
        self.generic_visit(node)
        self.nested.pop()
        self.classes.pop()

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.generic_visit(node)
        name = node.attr
        if not _private(name):
            return
        value = node.value
        if isinstance(value, ast.Name) and value.id in self.foreign:
            self.report(node, f"{value.id}.{name} (imported from another package)")
            return
        if isinstance(value, ast.Name) and value.id in self.own_modules:
            if name not in self.own.modules.get(self.own_modules[value.id], set()):
                self.report(node, f"{value.id}.{name}: not a name of that module of ours")
            return
        is_self = isinstance(value, ast.Name) and value.id in ("self", "cls")
        is_super = (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id == "super"
        )
        cls = self.classes[-1] if self.classes else None
        nested = self.nested[-1] if self.nested else None
        if nested is not None and (is_super or (is_self and name not in nested)):
            self.report(node, f"super().{name} / self.{name}: another package's, in a nested class")
            return
        if (is_self or is_super) and cls is not None:
            if not _self_name_is_ours(cls, name, self.own):
                self.report(node, f"{cls.__name__}: self.{name} is another package's")
            return
        if name not in self.own.anywhere and name not in NAMEDTUPLE_API:
            self.report(node, f".{name}: no class of ours has it")
        elif self.near_textual and not (is_self or is_super) and name in self.watched:
            self.report(node, f".{name}: Textual or Rich has one too (reach it through self)")


def private_uses(root: Path) -> list[str]:
    own = own_names(root)
    watched = _watched_private_names()
    found: list[str] = []
    for module, path, tree in _sources(root):
        if not module.endswith("__main__"):  # (running it would start the program)
            importlib.import_module(module)
        checker = _Checker(module, own, watched)
        checker.where = str(path.relative_to(root))
        checker.visit(tree)
        found += checker.found
    return found


#: Uses with no public way yet, each named (file and use, no line number) with why. The
#: test fails on any other use, and on an entry here that is gone (delete it then).
NOT_YET: set[str] = set()


@pytest.mark.slow
def test_no_private_name_of_another_package_is_used() -> None:
    found = private_uses(REPO)
    named = {_without_line(use) for use in found}
    new = sorted(use for use in found if _without_line(use) not in NOT_YET)
    assert new == [], "\n".join(new)
    assert named >= NOT_YET, f"no longer used, take off NOT_YET: {sorted(NOT_YET - named)}"


def _without_line(use: str) -> str:
    where, _line, what = use.split(":", 2)
    return f"{where}:{what}"


#: a class defined in a function cannot be imported and looked up: its body is read instead
NESTED = (
    "from textual.widget import Widget\n"
    "def f():\n"
    "    class W(Widget):\n"
    "        def run(self):\n"
    "            self._mine = 1\n"
    "            return {call}\n"
    "    return W\n"
)


@pytest.mark.parametrize(
    ("source", "bad"),
    [
        ("from textual._compositor import Compositor\n", True),
        ("import re._parser\n", True),
        ("import sre_parse\n", True),
        ("from rich import _loop\n", True),
        ("import re\nx = re._parser\n", True),
        ("from textual.widget import Widget\nWidget._check_refresh(w)\n", True),
        ("def f(screen):\n    screen._compositor = None\n", True),
        ("def f(w):\n    w._check_refresh()\n", True),
        ("import re\nx = re.compile('a')\n", False),
        ("class C:\n    _cache = {}\ndef f(o):\n    return o._cache\n", False),
        ("def _actions():\n    pass\ndef f(parser):\n    return parser._actions\n", True),
        ("from store.probe_private import C\nx = C._fields\n", False),
        ("from store.workspace import _walk\n", True),
        ("from .sibling import _helper\n", True),
        (NESTED.format(call="super()._check_refresh()"), True),
        (NESTED.format(call="self._compositor"), True),
        (NESTED.format(call="self._mine"), False),
    ],
)
@pytest.mark.slow
def test_the_rule_tells_theirs_from_ours(tmp_path: Path, source: str, bad: bool) -> None:
    """The checker on small modules: another package's private names refused, ours let
    through (a module of a package named like ours, not imported: its classes unknown)."""
    (tmp_path / "store").mkdir()
    (tmp_path / "store" / "probe_private.py").write_text(source, "utf-8")
    own = own_names(tmp_path)
    tree = ast.parse(source)
    checker = _Checker("store.probe_private", own, _watched_private_names())
    checker.visit(tree)
    assert bool(checker.found) == bad, checker.found


def test_self_names_are_looked_up_along_the_class_hierarchy() -> None:
    """``self._x`` is ours when a class of ours defines or assigns it, another package's
    when the first class to define it is theirs."""
    from textual.scroll_view import ScrollView

    class Probe(ScrollView):
        _mine = 1

        def __init__(self) -> None:
            super().__init__()
            self._set_here = 2

    own = Own(by_class={(__name__, "Probe"): {"_mine", "_set_here"}})
    Probe.__module__ = "screens.probe"
    own.by_class[("screens.probe", "Probe")] = {"_mine", "_set_here"}
    assert _self_name_is_ours(Probe, "_mine", own)
    assert _self_name_is_ours(Probe, "_set_here", own)
    assert not _self_name_is_ours(Probe, "_scroll_update", own)  # ScrollView's
    assert not _self_name_is_ours(Probe, "_styles_cache", own)  # set by Widget.__init__


def test_tests_ask_our_classes_through_their_public_api() -> None:
    """No test reads or replaces a private name a class of ours defines (a table's
    ``_rows``, a screen's ``_leaves``, ``setattr(WorkspaceIndex, "_merge", …)``): it asks
    what is shown, or the public API."""
    own = own_names(REPO)
    names = set().union(*own.by_class.values()) - NAMEDTUPLE_API

    def private(node: ast.AST) -> str | None:
        if isinstance(node, ast.Attribute) and node.attr in names:
            mine = isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
            return None if mine else node.attr
        if isinstance(node, ast.Call) and len(node.args) > 1:
            func, name = node.func, node.args[1]
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called == "setattr" and isinstance(name, ast.Constant) and name.value in names:
                return str(name.value)
        return None

    found = [
        f"{path.relative_to(REPO)}:{node.lineno}: .{name}"
        for path in sorted((REPO / "tests").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text("utf-8")))
        if (name := private(node)) is not None
    ]
    assert found == [], "\n".join(found)
