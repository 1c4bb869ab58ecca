"""How an item's evidence check looks (from :mod:`store.insight.evidence`): a row's mark,
the detail's section, and the report's metrics beside the transcript's counts."""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content

from store.insight.evidence import EvidenceCheck, EvidenceState, MetricRow
from store.insight.turn_numbering import SHORT

from .literal import literal

#: state → (mark, words, style)
STATES: dict[EvidenceState, tuple[str, str, str]] = {
    "found": ("◆", "evidence found", "$success"),
    "partial": ("◇", "evidence partly found", "$warning"),
    "not_found": ("✗", "evidence not found", "bold $error"),
    "no_transcript": ("–", "no transcript", "$text-muted"),
    "unchecked": ("·", "nothing to check", "$text-muted"),
}


def evidence_mark(check: EvidenceCheck | None) -> Content:
    """Two cells to put before an item's description (empty when there is no check)."""
    if check is None:
        return Content("")
    mark, _words, style = STATES[check.state]
    return Content.styled(f"{mark} ", style)


def evidence_words(check: EvidenceCheck | None) -> Content:
    """The state in words: ``✗ evidence not found``."""
    if check is None:
        return Content.styled("evidence: checking…", "$text-muted")
    mark, words, style = STATES[check.state]
    return Content.styled(f"{mark} {words}", style)


def evidence_detail(check: EvidenceCheck | None) -> Content:
    """The detail pane's section: the state, the turns cited (and in which numbering), each
    name and where it appears, and the notes."""
    if check is None:
        return Content("")
    lines: list[Content] = [evidence_words(check)]
    if check.cited:
        cited = ", ".join(str(n) for n in check.cited[:20])
        more = f" … ({len(check.cited)})" if len(check.cited) > 20 else ""
        parts = [Content.styled("  cites turn ", "$text-muted"), Content(cited + more)]
        if check.state != "no_transcript":
            parts.append(Content.styled(f"  ({SHORT[check.numbering]})", "$text-muted"))
        lines.append(Content.assemble(*parts))
        if check.missing_turns:
            past = ", ".join(str(n) for n in check.missing_turns[:8])
            text = f"  past the end: {past} (the session has {check.turns})"
            lines.append(Content.styled(text, "$error"))
    for name, turns in check.names.items():
        where = (
            Content.styled("in turn " + ", ".join(map(str, turns[:10])), "$success")
            if turns
            else Content.styled("never in the session", "$error")
        )
        if name in check.outside:
            where = Content.assemble(where, Content.styled(", not in the cited turns", "$warning"))
        lines.append(Content.assemble("  ", literal(name, keep_newlines=False), ": ", where))
    for note in check.notes:
        lines.append(Content.assemble("  ", literal(note, "italic", keep_newlines=False)))
    if check.view_turns and check.state not in ("no_transcript", "not_found"):
        shown = ", ".join(str(n) for n in check.view_turns[:8])
        lines.append(
            Content.styled(f"  (the transcript tab shows them as turn {shown})", "$text-muted")
            if check.numbering != "message"
            else Content.styled("  (the transcript tab shows the cited turns)", "$text-muted")
        )
    return Content("\n").join(lines)


def metrics_comparison(rows: Sequence[MetricRow]) -> Content:
    """``metric  reported  counted``, a difference marked ``≠`` in the warning colour."""
    if not rows:
        return Content.styled("No transcript to count from.", "$text-muted")
    width = max(len(r.name) for r in rows)
    lines = [Content.styled(f"{'metric':<{width}}  {'report':>8}  {'transcript':>10}", "bold")]
    notes: list[Content] = []
    for r in rows:
        reported = r.shown(r.reported)
        counted = r.shown(r.counted)
        text = f"{r.name:<{width}}  {reported:>8}  {counted:>10}"
        if r.differs:
            lines.append(
                Content.assemble(literal(text, "$warning"), Content.styled(" ≠", "bold $warning"))
            )
        elif r.other:
            lines.append(Content.assemble(literal(text), Content.styled(" ~", "$text-muted")))
            notes.append(
                Content.styled(
                    f"~ {r.name}: the report's {reported} is {r.other}; counted as {r.definition}",
                    "$text-muted",
                )
            )
        else:
            lines.append(literal(text))
    return Content("\n").join(lines + notes)
