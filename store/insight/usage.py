"""Is this rule working? The usage and effect of every rule and skill in Targets, from the
transcripts of its scope since it was written (#46, docs/usage.md)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from store.index.transcript_locator import TranscriptLocator
from store.insight.duplicates import normalise
from store.insight.rule_checks import GUARD_STEPS, RuleChecks, parse_rule, path_matches, program_of
from store.insight.rule_times import RuleTimes, rule_times
from store.insight.targets import TargetFile, list_targets, project_slug, read_target, ws_path
from store.insight.transcript_facts import FactsCache, SessionFacts
from store.ledger import Ledger
from store.located import plain_key
from store.read.counted import counted
from store.read.isotime import parse_time
from store.workspace import Workspace

#: a rule never relevant in this many of its scope's latest sessions is flagged unused
UNUSED_SESSIONS = 20
#: a skill not invoked for this many days is flagged
SKILL_DAYS = (30, 90)
#: the least days before a promotion its effect is compared with (else as long as since)
EFFECT_DAYS = 30
#: sessions named per rule as where it was broken
BROKEN_SHOWN = 5


@dataclass(slots=True)
class _Session:
    facts: SessionFacts
    start: datetime
    programs: frozenset[str]


@dataclass(slots=True)
class Effect:
    """Before and after a promotion, over equal spans of time."""

    promoted_at: str
    item: str
    #: the days before the promotion compared with (as many as since, at least 30)
    days: float
    problems_before: int | None = None
    problems_after: int | None = None
    kpt_sessions_before: int = 0
    kpt_sessions_after: int = 0
    corrections_before: int = 0
    corrections_after: int = 0
    sessions_before: int = 0
    sessions_after: int = 0

    def as_json(self) -> dict[str, Any]:
        return {
            "promoted_at": self.promoted_at,
            "item": self.item,
            "days": round(self.days, 1),
            "problems": {
                "before": self.problems_before,
                "after": self.problems_after,
                "kpt_sessions_before": self.kpt_sessions_before,
                "kpt_sessions_after": self.kpt_sessions_after,
            },
            "corrections": {
                "before": self.corrections_before,
                "after": self.corrections_after,
                "sessions_before": self.sessions_before,
                "sessions_after": self.sessions_after,
            },
        }


@dataclass(slots=True)
class Usage:
    """One rule's or skill's usage since it was written."""

    kind: str  # "rule" or "skill"
    path: Path
    line: int
    text: str
    scope: str
    written: str | None
    #: where ``written`` comes from: ``promoted`` (the ledger) or ``file modified``
    written_from: str
    sessions: int = 0
    #: ``None``: the rule names nothing a session could be matched by
    relevant: int | None = None
    check: str = "not checkable"
    followed: int | None = None
    #: the sessions ``followed`` is out of
    checked: int | None = None
    broken: list[str] = field(default_factory=list)
    #: what the rule names that sessions are matched by (commands, paths, tools)
    names: list[str] = field(default_factory=list)
    last_used: str | None = None
    effect: Effect | None = None
    flags: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """One line, as a promoted item's detail shows it."""
        parts = [f"{counted(self.sessions, 'session')} since written"]
        if self.relevant is None:
            parts.append("relevance not checkable")
        else:
            verb = "invoked" if self.kind == "skill" else "relevant"
            parts.append(f"{verb} in {self.relevant} of {self.sessions}")
        if self.checked:
            parts.append(f"followed {self.followed} of {self.checked}")
        elif self.checked == 0:
            step = "its step never ran" if self.check == "command" else "never relevant"
            parts.append(f"followed: nothing to check ({step})")
        elif self.kind == "rule":
            parts.append("following not checkable")
        e = self.effect
        if e is not None and e.problems_after is not None:
            parts.append(
                f"the problem came back {counted(e.problems_after, 'time')} in "
                f"{counted(e.kpt_sessions_after, 'report')}, "
                f"{counted(e.problems_before or 0, 'time')} in "
                f"{counted(e.kpt_sessions_before, 'report')} "
                f"of the {counted(round(e.days), 'day')} before"
            )
        if self.flags:
            parts.append(", ".join(self.flags))
        return " · ".join(parts)

    def as_json(self, ws: Workspace) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["path"] = ws.display(self.path)
        out["broken_in"] = out.pop("broken")
        out["effect"] = self.effect.as_json() if self.effect else None
        return out


@dataclass(slots=True)
class UsageReport:
    items: list[Usage]
    sessions: int
    bytes_read: int
    complete: bool = True

    def for_item(self, key: str) -> Usage | None:
        """The rule a promotion of item ``key`` (``KPT_ID/try-NNN``) put into a target."""
        key = plain_key(key)
        return next((u for u in self.items if u.effect and u.effect.item == key), None)

    def what_to_cut(self, path: Path) -> list[Usage]:
        """The rules of ``path`` least relevant first; those naming nothing to check last."""

        def order(u: Usage) -> tuple[int, float, int]:
            if u.relevant is None:
                return (2, 0.0, u.line)
            return (0 if u.flags else 1, u.relevant / max(u.sessions, 1), u.line)

        return sorted((u for u in self.items if u.kind == "rule" and u.path == path), key=order)

    def as_json(self, ws: Workspace) -> dict[str, Any]:
        return {
            "sessions": self.sessions,
            "complete": self.complete,
            "items": [u.as_json(ws) for u in self.items],
        }


# -- sessions ----------------------------------------------------------------------------


def session_facts(
    ws: Workspace,
    progress: Callable[[int, int], bool] | None = None,
    *,
    read: bool = True,
) -> tuple[list[SessionFacts], int, bool]:
    """Every transcript's facts, the bytes read and whether all were read; ``read=False``:
    the facts as last cached (quick, maybe stale)."""
    if not read:
        return FactsCache(ws.state_dir).cached(), 0, False
    files = [
        (sid, path)
        for sid, paths in sorted(TranscriptLocator(ws).files(rescan=True).items())
        for path in paths
    ]
    cache = FactsCache(ws.state_dir)
    try:
        facts = cache.update(files, progress)
    finally:  # interrupted too: the transcripts read so far need not be read again
        cache.save()
    return facts, cache.bytes_read, cache.complete


def _sessions(facts: list[SessionFacts]) -> list[_Session]:
    out = []
    for f in facts:
        start = parse_time(f.first)
        if start is None:
            continue
        programs = frozenset(p for c in f.commands for p in program_of(c))
        out.append(_Session(f, start, programs))
    out.sort(key=lambda s: s.start)
    return out


def _slug(tf: TargetFile) -> str | None:
    """The transcripts folder of a target's project (``None``: a global target)."""
    if tf.project is not None:
        return project_slug(tf.project)
    if tf.kind == "memory_md":
        return tf.path.parent.parent.name
    return None


# -- rules -------------------------------------------------------------------------------


def _relevant(c: RuleChecks, s: _Session) -> bool:
    f = s.facts
    if any(p in s.programs for p in c.programs):
        return True
    if any(t in f.tools for t in c.tools):
        return True
    return any(path_matches(r, p) for r in c.paths for p in (*f.read, *f.edited))


def _broke(c: RuleChecks, s: _Session) -> bool:
    f = s.facts
    if c.check == "path prohibition":
        return any(path_matches(r, p) for r in c.paths for p in f.edited)
    # a tool or command prohibition
    if any(t in f.tools for t in c.tools):
        return True
    return any(cmd in ran for cmd in c.commands for ran in f.commands)


def _followed(c: RuleChecks, s: _Session) -> bool | None:
    """A command rule: ``None`` when its step never ran in the session."""
    assert c.guard is not None
    step = s.facts.first_run(GUARD_STEPS[c.guard])
    if step is None:
        return None
    return any(s.facts.ran_before(cmd, step) for cmd in c.commands)


def _rule_usage(u: Usage, c: RuleChecks, scope: list[_Session]) -> None:
    u.check = c.check
    u.sessions = len(scope)
    u.names = [*c.commands, *c.paths, *c.tools]
    if not c.names_anything:
        return
    hits = [s for s in scope if _relevant(c, s)]
    u.relevant = len(hits)
    if hits:
        u.last_used = hits[-1].facts.last or hits[-1].facts.first
    if c.check == "command":
        results = [r for r in (_followed(c, s) for s in hits) if r is not None]
        u.followed, u.checked = sum(results), len(results)
    elif c.check != "not checkable":
        broken = [s for s in hits if _broke(c, s)]
        u.followed, u.checked = len(hits) - len(broken), len(hits)
        u.broken = [s.facts.session_id for s in broken[-BROKEN_SHOWN:]]
    latest = scope[-UNUSED_SESSIONS:]
    if len(latest) >= UNUSED_SESSIONS and not any(_relevant(c, s) for s in latest):
        u.flags.append(f"unused in the last {UNUSED_SESSIONS} sessions")


# -- skills ------------------------------------------------------------------------------


def _skill_name(path: Path, text: str) -> str:
    for line in text.splitlines()[1:30]:
        if line.strip() == "---":
            break
        if line.startswith("name:"):
            name = line[5:].strip().strip("'\"")
            if name:
                return name
    return path.parent.name


def _skill_usage(u: Usage, names: set[str], scope: list[_Session], now: datetime) -> None:
    u.check = "invoked"
    u.sessions = len(scope)
    hits = [
        s for s in scope if any(k in names or k.rsplit(":", 1)[-1] in names for k in s.facts.skills)
    ]
    u.relevant = len(hits)
    last = hits[-1].start if hits else None
    u.last_used = hits[-1].facts.first if hits else None
    written = parse_time(u.written)
    for days in SKILL_DAYS:
        since = now - timedelta(days=days)
        seen = any(s.start >= since for s in scope)  # no session then: nothing to tell
        if seen and (written is None or written <= since) and (last is None or last < since):
            u.flags.append(f"not invoked in {days} days")


# -- effect ------------------------------------------------------------------------------


@dataclass(slots=True)
class _Promotion:
    key: str
    at: datetime
    at_text: str


def _promotions(
    ledger: Ledger, ws: Workspace, times: RuleTimes
) -> dict[tuple[Path, str], _Promotion]:
    """(target file, normalised rule) → the item whose promotion put it there, and when."""
    out: dict[tuple[Path, str], _Promotion] = {}
    with ledger.lock:
        promoted = [(k, st.at, p) for k, st in ledger.states.items() for p in st.promoted]
    for item, decided, data in promoted:
        path, text = ws_path(ws, data.get("path")), data.get("text")
        if path is None or not isinstance(text, str):
            continue
        for line in text.splitlines() or [text]:
            key = (path, normalise(line.strip().lstrip("-*+ ").strip()))
            at_text = times.get(path, {}).get(key[1]) or data.get("at") or decided
            at = parse_time(at_text)
            if key[1] and at is not None and (key not in out or at < out[key].at):
                out[key] = _Promotion(plain_key(item), at, str(at_text))
    return out


#: item key → when each problem of the cluster it addressed was reported; when each KPT
#: report was written
_Problems = tuple[dict[str, list[datetime]], list[datetime]]


def _effect(promo: _Promotion, scope: list[_Session], problems: _Problems, now: datetime) -> Effect:
    span = max(now - promo.at, timedelta(days=EFFECT_DAYS))
    start = promo.at - span
    e = Effect(promo.at_text, promo.key, span.total_seconds() / 86400)
    for s in scope:
        if start <= s.start < promo.at:
            e.sessions_before += 1
            e.corrections_before += s.facts.corrections
        elif s.start >= promo.at:
            e.sessions_after += 1
            e.corrections_after += s.facts.corrections
    occurrences, kpt_sessions = problems[0].get(promo.key), problems[1]
    if occurrences is not None:  # its item addressed a problem
        e.problems_before = sum(1 for t in occurrences if start <= t < promo.at)
        e.problems_after = sum(1 for t in occurrences if t >= promo.at)
        e.kpt_sessions_before = sum(1 for t in kpt_sessions if start <= t < promo.at)
        e.kpt_sessions_after = sum(1 for t in kpt_sessions if t >= promo.at)
    return e


def _problems(ws: Workspace) -> _Problems:
    from store.index.workspace_index import WorkspaceIndex
    from store.insight.stats import recurring_problems

    index = WorkspaceIndex(ws)
    index.load_all()
    clusters = recurring_problems(index, min_count=1)
    reported = [s.sort_time for s in index.sessions.values() if s.report and s.report.head.id]
    by_item: dict[str, list[datetime]] = {}
    for c in clusters:
        for key in c.promoted_items:
            by_item.setdefault(plain_key(key), []).extend(o.when for o in c.occurrences)

    return by_item, reported


# -- the whole -----------------------------------------------------------------------------


def usage_report(
    ws: Workspace,
    *,
    ledger: Ledger | None = None,
    now: datetime | None = None,
    progress: Callable[[int, int], bool] | None = None,
    only: Path | None = None,
    read: bool = True,
) -> UsageReport:
    """Every rule's and skill's usage (``only``: targets under that path); reads
    transcripts, so run it in a worker (``read=False``: the facts last cached)."""
    led = ledger if ledger is not None else Ledger(ws.state_dir)
    now = now or datetime.now(UTC)
    facts, done, complete = session_facts(ws, progress, read=read)
    sessions = _sessions(facts)
    times = rule_times(ws, led)
    promotions = _promotions(led, ws, times)
    problems: _Problems | None = None
    items: list[Usage] = []
    for tf in list_targets(ws, led):
        if only is not None and not (tf.path == only or only in tf.path.parents):
            continue
        t = read_target(tf)
        if t.error is not None:
            continue
        slug = _slug(tf)
        mine = [s for s in sessions if slug is None or s.facts.project == slug]
        modified = datetime.fromtimestamp(t.mtime or 0, UTC)
        if tf.kind == "skill_md":
            u = Usage("skill", tf.path, 1, _skill_name(tf.path, t.text), tf.scope,
                      modified.isoformat(timespec="seconds"), "file modified")  # fmt: skip
            since = [s for s in mine if s.start >= modified]
            _skill_usage(u, {u.text}, since, now)
            items.append(u)
            continue
        kept = times.get(Path(os.path.abspath(tf.path)), {})
        for rule in t.rules:
            key = normalise(rule.text)
            at = kept.get(key)
            written = parse_time(at) or modified
            u = Usage("rule", tf.path, rule.line, rule.text, tf.scope,
                      written.isoformat(timespec="seconds"),
                      "promoted" if at else "file modified")  # fmt: skip
            since = [s for s in mine if s.start >= written]
            _rule_usage(u, parse_rule(rule.text), since)
            promo = promotions.get((Path(os.path.abspath(tf.path)), key))
            if promo is not None:
                problems = problems or _problems(ws)
                u.effect = _effect(promo, mine, problems, now)
            items.append(u)
    return UsageReport(items, len(sessions), done, complete)
