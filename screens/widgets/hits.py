"""Search hits drawn literally, the matched characters highlighted: a hit's title (the search
screen's and the command palette's), its row in the search results and its preview."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING

from textual.content import Content, Span

from store.index.sessions import session_key
from store.models.kpt_terms import SECTIONS
from store.read.counted import counted
from store.read.textsafe import printable
from store.search.text import highlight_spans

from .literal import literal, short_project
from .table_rows import Column, Row

if TYPE_CHECKING:
    from store.index.workspace_index import WorkspaceIndex
    from store.search.engine import Engine, Hit, SearchResult
    from store.search.model import SearchRecord

HIGHLIGHT = "bold underline $accent"
SNIPPET_DASH = "  — "
#: a kind's label, where it is not the kind's own name
KIND_LABELS = {"anti_pattern": "anti-pattern"}


def _marks(
    text: str, spans: tuple[tuple[int, int], ...] | list[tuple[int, int]], at: int = 0
) -> tuple[str, list[Span]]:
    """``text`` made printable on one line, and ``spans`` (offsets into it) as highlight
    spans moved by ``at``; none when a control character had to be made visible (the
    offsets no longer fit)."""
    shown = printable(text, keep_newlines=False)
    if shown != text:
        return shown, []
    size = len(shown)
    return shown, [Span(at + a, at + b, HIGHLIGHT) for a, b in spans if 0 <= a < b <= size]


def highlighted(text: str, spans: tuple[tuple[int, int], ...] | list[tuple[int, int]]) -> Content:
    """``text`` on one line, literally, with ``spans`` (offsets into it) highlighted."""
    shown, marks = _marks(text, spans)
    # printable text holds no control code left to strip
    return Content(shown, marks, strip_control_codes=False)


def hit_title(hit: Hit) -> Content:
    """A hit's title, and its best snippet after a dash, with the matches highlighted:
    one ``Content`` made at once (a line of the results, for every key typed)."""
    title, marks = _marks(hit.title, hit.title_spans)
    if not hit.snippet:
        return Content(title, marks, strip_control_codes=False)
    at = len(title) + len(SNIPPET_DASH)
    snippet, snippet_marks = _marks(hit.snippet, hit.snippet_spans, at)
    marks.append(Span(len(title), at, "$text-muted"))
    marks += snippet_marks
    return Content(title + SNIPPET_DASH + snippet, marks, strip_control_codes=False)


COLUMNS = [
    Column("kind", "Kind", 12, drop=1),
    Column("title", "Title", None, min_width=36),
    Column("count", "×", 4, align="right", drop=2),
    Column("state", "State", 9, drop=3),
    Column("project", "Project", 13, drop=4),
    Column("date", "Date", 10),
]
"""The search results' columns. At 120 columns every one is shown (the preview narrower);
at 80 the others give way (the highest ``drop`` first) before the title is cut below 36
cells, the date never."""
STATE_STYLES = {
    "pending": "$text-muted",
    "approved": "$success",
    "promoted": "bold $success",
    "rejected": "$error",
    "contested": "bold $warning",
}


@lru_cache(maxsize=4096)
def _cell(text: str, style: str) -> Content:
    """A literal one-line cell in ``style``; the same object for the same text (kinds,
    states, projects, dates and counts repeat from key to key)."""
    return literal(text, style, keep_newlines=False)


def hit_key(hit: Hit) -> str:
    return f"{hit.kind}\x1f{hit.id}\x1f{hit.path}\x1f{hit.line}"


def hit_row(hit: Hit, project: str, state: str) -> Row:
    """A hit's line in the results: only its title is made for each query; the other
    cells are the same ``Content`` each time they show the same text."""
    return (
        hit_key(hit),
        (
            _cell(KIND_LABELS.get(hit.kind, hit.kind), "$text-secondary"),
            hit_title(hit),
            _cell(f"×{hit.count}", "bold $warning") if hit.count > 1 else "",
            _cell(state, STATE_STYLES.get(state, "")) if state else "",
            _cell(short_project(project), "") if project else "",
            _cell(hit.record.date[:10], ""),
        ),
    )


def hit_project(hit: Hit, index: Engine | None, listed: WorkspaceIndex | None = None) -> str:
    """The record's project, or its session's (a KPT report names none: its session's
    summary or lessons do — what ``project:`` filters on): the ``listed`` session's, in
    memory, else a search of the index's."""
    rec = hit.record
    if rec.project or not rec.session_id:
        return rec.project
    session = listed.sessions.get(session_key(rec.session_id, "")) if listed else None
    if session is not None and session.project:
        return session.project
    return index.index.project(rec.session_id) if index is not None else ""


def hit_state(hit: Hit, index: WorkspaceIndex) -> str:
    """The review state of a KPT item (``promoted`` when approved and promoted) or a
    proposal; ``""`` for anything else."""
    rec = hit.record
    if rec.kind in SECTIONS:
        st = index.ledger.state(index.located_key(rec.id, rec.path))
        return "promoted" if st.state == "approved" and st.promoted else st.state
    if rec.kind == "proposal":
        for facet in rec.facets:
            if facet.startswith("status="):
                return facet.partition("=")[2]
    return ""


def count_line(result: SearchResult) -> Content:
    """The results' status line: how many match, how many are shown, in what order."""
    about = "" if result.exact else "about "
    has_text = result.query is not None and bool(result.query.terms)
    what = "best first" if has_text else "most recurring first"
    return Content.assemble(
        Content(f"{about}{counted(result.total, 'match', 'matches')}"),
        Content.styled(
            f" · {len(result.hits)} shown, {what} · {result.elapsed * 1000:.0f} ms", "$text-muted"
        ),
    )


def hit_preview(
    hit: Hit,
    *,
    name: str,
    where: str,
    project: str,
    state: str,
    terms: list[str],
    others: Iterable[SearchRecord] | None,
) -> Content:
    """A hit's record whole, literally, the ``terms`` highlighted: its kind and ``name``,
    ``where`` it is, its date, project, review ``state`` and facets, its fields, and the
    ``others`` of its group (``None``: a hit of one record)."""
    rec = hit.record
    kind = Content.styled(KIND_LABELS.get(rec.kind, rec.kind), "bold $text-secondary")
    parts = [Content.assemble(kind, "  ", literal(name, "bold")), literal(where, "$text-muted")]
    facets = [f for f in rec.facets if not (state and f.startswith("status="))]
    meta = [x for x in (rec.date, project, state, *facets) if x]
    if meta:
        parts.append(literal(" · ".join(meta), "$text-muted"))
    if hit.count > 1:
        what = f"recorded {hit.count} times (near-identical records are one hit)"
        parts.append(Content.styled(what, "$warning"))
    parts.append(Content(""))
    for label, value in zip(rec.fields[::2], rec.fields[1::2], strict=False):
        parts.append(literal(f"{label}:", "bold $text-primary", keep_newlines=False))
        parts += [
            highlighted(line, highlight_spans(line, terms)) for line in value.splitlines() or [""]
        ]
    if others is not None:
        parts += [Content(""), Content.styled("Also recorded as", "bold")]
        for other in others:
            if other is not rec:
                line = f"  {other.date[:10]}  {other.id}  {short_project(other.project)}"
                parts.append(literal(line, "$text-muted"))
    return Content("\n").join(parts)
