"""Prose in backticks and files a rule has made, in a real skill (github:j5ik2o/fraktor-rs,
tests/fixtures/fraktor-skill-forge/SOURCE.md): no program, no stale path (issue 39)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from store.config import Config
from store.insight import staleness
from store.insight.target_report import TargetsCache, build_report
from store.workspace import Workspace
from tests.conftest import FIXTURES

SKILL = ".claude/skills/skill-forge/SKILL.md"


def _stale(tmp_path: Path, extra: str = "") -> list[tuple[int | None, str]]:
    proj = tmp_path / "fraktor-rs"
    shutil.copytree(FIXTURES / "fraktor-skill-forge", proj)
    with (proj / SKILL).open("a", encoding="utf-8") as f:
        f.write(extra)
    ws = Workspace(tmp_path / "claude", Config(projects=[str(proj)]))
    report = build_report(ws, cache=TargetsCache())
    return [(f.line, f.message) for f in report.findings if f.kind.startswith("stale-")]


@pytest.fixture(autouse=True)
def nothing_installed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(staleness.shutil, "which", lambda name: None)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def test_list_names_in_backticks_and_a_download_are_not_stale(tmp_path: Path) -> None:
    # before: `helps with` (line 27), `should not help with` (28), ~/Downloads/… (38), and
    # deepresearch-readme's docs/installation.md "へ分離する" (31)
    assert _stale(tmp_path) == []


def test_a_file_said_to_be_split_out_or_maybe_absent_is_not_stale(tmp_path: Path) -> None:
    extra = (
        "\n- `docs/zzq-notes.md` が存在しない場合はこの手順を飛ばす\n"  # if absent: skip
        "- `docs/zzq-notes.md` を読んで方針を確認する\n"  # read it: it must be there
    )
    found = _stale(tmp_path, extra)
    assert [(line, msg.split(",")[0]) for line, msg in found] == [(43, "names docs/zzq-notes.md")]


def test_a_command_and_a_file_read_from_downloads_still_are(tmp_path: Path) -> None:
    extra = (
        "\n- Then run `uv run pytest -q` with the file\n- Read `~/Downloads/eval_set.json` first\n"
    )
    assert _stale(tmp_path, extra) == [
        (42, "runs `uv`, which is not on this machine's PATH"),
        (
            43,
            f"names ~/Downloads/eval_set.json, which does not exist ({tmp_path}/home/Downloads/eval_set.json)",
        ),
    ]


def test_the_same_link_in_two_sentences_is_no_duplicate(tmp_path: Path) -> None:
    """deepresearch-readme links its checklist in a step (line 47) and in its list of files
    (74): 89 % alike only through the link's target, which repeats its text."""
    proj = tmp_path / "fraktor-rs"
    shutil.copytree(FIXTURES / "fraktor-skill-forge", proj)
    skill = proj / ".claude/skills/deepresearch-readme/SKILL.md"
    ws = Workspace(tmp_path / "claude", Config(projects=[str(proj)]))
    assert build_report(ws, cache=TargetsCache()).duplicates == []
    lines = skill.read_text(encoding="utf-8").splitlines(keepends=True)
    with skill.open("a", encoding="utf-8") as f:
        f.write(lines[73])  # the list's line said again: a duplicate
    groups = build_report(ws, cache=TargetsCache()).duplicates
    assert [[r.line for r in g.rules] for g in groups] == [[74, len(lines) + 1]]


def test_rules_linking_different_files_are_no_duplicates() -> None:
    """Found by the outside review: with the link's target left out of the wording, these
    were one rule said twice, and a merge would have removed the second."""
    from store.insight.duplicates import find_duplicates
    from store.insight.targets import Rule

    texts = [
        "Follow [the style guide](docs/python-style.md) for every module",
        "Follow [the style guide](docs/typescript-style.md) for every module",
    ]
    rules = [Rule(Path("CLAUDE.md"), n, t) for n, t in enumerate(texts, 1)]
    assert find_duplicates(rules) == []
    assert len(find_duplicates([*rules, Rule(Path("CLAUDE.md"), 3, texts[0])])) == 1
