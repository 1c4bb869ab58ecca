"""Seed 003's effect metrics (効果測定) from what the workspace holds, each with its counts or
why it cannot be computed. The reductions compare the earliest ``n // 2`` reports with the
latest: a change over time, not an effect of skills (reports do not say which were loaded)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from store.index.heads import ReportHead
from store.insight.matching import load_knowledge
from store.models import Feedback
from store.read.counted import counted
from store.read.isotime import parse_time
from store.read.kinds import Kind
from store.workspace import Workspace

if TYPE_CHECKING:
    from store.index.workspace_index import WorkspaceIndex


@dataclass(frozen=True, slots=True)
class Metric:
    """One effect metric: its value, or ``None`` with the reason it cannot be computed."""

    name: str
    value: float | int | None
    basis: str
    supported: bool

    @property
    def shown(self) -> str:
        """The value as the views print it: ``n/a``, a count as it is, a float to 3 places."""
        v = self.value
        return "n/a" if v is None else f"{v:.3f}" if isinstance(v, float) else str(v)


def _ok(name: str, value: float | int, basis: str) -> Metric:
    return Metric(name, value, basis, True)


def _no(name: str, basis: str) -> Metric:
    return Metric(name, None, basis, False)


def _used_skills(fb: Feedback) -> bool:
    name = fb.context.skill_name if fb.context else None
    if isinstance(name, str) and name.strip():
        return True
    used: Any = (fb.extracted or {}).get("skills_used")
    return isinstance(used, list) and len(used) > 0


def _rate(name: str, group: list[Feedback], label: str) -> Metric:
    known = [fb.outcome.success for fb in group if fb.outcome and fb.outcome.success is not None]
    unknown = len(group) - len(known)
    missing = f"; {unknown} without outcome.success left out" if unknown else ""
    if not known:
        return _no(
            name,
            f"no feedback task {label} records outcome.success ({len(group)} in the group)",
        )
    wins = sum(1 for s in known if s)
    return _ok(
        name,
        wins / len(known),
        f"{wins} of {counted(len(known), 'feedback task')} {label} "
        f"{'has' if wins == 1 else 'have'} outcome.success true{missing}",
    )


def _feedback_metrics(index: WorkspaceIndex) -> tuple[list[Metric], int]:
    files = [f for f in index.files.values() if f.kind is Kind.FEEDBACK]
    docs = [f.doc for f in files if isinstance(f.doc, Feedback)]
    unreadable = len(files) - len(docs)
    skipped = f"; {counted(unreadable, 'unreadable feedback file')} left out" if unreadable else ""
    with_skills = [fb for fb in docs if _used_skills(fb)]
    without = [fb for fb in docs if not _used_skills(fb)]
    total = len(docs)
    out = [
        _ok("total_tasks", total, f"{counted(total, 'feedback file')}{skipped}"),
        _ok(
            "skills_loaded",
            len(with_skills),
            f"{len(with_skills)} of {counted(total, 'feedback task')} set context.skill_name "
            "or list extracted.skills_used",
        ),
    ]
    if total:
        out.append(
            _ok(
                "skill_hit_rate",
                len(with_skills) / total,
                f"{len(with_skills)} of {counted(total, 'feedback task')} used skills{skipped}",
            )
        )
    else:
        out.append(_no("skill_hit_rate", f"no feedback files to count{skipped}"))
    out.append(_rate("first_try_success_rate_with_skills", with_skills, "that used skills"))
    out.append(_rate("first_try_success_rate_without_skills", without, "without skills"))
    latency = sum(1 for fb in docs if fb.metrics and fb.metrics.latency_ms is not None)
    return out, latency


def _token_savings(ws: Workspace) -> Metric:
    name = "estimated_token_savings"
    skills = [s for s, _p in load_knowledge(ws).skills]
    both = [
        s.stats
        for s in skills
        if s.stats and s.stats.times_loaded is not None and s.stats.avg_tokens_saved is not None
    ]
    if not both:
        return _no(
            name,
            f"none of {counted(len(skills), 'skill')} records both stats.times_loaded "
            "and stats.avg_tokens_saved",
        )
    total = sum((st.times_loaded or 0) * (st.avg_tokens_saved or 0.0) for st in both)
    value: float | int = int(total) if float(total).is_integer() else float(total)
    return _ok(
        name,
        value,
        f"sum of stats.times_loaded × stats.avg_tokens_saved over {len(both)} of "
        f"{counted(len(skills), 'skill')} that record both (the skills' own estimates)",
    )


def _kpt_series(index: WorkspaceIndex) -> list[tuple[datetime, ReportHead]]:
    """Reports with a readable ``created_at``, oldest first (from the index's heads)."""
    out = []
    for f in index.files.values():
        if f.head is not None and (when := parse_time(f.head.created_at)) is not None:
            out.append((when, f.head))
    out.sort(key=lambda pair: (pair[0], pair[1].id or ""))
    return out


def _reduction(
    name: str, field: str, what: str, series: list[tuple[datetime, ReportHead]]
) -> Metric:
    # the index's head keeps metrics.backtrack_count as backtracks, correction_count as corrections
    counts = [v for _when, report in series if (v := getattr(report, what)) is not None]
    n = len(counts)
    if n < 2:
        return _no(
            name,
            f"needs at least 2 KPT reports with metrics.{field} and a readable created_at "
            f"to compare earlier and later sessions; found {n}",
        )
    half = n // 2
    early, late = counts[:half], counts[n - half :]
    middle = "; the middle report left out" if n % 2 else ""
    e_sum, l_sum = sum(early), sum(late)
    e_avg, l_avg = e_sum / half, l_sum / half
    span = (
        f"metrics.{field} per session, earliest {half} vs latest {half} of {n} KPT reports "
        f"by created_at{middle}: {e_avg:.2f} → {l_avg:.2f} {what} ({e_sum} → {l_sum})"
    )
    if e_sum == 0:
        return _no(name, f"{span}; no {what} in the earlier sessions, so no rate of reduction")
    return _ok(
        name,
        (e_avg - l_avg) / e_avg,
        f"{span}; a change over time, not attributed to skills",
    )


def effect_metrics(source: Workspace | WorkspaceIndex) -> list[Metric]:
    """Seed 003's effect metrics for the workspace (read through its index: from the index
    cache when it is current), each with its basis."""
    from store.index.workspace_index import WorkspaceIndex

    if isinstance(source, WorkspaceIndex):
        index = source
    else:
        index = WorkspaceIndex(source)
        index.load_all()
    metrics, latency = _feedback_metrics(index)
    metrics.append(_token_savings(index.ws))
    metrics.append(_no("estimated_cost_savings_usd", "no token price is recorded in the workspace"))
    series = _kpt_series(index)
    metrics.append(_reduction("retry_reduction", "backtrack_count", "backtracks", series))
    metrics.append(
        _reduction("human_correction_reduction", "correction_count", "corrections", series)
    )
    metrics.append(
        _no(
            "time_savings",
            "no task durations with and without skills are recorded (feedback "
            f"metrics.latency_ms is set on {latency} of the tasks, with nothing to compare to)",
        )
    )
    return metrics


def as_json(metrics: list[Metric]) -> list[dict[str, object]]:
    """The metrics as JSON-ready mappings, in order."""
    return [asdict(m) for m in metrics]
