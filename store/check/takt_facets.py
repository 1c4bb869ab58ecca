"""Where TAKT finds the facet a piece names, in TAKT's order (docs/command-line.md, "TAKT
facets"), the project taken from where the piece lies, not where TAKT runs."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from store.models.piece import Piece
from store.read.takt_layout import DEFAULT_LANGUAGE, Source, piece_home, user_takt_dir

#: Reference field → (section map of the piece, facet directory name).
FACET_KINDS = {
    "persona": ("personas", "personas"),
    "policy": ("policies", "policies"),
    "instruction": ("instructions", "instructions"),
    "knowledge": ("knowledge", "knowledge"),
    "format": ("report_formats", "output-contracts"),
}
BUILTIN_DATA = Path(__file__).with_name("takt_builtin_facets.json")


# -- TAKT's built-in facet names -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BuiltinFacets:
    version: str
    names: Mapping[str, Mapping[str, frozenset[str]]]  # language → facet kind → names

    def has(self, kind: str, name: str, lang: str | None) -> bool:
        # the default language's names count for every language: TAKT ships the same names
        # in ja and en (v0.33's and v0.60's builtins/ja and builtins/en facet directories)
        for by_kind in (self.names.get(lang or DEFAULT_LANGUAGE), self.names.get(DEFAULT_LANGUAGE)):
            if by_kind is not None and name in by_kind.get(kind, frozenset()):
                return True
        return False


@cache
def builtin_facets() -> BuiltinFacets:
    raw: dict[str, Any] = json.loads(BUILTIN_DATA.read_text(encoding="utf-8"))
    names = {
        lang: {kind: frozenset(v) for kind, v in kinds.items()}
        for lang, kinds in raw["languages"].items()
    }
    return BuiltinFacets(str(raw["takt_version"]), names)


# -- resolving one reference ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Resolution:
    """Where a reference led, or everywhere it was looked for."""

    path: Path | None
    source: Source | None  # the layer it was found in (None: nowhere)
    how: str  # the same for people: ``personas map``, ``facet directory``, …
    looked_in: tuple[str, ...] = ()  # every place tried, when it resolves nowhere
    mapped: bool = False  # a key of the section map (whose file may be missing)

    @property
    def found(self) -> bool:
        return self.source is not None


def is_resource_path(ref: str) -> bool:
    return ref.startswith(("./", "../", "/", "~")) or ref.endswith(".md")


def resource_path(ref: str, piece_dir: Path) -> Path:
    if ref.startswith("~"):
        return Path.home() / ref[1:].lstrip("/")
    return piece_dir / ref


_HOW: dict[Source, str] = {
    "section map": "section map",
    "beside": "path beside the piece",
    "package": "repertoire package's facet directory",
    "project": "facet directory",
    "user": "user facet directory (~/.takt)",
    "built-in": "built-in facet directory",
}


def resolve_reference(
    piece: Piece,
    piece_dir: Path,
    name: str,
    field: str,
) -> Resolution:
    section, kind = FACET_KINDS[field]
    mapping = getattr(piece, section) or {}
    if name in mapping:
        p = resource_path(str(mapping[name]), piece_dir)
        how = f"{section} map"
        if p.is_file():
            return Resolution(p, "section map", how, mapped=True)
        return Resolution(None, None, how, (f"{how} ({mapping[name]})",), mapped=True)
    looked: list[str] = [f"{section} map"]
    if is_resource_path(name):
        p = resource_path(name, piece_dir)
        if p.is_file():
            return Resolution(p, "beside", _HOW["beside"])
        return Resolution(None, None, _HOW["beside"], (str(p),))
    user_dir = user_takt_dir()
    home = piece_home(piece_dir, user_dir)
    if name.startswith("@") and name.count("/") == 2:  # @owner/repo/NAME: one package
        owner, repo, facet = name[1:].split("/")
        p = user_dir / "repertoire" / f"@{owner}" / repo / "facets" / kind / f"{facet}.md"
        if p.is_file():
            return Resolution(p, "package", _HOW["package"])
        return Resolution(None, None, _HOW["package"], (*looked, str(p.parent)))
    layers: list[tuple[Source, Path]] = [(home.layer, root / kind) for root in home.facet_roots]
    user: tuple[Source, Path] = ("user", user_dir / "facets" / kind)
    if home.layer == "built-in":  # TAKT's own pieces: the user's facets come first
        layers.insert(0, user)
    elif home.layer != "user":
        layers.append(user)
    seen: set[Path] = set()
    for source, d in layers:
        if d in seen:
            continue
        seen.add(d)
        p = d / f"{name}.md"
        if p.is_file():
            return Resolution(p, source, _HOW[source])
        looked.append(str(d))
    # also under builtins/<lang>/: packages copy TAKT's layout there (github:j5ik2o/takt-sdd)
    # and name TAKT's own facets, which its install leaves in place
    data = builtin_facets()
    label = f"TAKT v{data.version} built-in {kind}"
    if data.has(kind, name, home.lang):
        return Resolution(None, "built-in", label)
    looked.append(label)
    if field == "persona" and (piece_dir / name).is_file():  # TAKT's last try for a persona
        return Resolution(piece_dir / name, "beside", _HOW["beside"])
    return Resolution(None, None, "facet directories", tuple(looked))
