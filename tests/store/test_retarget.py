"""retarget changes only the persistence_target lines, comments kept."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from store.review.items import ReviewError, find_item
from store.review.retarget import retarget_items, target_headings
from store.workspace import Workspace

REPORT = """\
# reflection written by the hurikaeri skill
id: kpt-20260101-001
problem: []
omission: []
try:
  - id: try-001   # the first idea
    description: "確認する"
    addresses: []
    scope: global
    persistence_target:
      type: claude_md        # where it goes
      path: ~/.claude/CLAUDE.md
      section: "## パッケージ管理"
  - id: try-002
    description: "no target yet"
    addresses: []
    scope: project
# trailing comment
"""


def _changed(before: str, after: str) -> list[str]:
    return [ln for ln in difflib.ndiff(before.splitlines(), after.splitlines()) if ln[:1] in "+-"]


def test_retarget_changes_only_the_target_lines(tmp_path: Path) -> None:
    (tmp_path / "hurikaeri").mkdir()
    p = tmp_path / "hurikaeri" / "kpt-20260101-001.yaml"
    p.write_text(REPORT, encoding="utf-8")
    ws = Workspace(tmp_path)
    retarget_items(
        ws, [find_item(ws, "kpt-20260101-001/try-001")], "skill", "skills/x/SKILL.md", "## Testing"
    )
    after = p.read_text(encoding="utf-8")
    changed = _changed(REPORT, after)
    assert sorted(ln for ln in changed if ln.startswith("-")) == [
        "-       path: ~/.claude/CLAUDE.md",
        '-       section: "## パッケージ管理"',
        "-       type: claude_md        # where it goes",
    ]
    added = sorted(ln for ln in changed if ln.startswith("+"))
    assert added[0] == "+       path: skills/x/SKILL.md"
    assert added[1] == '+       section: "## Testing"'
    assert added[2].startswith("+       type: skill") and added[2].endswith("# where it goes")
    assert len(changed) == 6
    retarget_items(
        ws,
        [find_item(ws, "kpt-20260101-001/try-002")],
        "memory",
        "memory/p/project_memory.yaml",
        None,
    )
    final = p.read_text(encoding="utf-8")
    assert _changed(after, final) == [
        "+     persistence_target:",
        "+       type: memory",
        "+       path: memory/p/project_memory.yaml",
    ]
    assert "# trailing comment" in final and "# the first idea" in final


def test_retarget_refuses_bad_type_and_outside_paths(tmp_path: Path) -> None:
    (tmp_path / "hurikaeri").mkdir()
    p = tmp_path / "hurikaeri" / "kpt-20260101-001.yaml"
    p.write_text(REPORT, encoding="utf-8")
    ws = Workspace(tmp_path)
    ref = find_item(ws, "kpt-20260101-001/try-001")
    with pytest.raises(ReviewError, match="not one of"):
        retarget_items(ws, [ref], "script", "x.md", None)
    with pytest.raises(ReviewError, match="outside the workspace"):
        retarget_items(ws, [ref], "claude_md", "../../x.md", None)
    assert p.read_text(encoding="utf-8") == REPORT


def test_headings_for_the_section_picker(tmp_path: Path) -> None:
    (tmp_path / "CLAUDE.md").write_text("# T\n## A\n```\n## not\n```\n### B\n")
    assert target_headings(Workspace(tmp_path), "CLAUDE.md") == ["# T", "## A", "### B"]
    assert target_headings(Workspace(tmp_path), "../nope.md") == []


@pytest.mark.parametrize(
    ("type_", "path", "reason"),
    [
        ("claude_md", "settings.json", "settings.json"),
        ("hook", "~/.claude/settings.json", "hook setting or script"),
        ("claude_md", "hurikaeri/kpt-20260101-001.yaml", "an agent's KPT report"),
        ("memory", "CLAUDE.md", "memory"),
    ],
)
def test_retarget_refuses_what_a_promotion_would_refuse(
    tmp_path: Path, type_: str, path: str, reason: str
) -> None:
    """The write policy is asked when the target is set, with the reason promote gives (#40)."""
    from store.review.promote import plan_promotion

    (tmp_path / "hurikaeri").mkdir()
    p = tmp_path / "hurikaeri" / "kpt-20260101-001.yaml"
    p.write_text(REPORT.replace("~/.claude/CLAUDE.md", path).replace("claude_md", type_), "utf-8")
    ws = Workspace(tmp_path)
    refused = plan_promotion(ws, find_item(ws, "kpt-20260101-001/try-001"))
    assert refused.status == "refused"
    assert reason in refused.message
    p.write_text(REPORT, encoding="utf-8")
    with pytest.raises(ReviewError) as exc:
        retarget_items(ws, [find_item(ws, "kpt-20260101-001/try-001")], type_, path, None)
    assert str(exc.value) == refused.message
    assert p.read_text(encoding="utf-8") == REPORT
