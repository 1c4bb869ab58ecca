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
    ]
