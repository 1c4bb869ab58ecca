"""What ``targets`` says about a real ``~/.claude`` (issue 39, point 2; issue 40, point 10):
the fixture ``claude-home-reduced`` is a reduction of public dotfiles (see its SOURCE.md).

- a stale command is only a program (past ``VAR=…`` and wrappers), never a subcommand, a
  builtin, or prose in backticks;
- a path with spaces is read whole, one the rule makes is not stale, one of another machine
  or system is "not on this machine" (information), and a path is said once per line;
- duplicates are substantive rules only (no titles, labels, terms, placeholders);
- a Korean CLAUDE.md within Anthropic's 200-line advice is not an error, and CJK text
  costs the tokens a real tokenizer counts;
- a rule linked to a file outside its folder is refused, with a finding naming the file."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from store.config import Config
from store.insight import staleness
from store.insight.duplicates import find_duplicates
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
    """Findings of these kinds in the file ``name`` (a skill by its folder's name)."""
    report = _report(ws)
    return [
        (f.kind, f.line, f.message.split(",")[0])
        for f in report.findings
        if name in (f.path.name, f.path.parent.name) and f.kind in kinds
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
    assert _found(home, "pipeline", ("stale-command",)) == [
        ("stale-command", 12, "runs `zzq-deck`")
    ]


def test_only_substantive_rules_are_duplicates(home: Workspace) -> None:
    report = _report(home)
    # two skills are never loaded as one: each carries its own steps and rules
    assert report.duplicates == []
    rules = [rule for row in report.rows for rule in row.text.rules]
    groups = sorted(
        sorted((r.path.parent.name, r.line) for r in g.rules) for g in find_duplicates(rules)
    )
    assert groups == [
        [("pr-ci", 7), ("pr-comments", 7)],  # the same step, said in two skills
        [("pr-ci", 8), ("pr-comments", 8)],
        [("review-spec", 8), ("review-test", 8)],
        [("review-spec", 9), ("review-test", 9)],
    ]


def test_a_korean_claude_md_within_200_lines_is_not_an_error(home: Workspace) -> None:
    line = "- 커밋 전에 반드시 테스트를 실행하고, 실패하면 원인을 먼저 기록한 뒤에 고친다"
    (home.root / "CLAUDE.md").write_text(
        "# 작업 규칙\n" + "\n".join(f"{line} ({i})" for i in range(194)) + "\n",
        encoding="utf-8",
    )
    report = _report(home)
    row = report.row(home.root / "CLAUDE.md")
    assert row is not None and len(row.text.lines) == 195
    (budget,) = [f for f in row.findings if f.kind == "budget"]
    assert budget.severity == "warning"
    assert "within Anthropic's 200-line advice" in budget.message
    (home.root / "CLAUDE.md").write_text("\n".join([line] * 230) + "\n", encoding="utf-8")
    row = _report(home).row(home.root / "CLAUDE.md")
    assert row is not None
    assert [f.severity for f in row.findings if f.kind == "budget"] == ["error"]


def test_a_rule_linked_out_of_the_root_is_refused_with_a_finding(
    home: Workspace, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text("- secret plans of another tree\n", encoding="utf-8")
    os.symlink(outside, home.root / "rules" / "linked.md")
    report = _report(home)
    row = report.row(home.root / "rules" / "linked.md")
    assert row is not None
    assert row.text.text == "" and row.text.rules == []
    (f,) = [f for f in row.findings if f.kind == "unreadable"]
    assert f.severity == "error" and str(outside) in f.message
    assert "refused" in f.message


def test_a_linked_rules_folder_is_read_as_its_owner_linked_it(
    home: Workspace, tmp_path: Path
) -> None:
    # dotfiles kept elsewhere and linked in whole (stow): the folder is the link's owner's
    dotfiles = tmp_path / "dotfiles" / "rules"
    dotfiles.mkdir(parents=True)
    (dotfiles / "style.md").write_text("- keep diffs small\n", encoding="utf-8")
    shutil.rmtree(home.root / "rules")
    os.symlink(dotfiles, home.root / "rules")
    (dotfiles / "team").mkdir()
    os.symlink(dotfiles / "style.md", dotfiles / "team" / "style-link.md")  # inside rules/
    report = _report(home)
    for name in ("style.md", "team/style-link.md"):
        row = report.row(home.root / "rules" / name)
        assert row is not None and row.text.error is None and len(row.text.rules) == 1


#: Tokens per character measured with Anthropic's tokenizer (the ``tokenizer.json`` of the
#: ``anthropic`` SDK ≤ 0.38) on real Korean, Japanese and Chinese CLAUDE.md, rules and
#: skills by ``benchmarks/token_ratios.py``, other characters at a quarter token.
MEASURED = {"가나다라": 1.67, "かなカナ": 1.05, "漢字中文": 1.4}


def test_cjk_characters_cost_what_a_real_tokenizer_measured() -> None:
    from store.insight.targets import estimate_tokens

    for chars, cost in MEASURED.items():
        text = chars * 250
        assert abs(estimate_tokens(text) / len(text) - cost) / cost < 0.1, chars
    # English is unchanged: about four characters to a token
    assert estimate_tokens("word " * 400) == 500


def test_css_classes_types_letters_and_labels_in_backticks_run_nothing(home: Workspace) -> None:
    """A skill of Tailwind classes (``px-6 py-3``, ``md:grid-cols-3``), a type union, descender
    letters and labels: only its three real command lines name programs."""
    assert _found(home, "frontend-look", ("stale-command",)) == [
        ("stale-command", 16, "runs `zzq-css`"),
        ("stale-command", 16, "runs `zzq-diff`"),
        ("stale-command", 17, "runs `zzq-git`"),
    ]
