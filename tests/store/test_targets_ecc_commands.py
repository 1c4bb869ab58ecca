"""Code spans of other languages are not commands (issue 39): everything-claude-code's rules
for Kotlin, C#, Ruby and ArkTS and a skill's token arithmetic, kept as a ``~/.claude`` in
tests/fixtures/ecc-home (see its SOURCE.md). Only the real programs missing here are stale."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from store.config import Config
from store.insight import staleness
from store.insight.target_report import TargetsCache, build_report
from store.workspace import Workspace
from tests.conftest import FIXTURES


def test_keywords_types_and_arithmetic_are_not_programs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "claude"
    shutil.copytree(FIXTURES / "ecc-home", root)
    monkeypatch.setattr(staleness.shutil, "which", lambda name: None)  # nothing installed
    report = build_report(Workspace(root, Config()), cache=TargetsCache())
    found = sorted(
        (f.path.relative_to(root).as_posix(), f.line, f.message.split(",")[0])
        for f in report.findings
        if f.kind == "stale-command"
    )
    assert found == [
        ("rules/csharp/coding-style.md", 70, "runs `dotnet`"),
        ("skills/safety-guard/SKILL.md", 73, "runs `codex`"),  # `codex -a never`: a program
    ]


def test_library_ids_and_logs_written_are_no_stale_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """documentation-lookup names Context7 library ids (`/vercel/next.js`), safety-guard the
    log it writes (`~/.claude/safety-guard.log`); a path under a machine's folders that is
    gone still is stale."""
    root = tmp_path / "claude"
    shutil.copytree(FIXTURES / "ecc-home", root)
    monkeypatch.setattr(staleness.shutil, "which", lambda name: None)
    monkeypatch.setattr("sys.platform", "linux")
    (root / "rules/gone.md").write_text("- Read `/etc/zzq-gone/app.conf` first\n", encoding="utf-8")
    report = build_report(Workspace(root, Config()), cache=TargetsCache())
    found = sorted(
        (f.path.relative_to(root).as_posix(), f.line, f.message.split(",")[0])
        for f in report.findings
        if f.kind in ("stale-path", "stale-command")
    )
    assert found == [
        ("rules/csharp/coding-style.md", 70, "runs `dotnet`"),
        ("rules/gone.md", 1, "names /etc/zzq-gone/app.conf"),
        ("skills/safety-guard/SKILL.md", 73, "runs `codex`"),
    ]
