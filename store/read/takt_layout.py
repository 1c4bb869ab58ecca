"""Where TAKT keeps pieces and facets on disk, told from paths alone (docs/configuration.md,
docs/command-line.md "TAKT facets")."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal, NamedTuple

Source = Literal["section map", "beside", "package", "project", "user", "built-in"]
#: TAKT's languages (``Language`` in its config types); ``en`` is its default.
LANGUAGES = ("en", "ja")
DEFAULT_LANGUAGE = "en"
#: Directories TAKT keeps pieces in: ``pieces/`` (≤ 0.35), ``workflows/`` (≥ 0.34).
FLOW_DIRS = ("pieces", "workflows")
#: TAKT's YAML that is not a piece or workflow, by directory (TAKT 0.47–0.60: presets of
#: provider options, step fragments, facet pools, companion reviewers; schemas, run data) …
SUPPORT_DIRS = frozenset(
    (
        "provider-options",
        "steps",
        "facet-pools",
        "companions",
        "schemas",
        "runs",
        "tasks",
        "logs",
        # TAKT's builtins (0.37 on): exec presets and a Codex skill's agent settings
        "exec",
        "agents",
    )
)
#: … and by name (settings, the categories of the selection menu, the task queue).
SUPPORT_NAMES = frozenset(("config", "runtime", "tasks", "exec", "mcp"))


def user_takt_dir() -> Path:
    """TAKT's global directory: ``$TAKT_CONFIG_DIR``, else ``~/.takt`` (as TAKT decides)."""
    env = os.environ.get("TAKT_CONFIG_DIR")
    return Path(env) if env else Path.home() / ".takt"


def _same(a: Path, b: Path) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def is_takt_dir(path: Path) -> bool:
    """A project's ``.takt/`` or the user's TAKT directory."""
    return path.name == ".takt" or _same(path, user_takt_dir())


def piece_dirs(top: Path) -> list[Path]:
    """What to walk for pieces under a configured location: a TAKT directory's piece
    directories (those that exist), anything else whole."""
    if not is_takt_dir(top):
        return [top]
    bases = [top, *(top / lang for lang in LANGUAGES)]
    try:
        owners = sorted(p for p in (top / "repertoire").iterdir() if p.name.startswith("@"))
        bases += [repo for owner in owners for repo in sorted(owner.iterdir())]
    except OSError:
        pass
    return [b / flow for b in bases for flow in FLOW_DIRS if (b / flow).is_dir()]


def is_support_file(path: Path, top: Path) -> bool:
    """TAKT's other YAML under a piece location ``top`` (``config.yaml``,
    ``provider-options/*.yaml``…): not a piece."""
    try:
        rel = path.relative_to(top)
    except ValueError:
        return False
    stem = rel.stem.lower()
    if stem in SUPPORT_NAMES or stem.endswith("-categories"):
        return True
    return any(part in SUPPORT_DIRS for part in rel.parts[:-1])


def holds_flows(top: Path) -> bool:
    """A directory laid out as TAKT's: a piece directory, or one holding them."""
    return top.name in FLOW_DIRS or is_takt_dir(top) or any((top / d).is_dir() for d in FLOW_DIRS)


def in_takt_tree_support(path: Path, top: Path) -> bool:
    """:func:`is_support_file` below a directory between ``top`` and ``path`` that is laid out
    as TAKT's (``builtins/en/config.yaml`` when linting ``builtins``)."""
    for base in path.parents:
        if is_support_file(path, base) and holds_flows(base):
            return True
        if base == top or top not in base.parents:
            return False
    return False


class PieceHome(NamedTuple):
    """The facet directories of the tree a piece lies in, and which layer they are."""

    layer: Source
    facet_roots: tuple[Path, ...]
    """Directories holding ``<kind>/NAME.md``, searched in order: ``facets/`` (TAKT ≥ 0.22),
    then the TAKT directory itself (``personas/``, ``instructions/``… before 0.22)."""
    lang: str | None = None


#: Facet directories TAKT keeps (``output-contracts`` was ``report_formats`` before 0.8).
_KIND_DIRS = ("personas", "policies", "knowledge", "instructions", "output-contracts")


def _legacy(*tops: Path) -> tuple[Path, ...]:
    """The TAKT directories that keep facets directly in them (``personas/``…, TAKT < 0.22)."""
    return tuple(t for t in tops if any((t / k).is_dir() for k in _KIND_DIRS))


def piece_home(piece_dir: Path, user_dir: Path | None = None) -> PieceHome:
    """The layer a piece's directory belongs to (project, user, builtin, package), told by
    its path; anywhere else the facet directories beside it are its project's."""
    user_dir = user_dir or user_takt_dir()
    here = Path(os.path.abspath(piece_dir))
    for flow in (here, *here.parents):
        if flow.name not in FLOW_DIRS:
            continue
        top = flow.parent
        if top.name in LANGUAGES and top.parent.name == ".takt":
            takt = top.parent
            layer: Source = "user" if _same(takt, user_dir) else "project"
            roots = (top / "facets", takt / "facets", *_legacy(top, takt))
            return PieceHome(layer, roots, top.name)
        if top.name == ".takt" or _same(top, user_dir):
            layer = "user" if _same(top, user_dir) else "project"
            return PieceHome(layer, (top / "facets", *_legacy(top)))
        if top.name in LANGUAGES and top.parent.name == "builtins":
            return PieceHome("built-in", (top / "facets", *_legacy(top)), top.name)
        if top.parent.name.startswith("@") and top.parent.parent.name == "repertoire":
            return PieceHome("package", (top / "facets",))
    roots = tuple(dict.fromkeys((here.parent / "facets", here / "facets")))
    return PieceHome("project", roots)
