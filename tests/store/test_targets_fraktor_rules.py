"""A project whose ``.claude/rules`` is a link to ``.agents/rules`` (github:j5ik2o/fraktor-rs,
see tests/fixtures/fraktor-rules/SOURCE.md): read as linked; Rust's ``extern crate`` is no
program and ``foo/bar.rs`` an example's name, not a stale path (issue 39)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from store.config import Config
from store.insight import staleness
from store.insight.target_report import TargetsCache, build_report
from store.workspace import Workspace
from tests.conftest import FIXTURES


def test_rust_rules_name_code_and_example_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    proj = tmp_path / "fraktor-rs"
    shutil.copytree(FIXTURES / "fraktor-rules", proj, symlinks=True)
    for name in (".cargo/config.toml", "scripts/opsx-cli.sh", "scripts/ci-check.sh"):
        (proj / name).parent.mkdir(parents=True, exist_ok=True)  # as in the repository
        (proj / name).touch()
    monkeypatch.setattr(staleness.shutil, "which", lambda name: None)  # nothing installed
    ws = Workspace(tmp_path / "claude", Config(projects=[str(proj)]))
    report = build_report(ws, cache=TargetsCache())
    rules = proj / ".claude/rules"
    assert sorted(r.path.relative_to(rules).as_posix() for r in report.rows) == [
        "project.md",
        "rust/index.md",
    ]
    found = sorted(
        (f.path.relative_to(rules).as_posix(), f.line, f.message.split(",")[0])
        for f in report.findings
        if f.kind.startswith("stale-")
    )
    assert found == [("project.md", 21, "runs `mise`")]
