"""Knowledge-base documents rendered (skill, pattern, anti-pattern, project memory): their
fields, evidence and stats; the screen's Markdown widgets show their Markdown parts."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel
from textual.content import Content
from textual.widgets.option_list import Option

from store.index.entries import IndexedFile
from store.models.knowledge import AntiPattern, Evidence, Pattern, ProjectMemory, Skill
from store.read.diagnostics import Diagnostic

from .diagnostics import diagnostic_line
from .document import field as field_line
from .document import heading, label, lines, value_text
from .literal import literal


def diagnostics_view(diags: list[Diagnostic]) -> Content:
    return lines(diagnostic_line(d, columns=True, keep_newlines=True) for d in diags)


def _text_block(title: str, text: str | None) -> list[Content]:
    return [Content(""), heading(title), literal(text.rstrip("\n")) if text else Content("—")]


def evidence_view(evidence: list[Evidence] | None) -> list[Content]:
    out: list[Content] = [Content(""), heading("Evidence")]
    if not evidence:
        return [*out, Content.styled("none recorded", "$text-muted")]
    for ev in evidence:
        where = " · ".join(x for x in (ev.project, ev.task) if x) or "?"
        parts = [Content("• "), literal(where, "bold")]
        if ev.result:
            parts += [Content(" → "), literal(ev.result, "$success")]
        if ev.error:
            parts += [Content(" → "), literal(ev.error, "$error")]
        extra = ev.model_extra or {}
        if extra:
            parts += [Content("  "), literal(value_text(extra), "dim")]
        out.append(Content.assemble(*parts))
    return out


def extra_fields(doc: BaseModel) -> list[Content]:
    extra = doc.model_extra or {}
    if not extra:
        return []
    return [Content(""), heading("Other fields"), *(field_line(k, v) for k, v in extra.items())]


def skill_fields(s: Skill) -> Content:
    out = [
        field_line("version", s.version),
        field_line("created_at", s.created_at),
        field_line("updated_at", s.updated_at),
        Content(""),
        heading("Triggers"),
    ]
    t = s.triggers
    out += [
        field_line("keywords", t.keywords if t else None),
        field_line("file_patterns", t.file_patterns if t else None),
        field_line("task_types", t.task_types if t else None),
    ]
    if t is not None and t.model_extra:
        out += [field_line(k, v) for k, v in t.model_extra.items()]
    out += [Content(""), heading("Content")]
    return lines(out)


def skill_after(s: Skill) -> Content:
    st = s.stats
    rate = st.success_rate if st else None
    rate_text = f"{rate:g} ({rate:.0%})" if isinstance(rate, (int, float)) else "—"
    out = [
        heading("Stats"),
        field_line("times_loaded", st.times_loaded if st else None),
        Content.assemble(label("success_rate"), literal(rate_text)),
        field_line("avg_tokens_saved", st.avg_tokens_saved if st else None),
    ]
    if st is not None and st.model_extra:
        out += [field_line(k, v) for k, v in st.model_extra.items()]
    out += extra_fields(s)
    return lines(out)


def pattern_fields(p: Pattern | AntiPattern) -> Content:
    out = [field_line("type", p.type)]
    if p.tags:
        out.append(field_line("tags", p.tags))
    out += _text_block("Context", p.context)
    return lines(out)


def anti_after(a: AntiPattern) -> Content:
    out = _text_block("Why it is bad", a.why_bad)[1:]
    out += evidence_view(a.evidence)
    out += extra_fields(a)
    return lines(out)


def memory_view(m: ProjectMemory) -> Content:
    out = [field_line("last_updated", m.last_updated), Content(""), heading("Preferences")]
    if m.preferences:
        for cat, values in m.preferences.items():
            out.append(Content.assemble(literal(str(cat), "bold $text-secondary")))
            if isinstance(values, list):
                out += [literal(f"  • {value_text(v)}") for v in values]
            else:
                out.append(literal(f"  {value_text(values)}"))
    else:
        out.append(Content.styled("none", "$text-muted"))
    out += [Content(""), heading("Learned behaviors")]
    for b in m.learned_behaviors or []:
        out.append(
            Content.assemble(
                Content("• "),
                literal(b.trigger or "?", "bold"),
                Content.styled(" → ", "$accent"),
                literal(b.behavior or "?"),
            )
        )
        if b.reason:
            out.append(Content.assemble(Content("  "), literal(f"reason: {b.reason}", "dim")))
        if b.model_extra:
            out.append(Content.assemble(Content("  "), literal(value_text(b.model_extra), "dim")))
    if not m.learned_behaviors:
        out.append(Content.styled("none", "$text-muted"))
    out += [Content(""), heading("Known issues")]
    for issue in m.known_issues or []:
        out.append(Content.assemble(Content("• "), literal(issue.description or "?")))
        if issue.workaround:
            out.append(
                Content.assemble(
                    Content("  "), label("workaround"), literal(issue.workaround, "$success")
                )
            )
    if not m.known_issues:
        out.append(Content.styled("none", "$text-muted"))
    out += extra_fields(m)
    return lines(out)


def related_options(
    ids: list[str], paths: list[Path | None], files: Mapping[Path, IndexedFile]
) -> list[Option]:
    """A skill's related skills (``rel-N``), each with the file found for it (``None``:
    not in the knowledge base, and not selectable)."""
    if not ids:
        return [Option(Content.styled("none", "$text-muted"), disabled=True)]
    out = []
    for i, (sid, path) in enumerate(zip(ids, paths, strict=True)):
        if path is None:
            prompt = Content.assemble(
                literal(str(sid), "dim"),
                Content.styled("  (not in the knowledge base)", "dim italic"),
            )
            out.append(Option(prompt, id=f"rel-{i}", disabled=True))
            continue
        target = files.get(path)
        name = getattr(target.doc, "name", None) if target else None
        prompt = Content.assemble(
            Content.styled("→ ", "$accent"),
            literal(str(sid), "bold"),
            literal(f"  {name}", "dim") if isinstance(name, str) else Content(""),
        )
        out.append(Option(prompt, id=f"rel-{i}"))
    return out
