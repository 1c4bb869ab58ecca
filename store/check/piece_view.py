"""One TAKT piece read whole for display, off the UI thread: its graph outlined, each
diagnostic placed in the section its line belongs to, its facets resolved."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from store.check.files import check_loaded
from store.check.piece_graph import Section, assign_diagnostics, build_graph, outline
from store.check.piece_lint import FacetRef, facet_references
from store.models import Piece
from store.read.diagnostics import Diagnostic
from store.read.kinds import Kind
from store.read.loader import load_file


@dataclass(slots=True)
class PieceView:
    path: Path
    display: str
    text: str
    doc: Piece | None
    diagnostics: list[Diagnostic]
    sections: list[Section] = field(default_factory=list)
    by_section: dict[str, list[Diagnostic]] = field(default_factory=dict)
    facets: list[FacetRef] = field(default_factory=list)


def load_piece_view(path: Path, display: str) -> PieceView:
    loaded = load_file(path, Kind.PIECE, display)
    diags = check_loaded(loaded)
    doc = loaded.doc if isinstance(loaded.doc, Piece) else None
    view = PieceView(path, display, loaded.text or "", doc, diags)
    if doc is None:
        view.by_section = {"head": diags}
        return view
    view.sections = outline(build_graph(doc))
    top_keys = [str(k) for k in loaded.data] if isinstance(loaded.data, dict) else []
    line_of = loaded.yaml.line_of if loaded.yaml is not None else (lambda _loc: None)
    own = [d for d in diags if d.path == display]
    view.by_section = assign_diagnostics(view.sections, line_of, top_keys, own)
    view.by_section.setdefault("head", []).extend(  # a facet file's, named with its line
        replace(d, path=display, line=None, message=f"{d.path} line {d.line}: {d.message}")
        for d in diags
        if d.path != display
    )
    view.facets = facet_references(doc, path)
    return view
