"""What ``targets`` says about real projects' files (issue 39): a skill's own files named
from its folder, and ``AGENTS.md`` linked to ``CLAUDE.md`` (see each fixture's SOURCE.md)."""

from __future__ import annotations

import shutil
from pathlib import Path

from store.config import Config
from store.insight.target_report import TargetsCache, build_report
from store.workspace import Workspace
from tests.conftest import FIXTURES


def _project(tmp_path: Path, name: str) -> tuple[Workspace, Path]:
    proj = tmp_path / name
    shutil.copytree(FIXTURES / name, proj, symlinks=True)
    return Workspace(tmp_path / "claude", Config(projects=[str(proj)])), proj


def test_a_skill_names_its_own_files_from_its_folder(tmp_path: Path) -> None:
    """takt-sdd's kiro-steering says "Load `rules/steering-principles.md`" (from this skill's
    directory), which is ``.claude/skills/kiro-steering/rules/``: not stale."""
    ws, proj = _project(tmp_path, "takt-sdd")
    report = build_report(ws, cache=TargetsCache())
    skill = proj / ".claude/skills/kiro-steering/SKILL.md"
    stale = [
        (f.line, f.message) for f in report.findings if f.path == skill and f.kind == "stale-path"
    ]
    assert stale == []
    (proj / ".claude/skills/kiro-steering/rules/steering-principles.md").unlink()
    report = build_report(ws, cache=TargetsCache())
    stale = [f.line for f in report.findings if f.path == skill and f.kind == "stale-path"]
    assert stale == [35, 65]  # gone from the skill: now it is stale


def test_agents_md_linked_to_claude_md_is_not_its_duplicate(tmp_path: Path) -> None:
    """obra/superpowers' AGENTS.md is a link to its CLAUDE.md: one file, no duplicates."""
    ws, proj = _project(tmp_path, "superpowers-agents-link")
    report = build_report(ws, cache=TargetsCache())
    assert {r.path.name for r in report.rows} == {"CLAUDE.md", "AGENTS.md"}
    assert [f for f in report.findings if f.kind == "duplicate"] == []
    # a copy that Claude Code loads too (CLAUDE.local.md): every rule of it is a duplicate
    shutil.copy(proj / "CLAUDE.md", proj / "CLAUDE.local.md")
    report = build_report(ws, cache=TargetsCache())
    assert len([f for f in report.findings if f.kind == "duplicate"]) == 34


def test_claude_md_and_agents_md_kept_in_step_are_each_agents_copy(tmp_path: Path) -> None:
    """takt-sdd keeps CLAUDE.md (Claude Code's) and AGENTS.md (Codex's) in step: no agent
    loads both, so their 29 shared rules are no duplicates (58 findings before)."""
    ws, proj = _project(tmp_path, "takt-sdd")
    report = build_report(ws, cache=TargetsCache())
    names = {"CLAUDE.md", "AGENTS.md"}
    assert [f for f in report.findings if f.kind == "duplicate" and f.path.name in names] == []
    shutil.copy(proj / "AGENTS.md", proj / "CLAUDE.local.md")  # both Claude Code's: they are
    report = build_report(ws, cache=TargetsCache())
    assert (
        len([f for f in report.findings if f.path.name == "CLAUDE.md" and f.kind == "duplicate"])
        == 29
    )


def test_file_names_joined_by_slashes_are_not_a_path(tmp_path: Path) -> None:
    """kiro-validate-impl: "Stop with error if spec.json/requirements.md/design.md missing"
    names three files, not one path."""
    ws, proj = _project(tmp_path, "takt-sdd")
    skill = proj / ".claude/skills/kiro-validate-impl/SKILL.md"
    report = build_report(ws, cache=TargetsCache())
    stale = [f.line for f in report.findings if f.path == skill and f.kind == "stale-path"]
    assert 191 not in stale and stale  # its .kiro/… paths, missing here, still are


def test_two_projects_rules_are_each_ones_own(tmp_path: Path) -> None:
    """No session loads two projects' files (takt and takt-ddd share a CLAUDE.md line): the
    same rule in each is no duplicate; in the global CLAUDE.md, loaded with both, it is."""
    root = tmp_path / "claude"
    root.mkdir()
    proj_a, proj_b = tmp_path / "a", tmp_path / "b"
    for proj in (proj_a, proj_b):
        shutil.copytree(FIXTURES / "superpowers-agents-link", proj, symlinks=True)
    ws = Workspace(root, Config(projects=[str(proj_a), str(proj_b)]))
    report = build_report(ws, cache=TargetsCache())
    assert [f for f in report.findings if f.kind == "duplicate"] == []
    rule = next(r for r in report.rows if r.path == proj_a / "CLAUDE.md").text.rules[0]
    (root / "CLAUDE.md").write_text(f"- {rule.text}\n", encoding="utf-8")
    found = [f for f in build_report(ws, cache=TargetsCache()).findings if f.kind == "duplicate"]
    dup = [(f.path.relative_to(tmp_path).as_posix(), f.line) for f in found]
    assert dup == [("claude/CLAUDE.md", 1), ("a/CLAUDE.md", rule.line), ("b/CLAUDE.md", rule.line)]
    # each project's copy is the global one's duplicate, never the other project's
    assert [str(proj_b) in f.message for f in found] == [True, False, False]
    # and a merge from a project's copy takes out the global one, never the other project's
    report = build_report(ws, cache=TargetsCache())
    found_a = report.duplicates_of(proj_a / "CLAUDE.md", rule.line)
    assert found_a is not None
    merged, keep = found_a
    assert (keep.path, keep.line) == (proj_a / "CLAUDE.md", rule.line)
    assert [r.path for r in merged] == [root / "CLAUDE.md", proj_a / "CLAUDE.md"]
