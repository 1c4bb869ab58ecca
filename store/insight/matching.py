"""Which knowledge applies to a task: seed 003's ``SkillMatcher``, every score explained;
where the seed is silent (``_find_patterns``, ties, a missing rate): docs/review-desk.md."""

from __future__ import annotations

import fnmatch
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from store.models import AntiPattern, Pattern, Skill
from store.read.kinds import Kind
from store.read.loader import load_file
from store.workspace import Workspace

THRESHOLD = 0.5
TOP = 5
KEYWORD_TENTHS = 3
FILE_TENTHS = 2
TYPE_TENTHS = 2
_PLACES = 9

#: pattern_id words too common to say anything about a task.
_FILLER = frozenset(
    {"and", "are", "for", "from", "into", "not", "the", "use", "via", "when", "with", "without"}
)
_MIN_WORD = 3


@dataclass(frozen=True, slots=True)
class MatchTask:
    """What the matcher needs to know about a task (the seed's ``Task``)."""

    objective: str
    description: str = ""
    files: tuple[str, ...] = ()
    task_type: str | None = None

    @property
    def text(self) -> str:
        """The text keywords are looked for in, as the seed builds it."""
        return f"{self.objective} {self.description}"


@dataclass(frozen=True, slots=True)
class SkillScore:
    """One skill's relevance to a task, with every part of the score."""

    skill_id: str
    name: str | None
    path: Path
    keywords: tuple[str, ...]
    file_matches: tuple[tuple[str, str], ...]
    type_matched: bool
    raw: float
    success_rate: float
    success_rate_assumed: bool
    score: float
    kept: bool

    @property
    def keyword_points(self) -> float:
        return KEYWORD_TENTHS * len(self.keywords) / 10

    @property
    def file_points(self) -> float:
        return FILE_TENTHS * len(self.file_matches) / 10

    @property
    def type_points(self) -> float:
        return TYPE_TENTHS / 10 if self.type_matched else 0.0

    @property
    def capped(self) -> bool:
        """Whether the weighted points went over 1 (the score is then 1)."""
        return self.raw * self.success_rate > 1

    def as_dict(self) -> dict[str, object]:
        """A JSON-ready mapping of the score and its parts."""
        return {
            "skill_id": self.skill_id,
            "name": self.name,
            "path": str(self.path),
            "score": self.score,
            "kept": self.kept,
            "raw": self.raw,
            "keyword_points": self.keyword_points,
            "file_points": self.file_points,
            "type_points": self.type_points,
            "success_rate": self.success_rate,
            "success_rate_assumed": self.success_rate_assumed,
            "keywords": list(self.keywords),
            "file_matches": [list(pair) for pair in self.file_matches],
            "type_matched": self.type_matched,
        }


@dataclass(frozen=True, slots=True)
class PatternHit:
    """A pattern or anti-pattern that applies to a task, and the terms that made it apply."""

    pattern_id: str
    name: str | None
    kind: Literal["pattern", "anti_pattern"]
    path: Path
    reasons: tuple[str, ...]


@dataclass(slots=True)
class Knowledge:
    """The knowledge base's documents, each with the file it came from."""

    skills: list[tuple[Skill, Path]] = field(default_factory=list)
    patterns: list[tuple[Pattern, Path]] = field(default_factory=list)
    anti_patterns: list[tuple[AntiPattern, Path]] = field(default_factory=list)


def _in_knowledge(rel: Path) -> bool:
    """``global/**``, ``groups/**`` and ``projects/<id>/learned/**``; never ``inbox/``."""
    parts = rel.parts
    if len(parts) < 2:
        return False
    if parts[0] in ("global", "groups"):
        return True
    return parts[0] == "projects" and len(parts) >= 4 and parts[2] == "learned"


def load_knowledge(ws: Workspace) -> Knowledge:
    """Every skill, pattern and anti-pattern of the knowledge base (the inbox's proposals are
    not knowledge yet). A file whose document could not be loaded is skipped."""
    out = Knowledge()
    bases = ws.locations["knowledge_base"]
    for found in ws.discover():
        if found.kind is Kind.PROPOSAL:
            continue
        base = next((b for b in bases if found.path.is_relative_to(b)), None)
        if base is None or not _in_knowledge(found.path.relative_to(base)):
            continue
        loaded = load_file(found.path, found.kind, ws.display(found.path))
        doc = loaded.doc
        if isinstance(doc, Skill):
            out.skills.append((doc, found.path))
        elif isinstance(doc, AntiPattern):
            out.anti_patterns.append((doc, found.path))
        elif isinstance(doc, Pattern):
            out.patterns.append((doc, found.path))
    return out


def score_skill(skill: Skill, path: Path, task: MatchTask) -> SkillScore:
    """The seed's relevance of ``skill`` to ``task``, part by part."""
    triggers = skill.triggers
    keywords = (triggers.keywords if triggers else None) or []
    patterns = (triggers.file_patterns if triggers else None) or []
    types = (triggers.task_types if triggers else None) or []

    text = task.text.lower()
    found = tuple(k for k in keywords if k and k.lower() in text)
    pairs = tuple((p, f) for p in patterns for f in task.files if fnmatch.fnmatch(f, p))
    type_matched = task.task_type is not None and task.task_type in types

    tenths = KEYWORD_TENTHS * len(found) + FILE_TENTHS * len(pairs)
    tenths += TYPE_TENTHS if type_matched else 0

    rate = skill.stats.success_rate if skill.stats else None
    assumed = rate is None or not math.isfinite(rate)
    weight = 1.0 if assumed or rate is None else float(rate)
    score = round(min(tenths * weight / 10, 1.0), _PLACES)
    return SkillScore(
        skill_id=skill.skill_id or path.stem,
        name=skill.name,
        path=path,
        keywords=found,
        file_matches=pairs,
        type_matched=type_matched,
        raw=tenths / 10,
        success_rate=weight,
        success_rate_assumed=assumed,
        score=score,
        kept=score > THRESHOLD,
    )


def _order(s: SkillScore) -> tuple[float, str, str]:
    return (-s.score, s.skill_id, str(s.path))


def all_scores(k: Knowledge, task: MatchTask) -> list[SkillScore]:
    """Every skill's score, kept or not, best first (ties by skill id)."""
    return sorted((score_skill(s, p, task) for s, p in k.skills), key=_order)


def match(k: Knowledge, task: MatchTask, limit: int = TOP) -> list[SkillScore]:
    """The seed's ``find_relevant_skills``: kept skills only, best first, at most ``limit``."""
    return [s for s in all_scores(k, task) if s.kept][: max(limit, 0)]


@dataclass(frozen=True, slots=True)
class MatchResult:
    """One task matched: every skill's score (best first), the ids of the skills loaded
    (kept, best first, at most the limit) and the patterns that apply."""

    task: MatchTask
    scores: list[SkillScore]
    loaded: list[str]
    hits: list[PatternHit]

    @property
    def below(self) -> list[SkillScore]:
        """The skills that scored, but not above the threshold."""
        return [s for s in self.scores if s.score > 0 and not s.kept]


def match_task(k: Knowledge, task: MatchTask, limit: int = TOP) -> MatchResult:
    """Everything the matcher says about ``task``, computed once."""
    scores = all_scores(k, task)
    loaded = [s.skill_id for s in scores if s.kept][: max(limit, 0)]
    return MatchResult(task, scores, loaded, applicable_patterns(k, task))


def _occurs(term: str, haystacks: list[str]) -> bool:
    """``term`` (lowercase) in one of ``haystacks`` (lowercase), not glued to ASCII alnum."""
    rx = re.compile(rf"(?<![0-9A-Za-z]){re.escape(term)}(?![0-9A-Za-z])")
    return any(rx.search(hay) for hay in haystacks)


def _terms(pattern_id: str | None, tags: list[str] | None) -> list[tuple[str, list[str]]]:
    """Each term as shown in reasons, with the lowercase spellings that match it."""
    out: list[tuple[str, list[str]]] = []
    seen: set[str] = set()
    for tag in tags or []:
        low = tag.strip().lower()
        if not low or low in seen:
            continue
        seen.add(low)
        spaced = re.sub(r"[_-]+", " ", low)
        out.append((tag.strip(), [low] if spaced == low else [low, spaced]))
    if out:
        return out
    for word in (pattern_id or "").lower().split("_"):
        if len(word) < _MIN_WORD or word in _FILLER or word in seen:
            continue
        seen.add(word)
        out.append((word, [word]))
    return out


def _hit(
    doc: Pattern | AntiPattern,
    kind: Literal["pattern", "anti_pattern"],
    path: Path,
    haystacks: list[str],
) -> PatternHit | None:
    reasons = tuple(
        shown
        for shown, spellings in _terms(doc.pattern_id, doc.tags)
        if any(_occurs(s, haystacks) for s in spellings)
    )
    if not reasons:
        return None
    return PatternHit(doc.pattern_id or path.stem, doc.name, kind, path, reasons)


def applicable_patterns(k: Knowledge, task: MatchTask) -> list[PatternHit]:
    """Patterns and anti-patterns that apply to ``task`` by our rule (module docstring)."""
    haystacks = [task.text.lower(), *(f.lower() for f in task.files)]
    docs: list[tuple[Literal["pattern", "anti_pattern"], Pattern | AntiPattern, Path]]
    docs = [("pattern", p, path) for p, path in k.patterns]
    docs += [("anti_pattern", a, path) for a, path in k.anti_patterns]
    found = (_hit(d, kind, path, haystacks) for kind, d, path in docs)
    hits = [h for h in found if h is not None]
    kind_rank = {"pattern": 0, "anti_pattern": 1}
    hits.sort(key=lambda h: (-len(h.reasons), kind_rank[h.kind], h.pattern_id, str(h.path)))
    return hits
