"""Duplicates between skills, on a real ``~/.claude`` (keito4/config, see the fixture's
SOURCE.md): two skills are never loaded as one, a skill and ``CLAUDE.md`` are."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from store.config import Config
from store.insight.target_report import TargetsCache, TargetsReport, build_report
from store.workspace import Workspace
from tests.conftest import FIXTURES


@pytest.fixture
def report(tmp_path: Path) -> TargetsReport:
    root = tmp_path / "claude"
    shutil.copytree(FIXTURES / "config-home", root, ignore=shutil.ignore_patterns("SOURCE.md"))
    return build_report(Workspace(root, Config()), cache=TargetsCache())


def _duplicates(report: TargetsReport) -> list[tuple[str, int | None, str]]:
    return [
        (f.path.parent.name if f.path.name == "SKILL.md" else f.path.name, f.line, f.message)
        for f in report.findings
        if f.kind == "duplicate"
    ]


def test_two_skills_with_the_same_steps_are_no_duplicates(report: TargetsReport) -> None:
    # before: 12 findings, codex-review:25-36 and gemini-review:25-36 each other's
    assert not [d for d in _duplicates(report) if d[0] in ("codex-review", "gemini-review")]


def test_a_skill_saying_again_what_claude_md_says_is_a_duplicate(report: TargetsReport) -> None:
    assert _duplicates(report) == [
        ("CLAUDE.md", 76, "the same as skills/ci-check/SKILL.md:59"),
        ("CLAUDE.md", 77, "the same as skills/ci-check/SKILL.md:60"),
        ("CLAUDE.md", 78, "the same as skills/ci-check/SKILL.md:61"),
        ("ci-check", 59, "the same as CLAUDE.md:76"),
        ("ci-check", 60, "the same as CLAUDE.md:77"),
        ("ci-check", 61, "the same as CLAUDE.md:78"),
    ]


def test_steps_that_differ_in_a_number_are_not_near_duplicates(tmp_path: Path) -> None:
    """takt-sdd's kiro-spec-quick: "Continue to Phase 2", "… Phase 3", "… Phase 4" (see
    tests/fixtures/takt-sdd-phases/SOURCE.md); the same step said again still is one."""
    proj = tmp_path / "takt-sdd"
    shutil.copytree(FIXTURES / "takt-sdd-phases", proj)
    skill = proj / ".claude/skills/kiro-spec-quick/SKILL.md"
    ws = Workspace(tmp_path / "claude", Config(projects=[str(proj)]))

    def near() -> list[list[int]]:
        groups = build_report(ws, cache=TargetsCache()).duplicates
        return [[r.line for r in g.rules] for g in groups if not g.exact]

    assert near() == []  # before: [[108, 124, 140]]
    with skill.open("a", encoding="utf-8") as f:
        f.write('\n- If "yes": Continue on to Phase 2\n')
    assert near() == [[108, 264]]
