"""Seed 003's skill matching laid out (every figure from :mod:`store.insight.matching`): a
skill's row, the summary, why it scored, the patterns."""

from __future__ import annotations

from textual.content import Content

from store.insight.matching import THRESHOLD, TOP, MatchResult, PatternHit, SkillScore
from store.models.knowledge import Skill

from .document import heading, label, lines
from .literal import literal


def _num(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".") if value else "0"


def _points(value: float) -> Content:
    return Content.styled(_num(value), "bold") if value else Content.styled("—", "dim")


def skill_cells(s: SkillScore, loads: bool) -> tuple[Content, ...]:
    if loads:
        kept = Content.styled("✓ loads", "bold $success")
        skill_style = "bold $success"
    elif s.kept:
        kept = Content.styled(f"✓ over {TOP}", "$warning")
        skill_style = "$warning"
    elif s.score > 0:
        kept = Content.styled("— below", "$warning")
        skill_style = ""
    else:
        kept = Content.styled("—", "dim")
        skill_style = "dim"
    rate = Content.styled(
        f"×{_num(s.success_rate)}{'?' if s.success_rate_assumed else ''}",
        "dim" if s.success_rate_assumed else "",
    )
    return (
        Content.styled(f"{s.score:.2f}", "bold $success" if loads else "" if s.score else "dim"),
        kept,
        literal(s.skill_id, skill_style, keep_newlines=False),
        _points(s.keyword_points),
        _points(s.file_points),
        _points(s.type_points),
        rate,
    )


def _scored(scores: list[SkillScore], style: str) -> Content:
    """``id 0.82, id 0.61``: skills with their scores, or ``none`` when there is none."""
    if not scores:
        return Content.styled("none", "$text-muted")
    return Content(", ").join(
        Content.assemble(
            literal(s.skill_id, style, keep_newlines=False),
            Content.styled(f" {s.score:.2f}", "dim"),
        )
        for s in scores
    )


def summary_view(result: MatchResult) -> Content:
    by_id = {s.skill_id: s for s in result.scores}
    loaded = [by_id[sid] for sid in result.loaded]
    return Content.assemble(
        Content.styled("Would load: ", "bold"),
        _scored(loaded, "bold $success") if loaded else Content.styled("nothing", "$text-muted"),
        Content.styled(f"   Scored ≤ {THRESHOLD}: ", "bold"),
        _scored(result.below, "$warning"),
    )


def why_view(s: SkillScore, skill: Skill | None, result: MatchResult, display: str) -> Content:
    """How the skill's score came about, part by part, and whether it loads."""
    triggers = skill.triggers if skill else None
    loaded = result.loaded
    out = [
        literal(s.skill_id, "bold"),
        literal(s.name or "", "dim"),
        literal(display, "dim italic"),
        Content(""),
    ]
    kw_all = (triggers.keywords if triggers else None) or []
    out.append(
        Content.assemble(
            label(f"keywords +{_num(s.keyword_points)}"),
            literal(", ".join(s.keywords), "$success")
            if s.keywords
            else Content.styled("none found", "dim"),
        )
    )
    if kw_all:
        out.append(literal(f"  of: {', '.join(kw_all)}", "dim"))
    out.append(label(f"files +{_num(s.file_points)}"))
    out += [
        Content.assemble(
            Content("  "),
            literal(f, "$success"),
            Content.styled(" ~ ", "dim"),
            literal(p),
        )
        for p, f in s.file_matches
    ]
    fp_all = (triggers.file_patterns if triggers else None) or []
    if not s.file_matches:
        out.append(
            literal(f"  none of: {', '.join(fp_all)}", "dim")
            if fp_all
            else Content.styled("  no file patterns", "dim")
        )
    types = (triggers.task_types if triggers else None) or []
    out.append(
        Content.assemble(
            label(f"type +{_num(s.type_points)}"),
            literal(result.task.task_type or "", "$success")
            if s.type_matched
            else literal(f"not matched; one of: {', '.join(types) or '—'}", "dim"),
        )
    )
    rate = (
        f"{_num(s.success_rate)} (no success_rate: assumed)"
        if s.success_rate_assumed
        else _num(s.success_rate)
    )
    out += [
        Content(""),
        Content.assemble(
            label("score"),
            Content(f"{_num(s.raw)} × {rate} = "),
            Content.styled(f"{s.score:.2f}", "bold"),
            Content.styled(" (capped at 1)" if s.capped else "", "dim"),
        ),
    ]
    if s.skill_id in loaded:
        verdict = Content.styled(
            f"✓ loads (#{loaded.index(s.skill_id) + 1} of at most {TOP})", "bold $success"
        )
    elif s.kept:
        verdict = Content.styled(f"kept, but only the best {TOP} are loaded", "bold $warning")
    elif s.score > 0:
        verdict = Content.styled(f"— below the threshold (needs more than {THRESHOLD})", "$warning")
    else:
        verdict = Content.styled("— no trigger matched", "dim")
    out.append(verdict)
    return lines(out)


def patterns_view(hits: list[PatternHit]) -> Content:
    out: list[Content] = []
    for kind, title, mark, style in (
        ("pattern", "Patterns", "✓", "$success"),
        ("anti_pattern", "Anti-patterns (avoid)", "✗", "$error"),
    ):
        group = [h for h in hits if h.kind == kind]
        out += [Content(""), heading(f"{title} ({len(group)})")]
        if not group:
            out.append(Content.styled("none apply", "$text-muted"))
        for h in group:
            out.append(
                Content.assemble(
                    Content.styled(f"{mark} ", f"bold {style}"),
                    literal(h.pattern_id, "bold", keep_newlines=False),
                )
            )
            if h.name:
                out.append(Content.assemble(Content("  "), literal(h.name, "dim")))
            out.append(
                Content.assemble(
                    Content.styled("  matched: ", "dim"),
                    literal(", ".join(h.reasons), "$accent"),
                )
            )
    return lines(out)
