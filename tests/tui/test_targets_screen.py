"""The Targets screen (issue 21): every file agents load with its findings; `C` opens it,
a finding moves the text's cursor to its line."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import OptionList, TextArea

from screens.targets import TargetsScreen
from screens.widgets.diff_view import DiffView
from screens.widgets.virtual_table import VirtualTable
from tests.tui.helpers import make_app, ready, until

GH_TOKEN = "ghp_" + "zjgHWbmPZe9gwWQaq5mcdkU1gJQV3hDKJnQu"


def _root(tmp_path: Path) -> Path:
    root = tmp_path / "claude"
    (root / "hurikaeri").mkdir(parents=True)
    (root / "CLAUDE.md").write_bytes(
        b"\xef\xbb\xbf# Rules\r\n- Always run the tests before committing.\r\n"
        + f"- ci token {GH_TOKEN}\r\n".encode()
    )
    (root / "skills" / "git").mkdir(parents=True)
    (root / "skills" / "git" / "SKILL.md").write_text(
        "---\nname: git\n---\n```\nnot a rule\n```\n- always run the tests before committing\n"
    )
    return root


async def test_targets_screen_lists_targets_and_shows_findings_inline(tmp_path: Path) -> None:
    app = make_app(_root(tmp_path))
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(pilot)
        await pilot.press("C")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, TargetsScreen)
        await until(pilot, lambda: screen.report is not None)
        table = screen.query_one("#targets-list", VirtualTable)
        assert len(table.rows) == 2
        cells = [str(c) for c in table.rows[0][1]]
        assert cells[0] == "CLAUDE.md" and cells[1] == "claude_md"
        assert "SECRET 1" in cells[-2] and "dup 1" in cells[-2]
        assert cells[-1] == "—"  # the rules' usage: no transcript read
        findings = screen.query_one("#target-findings", OptionList)
        labels = [str(findings.get_option_at_index(i).prompt) for i in range(findings.option_count)]
        assert any("duplicate" in label and "SKILL.md:7" in label for label in labels)
        assert any("secret" in label and "ghp_" in label for label in labels)
        assert not any(GH_TOKEN in label for label in labels)
        await pilot.press("enter")  # to the findings
        await pilot.pause()
        findings.highlighted = next(i for i, lb in enumerate(labels) if "secret" in lb)
        await pilot.press("enter")
        await pilot.pause()
        assert screen.query_one("#target-text", TextArea).cursor_location == (2, 0)
        await pilot.press("down")  # the skill
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, TargetsScreen)


async def test_merge_shows_the_diff_writes_one_transaction_and_undo_restores(
    tmp_path: Path,
) -> None:
    from screens.dialogs.confirm import ConfirmScreen

    root = tmp_path / "claude"
    (root / "hurikaeri").mkdir(parents=True)
    claude, skill = root / "CLAUDE.md", root / "skills" / "git" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    claude.write_bytes(
        b"\xef\xbb\xbf# Rules\r\n- Always run the tests before committing.\r\n- be brief\r\n"
    )
    skill.write_bytes(
        b"---\nname: git\n---\n# Git\n- always run the tests before committing\n"
        b"  (all of them)\n- rebase, never merge main\n"
    )
    originals = {claude: claude.read_bytes(), skill: skill.read_bytes()}
    app = make_app(root)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(pilot)
        await pilot.press("C")
        await until(pilot, lambda: isinstance(app.screen, TargetsScreen) and app.screen.report)
        screen = app.screen
        assert isinstance(screen, TargetsScreen)
        assert screen.current == str(claude)
        await pilot.press("m")  # keeps CLAUDE.md's wording, removes the skill's
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        dialog = app.screen
        assert "Keep CLAUDE.md:2" in str(dialog.query_one(".dialog-text").render())
        diff = dialog.query_one("#confirm-diff", DiffView).text
        assert "-- always run the tests before committing" in diff and "-  (all of them)" in diff
        assert not any(ln.startswith("+") and not ln.startswith("+++") for ln in diff.split("\n"))
        await pilot.press("n")
        await until(pilot, lambda: app.screen is screen)
        assert {p: p.read_bytes() for p in originals} == originals
        await pilot.press("m")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await until(pilot, lambda: skill.read_bytes() != originals[skill])
        assert skill.read_bytes() == b"---\nname: git\n---\n# Git\n- rebase, never merge main\n"
        assert claude.read_bytes() == originals[claude]
        await until(pilot, lambda: screen.report is not None and not screen.report.duplicates)
        await pilot.press("u")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "merge" in str(app.screen.query_one(".dialog-text").render())
        await pilot.press("y")
        await until(pilot, lambda: skill.read_bytes() == originals[skill])
        assert {p: p.read_bytes() for p in originals} == originals


def test_a_synced_home_is_not_coloured_as_a_problem(tmp_path: Path) -> None:
    """Issue 39: paths of another machine are information, and a Korean CLAUDE.md over its
    tokens but within 200 lines is a warning: the list colours them so, not as errors."""
    from screens.targets import target_cells
    from store.config import Config
    from store.insight.target_report import TargetsCache, build_report
    from store.workspace import Workspace

    root = tmp_path / "claude"
    (root / "rules").mkdir(parents=True)
    (root / "rules" / "notes.md").write_text(
        "- the shared notes are in `/mnt/c/Users/me/notes/claude.md`\n", encoding="utf-8"
    )
    line = "- 커밋 전에 반드시 테스트를 실행하고, 실패하면 원인을 먼저 기록한 뒤에 고친다"
    (root / "CLAUDE.md").write_text("\n".join([line] * 150) + "\n", encoding="utf-8")
    ws = Workspace(root, Config())
    report = build_report(ws, cache=TargetsCache())

    def styles(name: str) -> list[str]:
        row = report.row(root / name)
        assert row is not None
        return [
            str(span.style)
            for cell in target_cells(row, name)
            if not isinstance(cell, str)
            for span in cell.spans
        ]

    assert "$text-muted" in styles("rules/notes.md")
    assert "$error" not in styles("CLAUDE.md") and "$warning" in styles("CLAUDE.md")
