"""What ``targets`` says about a real ``~/.claude`` (issue 39, point 2; issue 40, point 10):
the fixture ``claude-home-reduced`` is a reduction of public dotfiles (see its SOURCE.md).

- a stale command is only a program (past ``VAR=…`` and wrappers), never a subcommand, a
  builtin, or prose in backticks;
- a path with spaces is read whole, one the rule makes is not stale, one of another machine
  or system is "not on this machine" (information), and a path is said once per line;
- duplicates are substantive rules only (no titles, labels, terms, placeholders)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from store.config import Config
from store.insight import staleness
from store.insight.target_report import TargetsCache, TargetsReport, build_report
from store.workspace import Workspace

FIXTURE = Path(__file__).parent.parent / "fixtures" / "claude-home-reduced"
INSTALLED = {"git", "cat", "grep", "find", "apt-get"}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    """The fixture as a ``~/.claude`` on a Linux machine with only a few programs."""
    root = tmp_path / "claude"
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns("SOURCE.md"))
    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.setattr(
        staleness.shutil,
        "which",
        lambda name: f"/usr/bin/{name}" if name in INSTALLED else None,
    )
    return Workspace(root, Config())


def _report(ws: Workspace) -> TargetsReport:
    return build_report(ws, cache=TargetsCache())


def _found(ws: Workspace, name: str, kinds: tuple[str, ...]) -> list[tuple[str, int | None, str]]:
    report = _report(ws)
    return [
        (f.kind, f.line, f.message.split(",")[0])
        for f in report.findings
        if f.path.name == name and f.kind in kinds
    ]


def test_commands_are_programs_only_and_paths_are_read_like_a_synced_home(home: Workspace) -> None:
    found = _found(home, "bash-tools.md", ("stale-command", "stale-path", "elsewhere"))
    assert found == [
        ("stale-command", 3, "runs `rg`"),
        ("stale-command", 7, "runs `zzq-missing-runner`"),
        ("elsewhere", 10, "runs `winget`"),
        ("elsewhere", 10, "runs `brew`"),
        (
            "elsewhere",
            11,
            "names ~/Library/Application Support/Claude/claude_desktop_config.json",
        ),
        ("elsewhere", 12, "names /mnt/c/Users/me/notes/claude.md"),
        ("elsewhere", 12, "names C:\\Users\\me\\notes\\claude.md"),
        ("stale-path", 16, "names ~/.claude/zzq-gone/helper.py"),
    ]
    report = _report(home)
    assert {f.severity for f in report.findings if f.kind == "elsewhere"} == {"info"}


def test_a_subcommand_the_file_runs_is_not_a_program(home: Workspace) -> None:
    # ``zzq-deck session add`` in the fenced block makes ``session send`` a subcommand
    assert _found(home, "SKILL.md", ("stale-command",)) == [
        ("stale-command", 12, "runs `zzq-deck`")
    ]


def test_only_substantive_rules_are_duplicates(home: Workspace) -> None:
    report = _report(home)
    groups = sorted(
        sorted((r.path.parent.name, r.line) for r in g.rules) for g in report.duplicates
    )
    assert groups == [
        [("pr-ci", 7), ("pr-comments", 7)],  # the same step, said in two skills
        [("pr-ci", 8), ("pr-comments", 8)],
        [("review-spec", 8), ("review-test", 8)],
        [("review-spec", 9), ("review-test", 9)],
    ]
