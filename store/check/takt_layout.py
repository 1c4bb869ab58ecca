"""Where TAKT keeps pieces and facets on disk, told from paths alone (no models loaded).

A TAKT directory — a project's ``.takt/`` or the user's ``~/.takt/`` (``$TAKT_CONFIG_DIR``)
— keeps pieces in ``pieces/`` (``workflows/`` from TAKT 0.34 on) and facets in
``facets/<kind>/``; projects that keep both languages mirror TAKT's own
``builtins/<lang>/`` layout as ``.takt/<lang>/{pieces,workflows,facets}/``, and installed
repertoire packages live in ``~/.takt/repertoire/@owner/repo/``. The rest of a TAKT
directory (``config.yaml``, ``tasks.yaml``, run logs) is not pieces, so a workspace whose
``[paths] pieces`` names a TAKT directory walks only its piece directories
(:func:`piece_dirs`). :func:`piece_home` says which of TAKT's facet layers a piece's own
facet directories are (see :mod:`store.check.takt_facets`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Source = Literal["section map", "beside", "package", "project", "user", "built-in"]
#: TAKT's languages (``Language`` in its config types); ``en`` is its default.
LANGUAGES = ("en", "ja")
DEFAULT_LANGUAGE = "en"
#: Directories TAKT keeps pieces in: ``pieces/`` (≤ 0.35), ``workflows/`` (≥ 0.34).
FLOW_DIRS = ("pieces", "workflows")


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


@dataclass(frozen=True, slots=True)
class PieceHome:
    """The facet directories of the tree a piece lies in, and which layer they are."""

    layer: Source
    facet_roots: tuple[Path, ...]
    """Directories holding ``<kind>/NAME.md``, searched in order."""
    lang: str | None = None


def piece_home(piece_dir: Path, user_dir: Path | None = None) -> PieceHome:
    """Which layer the directory of a piece belongs to: under ``<dir>/.takt/[<lang>/]pieces/``
    a project's (the user's when it is the user's TAKT directory), under
    ``builtins/<lang>/pieces/`` TAKT's own, under ``repertoire/@owner/repo/pieces/`` a
    package's; anywhere else the facet directories beside it (``../facets``, ``facets``)
    count as its project's."""
    user_dir = user_dir or user_takt_dir()
    here = Path(os.path.abspath(piece_dir))
    for flow in (here, *here.parents):
        if flow.name not in FLOW_DIRS:
            continue
        top = flow.parent
        if top.name in LANGUAGES and top.parent.name == ".takt":
            takt = top.parent
            layer: Source = "user" if _same(takt, user_dir) else "project"
            return PieceHome(layer, (top / "facets", takt / "facets"), top.name)
        if top.name == ".takt" or _same(top, user_dir):
            return PieceHome("user" if _same(top, user_dir) else "project", (top / "facets",))
        if top.name in LANGUAGES and top.parent.name == "builtins":
            return PieceHome("built-in", (top / "facets",), top.name)
        if top.parent.name.startswith("@") and top.parent.parent.name == "repertoire":
            return PieceHome("package", (top / "facets",))
    roots = tuple(dict.fromkeys((here.parent / "facets", here / "facets")))
    return PieceHome("project", roots)
