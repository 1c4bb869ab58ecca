"""Every target with its size, budget and findings, for the targets view and command. Reads
and secret scans are cached by file identity (:class:`TargetsCache`); the rest is afresh."""

from __future__ import annotations

import os
import threading
from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from itertools import combinations
from pathlib import Path
from typing import Any

from store.check.secrets import SecretHit, scan_text
from store.insight.budgets import (
    ADVICE_KINDS,
    ADVICE_LINES,
    NEAR,
    Budget,
    budget_for,
    past_budget,
)
from store.insight.duplicates import DuplicateGroup, find_duplicates, normalise
from store.insight.rule_times import days_since, rule_times
from store.insight.staleness import DEFAULT_STALE_DAYS, StaleChecker
from store.insight.targets import (
    Rule,
    TargetFile,
    TargetText,
    last_written,
    list_targets,
    read_target,
)
from store.ledger import Ledger
from store.read.counted import counted
from store.read.isotime import parse_time
from store.workspace import Workspace

_FINDING_KINDS_TEXT = (
    "budget duplicate stale-path stale-command elsewhere untouched secret unreadable"
)
FINDING_KINDS = tuple(_FINDING_KINDS_TEXT.split())


@dataclass(frozen=True, slots=True)
class Finding:
    kind: str
    path: Path
    line: int | None
    message: str
    severity: str = "warning"  # "error": secrets, over budget, unreadable; "info": elsewhere

    def as_json(self) -> dict[str, Any]:
        return {**asdict(self), "path": str(self.path)}


@dataclass(slots=True)
class TargetRow:
    """One target as listed."""

    file: TargetFile
    text: TargetText
    budget: Budget | None
    used: int
    last_written: str | None
    findings: list[Finding] = field(default_factory=list)

    @property
    def path(self) -> Path:
        return self.file.path

    def add(self, kind: str, line: int | None, message: str, severity: str = "warning") -> None:
        self.findings.append(Finding(kind, self.path, line, message, severity))

    @property
    def counts(self) -> dict[str, int]:
        c = Counter(f.kind for f in self.findings)
        return {k: c.get(k, 0) for k in FINDING_KINDS}

    def as_json(self, ws: Workspace) -> dict[str, Any]:
        t = self.text
        return {
            "path": str(self.path),
            "display": ws.display(self.path),
            "kind": self.file.kind,
            "project": str(self.file.project) if self.file.project else None,
            "lines": len(t.lines),
            "chars": t.chars,
            "tokens": t.tokens,
            "budget": self.budget.limit if self.budget else None,
            "budget_unit": self.budget.unit if self.budget else None,
            "used": self.used,
            "bullets": len(t.rules),
            "last_written": self.last_written,
            "error": t.error,
            "findings": self.counts,
        }


@dataclass(slots=True)
class TargetsReport:
    rows: list[TargetRow]
    duplicates: list[DuplicateGroup]
    stale_days: int

    @property
    def findings(self) -> list[Finding]:
        return [f for r in self.rows for f in r.findings]

    def row(self, path: Path) -> TargetRow | None:
        return next((r for r in self.rows if r.path == path), None)

    def duplicates_of(self, path: Path, line: int | None) -> tuple[list[Rule], Rule] | None:
        """The rule at ``path:line`` and its duplicates one session loads with it (what its
        finding names, in the group's order): what a merge may take out."""
        files = {r.path: r.file for r in self.rows}
        for group in self.duplicates:
            rule = next((r for r in group.rules if r.path == path and r.line == line), None)
            if rule is not None:
                here = files[rule.path]
                together = [o for o in group.rules if _loaded_together(here, files[o.path])]
                return together, rule
        return None

    def as_json(self, ws: Workspace) -> dict[str, Any]:
        return {
            "targets": [r.as_json(ws) for r in self.rows],
            "findings": [f.as_json() for f in self.findings],
            "duplicates": [g.as_json() for g in self.duplicates],
            "stale_days": self.stale_days,
        }


@dataclass(slots=True)
class _Cached:
    key: tuple[int, int, str]
    text: TargetText
    secrets: list[SecretHit]


class TargetsCache:
    """Targets read and scanned, by file identity (size, mtime, kind); thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._files: dict[Path, _Cached] = {}

    def get(self, tf: TargetFile) -> tuple[TargetText, list[SecretHit]]:
        try:
            st = os.stat(tf.path)
            key = (st.st_size, st.st_mtime_ns, tf.kind)
        except OSError:
            key = (-1, -1, tf.kind)
        with self._lock:
            hit = self._files.get(tf.path)
        if hit is not None and hit.key == key:
            if hit.text.file != tf:  # same bytes, found as another kind or project
                hit.text.file = tf
            return hit.text, hit.secrets
        text = read_target(tf)
        secrets = scan_text(text.text) if text.text else []
        with self._lock:
            self._files[tf.path] = _Cached(key, text, secrets)
        return text, secrets


#: The cache a process shares (the app and the CLI alike).
SHARED_CACHE = TargetsCache()


def build_report(
    ws: Workspace,
    *,
    ledger: Ledger | None = None,
    cache: TargetsCache | None = None,
    now: datetime | None = None,
) -> TargetsReport:
    """Every target with its findings."""
    cache = cache if cache is not None else SHARED_CACHE
    led = ledger if ledger is not None else Ledger(ws.state_dir)
    files = list_targets(ws, led)
    written = last_written(ws, led)
    stale_days = ws.config.stale_days or DEFAULT_STALE_DAYS
    checker = StaleChecker(ws.root)
    times = rule_times(ws, led)
    rows: list[TargetRow] = []
    for tf in files:
        text, secrets = cache.get(tf)
        budget = budget_for(ws, tf.kind)
        used = budget.measure(text.text) if budget else 0
        row = TargetRow(tf, text, budget, used, written.get(tf.path))
        _budget_finding(row)
        for s in secrets:
            row.add("secret", s.line, f"{s.label} {s.masked}", "error")
        if text.error is not None:
            row.add("unreadable", None, f"not read: {text.error}", "error")
        for ref in checker.check(text.rules, tf.project, text.text):
            if ref.what == "elsewhere":
                row.add("elsewhere", ref.rule.line, ref.message, "info")
            else:
                row.add(f"stale-{ref.what}", ref.rule.line, ref.message)
        _untouched(row, times.get(tf.path, {}), stale_days, now)
        rows.append(row)
    by_path = {r.path: r for r in rows}
    # a target linked to another (AGENTS.md -> CLAUDE.md) is that file: its rules once
    first: dict[str, Path] = {}
    unique = [r for r in rows if first.setdefault(os.path.realpath(r.path), r.path) == r.path]
    # Claude Code loads CLAUDE.md, rules and skills, Codex AGENTS.md: a rule in both is each
    # agent's own copy (takt-sdd keeps the two in step); a duplicate is of what one loads
    target = {r.path: r.file for r in unique}
    groups = [
        g
        for codex in (False, True)
        for g in find_duplicates(
            [rule for r in unique if (r.file.kind == "agents_md") == codex for rule in r.text.rules]
        )
        if any(
            _loaded_together(target[a.path], target[b.path]) for a, b in combinations(g.rules, 2)
        )
    ]
    for g in groups:
        for rule in g.rules:
            together = target.get(rule.path)
            others = [
                o
                for o in g.rules
                if o is not rule
                and (together is None or _loaded_together(together, target[o.path]))
            ]
            if not others:
                continue  # (in a group only through the global copy: beta's, to alpha's)
            where = ", ".join(f"{ws.display(o.path)}:{o.line}" for o in others[:3])
            more = f" and {len(others) - 3} more" if len(others) > 3 else ""
            what = "the same as" if g.exact else f"{g.score:.0f}% like"
            if (holder := by_path.get(rule.path)) is not None:
                holder.add("duplicate", rule.line, f"{what} {where}{more}")
    for r in rows:
        r.findings.sort(key=lambda f: (f.line or 0, f.kind))
    return TargetsReport(rows, groups, stale_days)


def _loaded_together(a: TargetFile, b: TargetFile) -> bool:
    """Whether one session may load both: not two projects' files, nor two skills (a skill
    is read when it is invoked, and each says all it needs: its steps are its own)."""
    if a.kind == b.kind == "skill_md" and a.path != b.path:
        return False
    return a.project is None or b.project is None or a.project == b.project


def _untouched(
    row: TargetRow, times: dict[str, str], stale_days: int, now: datetime | None
) -> None:
    """A rule a person put there through hurikaeri is as old as that, flagged on its own;
    any other is as old as its file, flagged once for the file."""
    text = row.text
    mtime = datetime.fromtimestamp(text.mtime, UTC) if text.mtime is not None else None
    written = [t for t in (mtime, parse_time(row.last_written)) if t is not None]
    file_days = days_since(max(written), now) if written else None
    by_file = 0
    for rule in text.rules:
        at = times.get(normalise(rule.text))
        if at is None:
            by_file += 1
            continue
        days = days_since(at, now)
        if days is not None and days > stale_days:
            row.add(
                "untouched",
                rule.line,
                f"promoted {counted(int(days), 'day')} ago (over {stale_days}) and not confirmed "
                "since: does it still hold?",
            )
    if by_file and file_days is not None and file_days > stale_days:
        row.add(
            "untouched",
            None,
            f"not written for {counted(int(file_days), 'day')} (over {stale_days}); "
            f"its {counted(by_file, 'rule')} may no longer hold",
        )


def _budget_finding(row: TargetRow) -> None:
    b = row.budget
    if b is None or not row.text.text:
        return
    lines = len(row.text.lines)
    advice = b.unit == "tokens" and row.file.kind in ADVICE_KINDS and lines <= ADVICE_LINES
    if row.used > b.limit and advice:
        row.add(
            "budget",
            None,
            f"{b.describe(row.used)}: over its token budget, but within Anthropic's "
            f"{ADVICE_LINES}-line advice ({counted(lines, 'line')}); every session pays for it",
        )
    elif row.used > b.limit:
        cut = past_budget(b, row.text.lines) + 1
        lost = " (the agent does not load the lines after it)" if b.unit == "lines" else ""
        row.add(
            "budget", cut, f"{b.describe(row.used)}: over budget from line {cut}{lost}", "error"
        )
    elif row.used >= NEAR * b.limit:
        row.add("budget", None, f"{b.describe(row.used)}: near its budget")


def stale_findings(report: TargetsReport) -> list[Finding]:
    """What ``targets --stale`` lists."""
    return [f for f in report.findings if f.kind in ("stale-path", "stale-command", "untouched")]
