"""Workspace statistics for the screen and ``stats --json``; recurring problems are
descriptions clustered with rapidfuzz (spaced and unspaced scripts alike)."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from rapidfuzz import fuzz, process

from store.index.sessions import Session
from store.index.workspace_index import WorkspaceIndex
from store.ledger import ItemState, item_key
from store.read.isotime import utc_time
from store.read.kinds import Kind
from store.search.text import gist_key as normalise

SIMILAR = 65.0


@dataclass(slots=True)
class Occurrence:
    report_id: str
    item_id: str
    session_key: str
    when: datetime
    description: str


@dataclass(slots=True)
class Cluster:
    occurrences: list[Occurrence] = field(default_factory=list)
    promoted_at: datetime | None = None
    promoted_items: list[str] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.occurrences)

    @property
    def recurred_after_promotion(self) -> bool | None:
        if self.promoted_at is None:
            return None
        return any(o.when > self.promoted_at for o in self.occurrences)

    def as_dict(self) -> dict[str, Any]:
        return {
            "description": self.occurrences[0].description,
            "count": self.count,
            "sessions": sorted({o.session_key for o in self.occurrences}),
            "items": [f"{o.report_id}/{o.item_id}" for o in self.occurrences],
            "promoted_items": self.promoted_items,
            "promoted_at": self.promoted_at.isoformat() if self.promoted_at else None,
            "recurred_after_promotion": self.recurred_after_promotion,
        }


def cluster_texts(texts: list[str]) -> list[list[int]]:
    """Indexes of ``texts`` grouped greedily: each joins the leader it is most like when
    that reaches :data:`SIMILAR` (earliest on a tie), else leads a cluster."""
    leaders: list[str] = []
    groups: list[list[int]] = []
    for i, t in enumerate(texts):
        n = normalise(t)
        best = -1
        if leaders:
            hits = [
                hit
                for scorer in (fuzz.ratio, fuzz.token_set_ratio)
                if (hit := process.extractOne(n, leaders, scorer=scorer, score_cutoff=SIMILAR))
            ]
            if hits:
                top = max(hit[1] for hit in hits)
                best = min(hit[2] for hit in hits if hit[1] == top)
        if best >= 0:
            groups[best].append(i)
        else:
            leaders.append(n)
            groups.append([i])
    return groups


def _sessions(index: WorkspaceIndex) -> list[Session]:
    """In a stable order (ties in the figures then come out the same every time)."""
    return sorted(index.sessions.values(), key=lambda s: s.key)


def _by_count(c: Counter[str]) -> dict[str, int]:
    return dict(sorted(c.items(), key=lambda kv: (-kv[1], kv[0])))


def recurring_problems(index: WorkspaceIndex, min_count: int = 2) -> list[Cluster]:
    occ: list[Occurrence] = []
    fixes: dict[str, list[tuple[str, datetime]]] = {}
    for s in _sessions(index):
        if not s.report or not s.report.head.id:
            continue
        rep = s.report.head
        rkey = index.report_key(s) or ""
        when = s.sort_time
        for item in rep.problems:
            if item.id and item.description:
                occ.append(Occurrence(rkey, item.id, s.key, when, item.description))
        for t in rep.tries:
            if not t.id:
                continue
            st = index.ledger.state(f"{rkey}/{t.id}")
            if not st.promoted:
                continue
            at = (
                min(utc_time(str(p.get("at"))) for p in st.promoted)
                if any(p.get("at") for p in st.promoted)
                else utc_time(st.at)
            )
            for addressed in t.addresses:
                fixes.setdefault(f"{rkey}/{addressed}", []).append((f"{rkey}/{t.id}", at))
    occ.sort(key=lambda o: o.when)
    clusters = []
    for group in cluster_texts([o.description for o in occ]):
        c = Cluster([occ[i] for i in group])
        for o in c.occurrences:
            for key, at in fixes.get(f"{o.report_id}/{o.item_id}", []):
                c.promoted_items.append(key)
                c.promoted_at = at if c.promoted_at is None else min(c.promoted_at, at)
        if c.count >= min_count:
            clusters.append(c)
    clusters.sort(key=lambda c: (-c.count, c.occurrences[0].when))
    return clusters


@dataclass(frozen=True, slots=True)
class WorkspaceCounts:
    """How much the workspace holds, and where its review stands."""

    sessions: int
    kpt_reports: int
    #: KPT items by review state (``pending``, ``approved``, ``rejected``) and how many of
    #: them were promoted (``promoted``, counted among the others as well)
    items: dict[str, int]
    lessons: int
    inbox_pending: int
    files_with_errors: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


#: The review states an item is counted in, in the order they are shown (a promoted item is
#: counted among the approved as well, as ``status:approved`` finds it)
ITEM_STATES = ("pending", "approved", "rejected", "contested", "promoted")


def lesson_count(index: WorkspaceIndex) -> int:
    """Every lesson of the lessons files, as the lessons list and search have them: those
    of no session, with an id of another format or none, too."""
    return sum(
        f.records.kinds.count("L")
        for f in index.files.values()
        if f.kind is Kind.LESSONS and f.records is not None
    )


def workspace_counts(index: WorkspaceIndex) -> WorkspaceCounts:
    states: dict[str, int] = dict.fromkeys(ITEM_STATES, 0)
    for s in index.sessions.values():
        for k in index.item_keys(s):
            st = index.ledger.state(k)
            states[st.state] += 1
            states["promoted"] += bool(st.promoted)
    return WorkspaceCounts(
        sessions=len(index.sessions),
        kpt_reports=sum(1 for s in index.sessions.values() if s.report),
        items=states,
        lessons=lesson_count(index),
        inbox_pending=index.inbox_pending(),
        files_with_errors=len(index.error_files()),
    )


def workspace_stats(index: WorkspaceIndex) -> dict[str, Any]:
    outcomes: defaultdict[str, Counter[str]] = defaultdict(Counter)
    categories: Counter[str] = Counter()
    impacts: Counter[str] = Counter()
    tries: Counter[str] = Counter()
    for s in _sessions(index):
        if not s.report:
            continue
        rep = s.report.head
        if s.sort_time.year > 1:
            week = s.sort_time.strftime("%G-W%V")
            outcomes[week][(rep.outcome or "unknown").lower()] += 1
        for p in rep.problems:
            categories[(p.category or "unknown").lower()] += 1
            impacts[(p.impact or "unknown").lower()] += 1
        for t in rep.tries:
            key = item_key(index.report_key(s), t.id)  # an id-less item: pending
            st = index.ledger.state(key) if key else ItemState()
            tries[st.state] += 1
            if st.promoted:  # (as for every item: counted among the others too)
                tries["promoted"] += 1
    evaluations = []
    for s in _sessions(index):
        sm = s.summary.head if s.summary else None
        if sm is None or not sm.evaluated:
            continue
        evaluations.append(
            {"date": sm.date, "session": s.key, "ai_mean": sm.ai_mean, "user": sm.user_score}
        )
    evaluations.sort(key=lambda e: utc_time(str(e["date"])))
    return {
        "outcomes_per_week": {w: dict(c) for w, c in sorted(outcomes.items())},
        "problem_categories": _by_count(categories),
        "problem_impact": _by_count(impacts),
        "try_items": {k: tries[k] for k in ITEM_STATES if tries[k]},
        "evaluation": evaluations,
        "recurring_problems": [c.as_dict() for c in recurring_problems(index)],
    }
