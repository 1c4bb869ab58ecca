"""Issue 21 in the promote dialog and the inbox: a write that takes a target past its budget
asks first and names the lines that fall out; text that looks like a secret is refused with
the match masked and where, and is written only after an explicit override."""

from __future__ import annotations

from pathlib import Path

from screens.dialogs.budget_prompt import BudgetPrompt
from screens.dialogs.promote import PromoteScreen
from screens.dialogs.secret_prompt import SecretOverride
from screens.inbox import InboxScreen
from screens.widgets.virtual_table import VirtualTable
from store.config import Config
from store.review.items import find_item
from tests.tui.helpers import ready, until
from tui.app import create_app

GH_TOKEN = "ghp_" + "zjgHWbmPZe9gwWQaq5mcdkU1gJQV3hDKJnQu"
CLAUDE = "# Rules\n\n## Ops\n\n- keep diffs small\n\n## Style\n\n" + "".join(
    f"- style rule {i}: name things plainly\n" for i in range(1, 7)
)  # 65 tokens
CONFIG = Config(budgets={"claude_md": 70, "skill_yaml": 20})


def _root(tmp_path: Path) -> Path:
    root = tmp_path / "claude"
    (root / "hurikaeri").mkdir(parents=True)
    (root / "CLAUDE.md").write_text(CLAUDE, encoding="utf-8")
    (root / "hurikaeri" / "kpt-20260101-001.yaml").write_text(
        "id: kpt-20260101-001\nproblem: []\nomission: []\ntry:\n"
        "  - id: try-001\n    description: always run the tests before pushing\n"
        "    addresses: []\n    scope: global\n"
        "    persistence_target: {type: claude_md, path: CLAUDE.md, section: '## Ops'}\n"
        f"  - id: try-002\n    description: push with {GH_TOKEN}\n"
        "    addresses: []\n    scope: global\n"
        "    persistence_target: {type: claude_md, path: CLAUDE.md, section: '## Ops'}\n",
        encoding="utf-8",
    )
    inbox = root / "knowledge_base" / "inbox"
    inbox.mkdir(parents=True)
    for pid, content in (
        ("prop-20260101-001", "## CI\\n- run the linters before the tests, then the tests\\n"),
        ("prop-20260101-002", f"## CI\\n- push with {GH_TOKEN}\\n"),
    ):
        (inbox / f"{pid}.yaml").write_text(
            f'id: {pid}\ncreated_at: "2026-01-01T10:00:00+09:00"\nproposed_by: agent\n'
            f"kind: skill\ntitle: ci {pid}\nrationale: r\n"
            f"target: knowledge_base/global/skills/{pid}.yaml\n"
            f'payload:\n  skill_id: ci\n  name: ci\n  content: "{content}"\n'
            "status: pending\n",
            encoding="utf-8",
        )
    return root


def _head(screen: PromoteScreen) -> str:
    return str(screen.query_one("#promote-head").render())


async def _promote(pilot, app, key: str) -> PromoteScreen:  # type: ignore[no-untyped-def]
    await ready(pilot)
    app.push_screen(PromoteScreen(app.index, [find_item(app.index.ws, key)]))
    await until(pilot, lambda: isinstance(app.screen, PromoteScreen) and bool(app.screen.plans))
    return app.screen


async def test_promote_over_budget_asks_first_and_names_the_lines(tmp_path: Path) -> None:
    root = _root(tmp_path)
    claude = root / "CLAUDE.md"
    original = claude.read_bytes()
    app = create_app(root, CONFIG, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        modal = await _promote(pilot, app, "kpt-20260101-001/try-001")
        assert "size: CLAUDE.md: 65 → 74/70 tokens (over budget)" in _head(modal)
        await pilot.press("y")
        await until(pilot, lambda: isinstance(app.screen, BudgetPrompt))
        prompt = app.screen
        text = str(prompt.query_one("#budget-head").render())
        assert "CLAUDE.md: 65 → 74/70 tokens" in text and "Write anyway?" in text
        lines = prompt.query_one("#budget-lines").text  # type: ignore[attr-defined]
        assert "style rule 6: name things plainly" in lines and "keep diffs small" not in lines
        await pilot.press("n")  # not written; the promote dialog is still there
        await until(pilot, lambda: isinstance(app.screen, PromoteScreen))
        assert claude.read_bytes() == original
        await pilot.press("y")
        await until(pilot, lambda: isinstance(app.screen, BudgetPrompt))
        await pilot.press("y")
        await until(pilot, lambda: not isinstance(app.screen, (PromoteScreen, BudgetPrompt)))
        assert b"- always run the tests before pushing" in claude.read_bytes()


async def test_promote_within_budget_does_not_ask(tmp_path: Path) -> None:
    root = _root(tmp_path)
    app = create_app(root, Config(budgets={"claude_md": 500}), watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        modal = await _promote(pilot, app, "kpt-20260101-001/try-001")
        assert "65 → 74/500 tokens (within budget)" in _head(modal)
        await pilot.press("y")
        await until(pilot, lambda: not isinstance(app.screen, PromoteScreen))
        assert b"before pushing" in (root / "CLAUDE.md").read_bytes()


async def test_promote_of_a_secret_is_refused_masked_then_overridden_explicitly(
    tmp_path: Path,
) -> None:
    root = _root(tmp_path)
    claude = root / "CLAUDE.md"
    original = claude.read_bytes()
    app = create_app(root, Config(budgets={"claude_md": 500}), watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        modal = await _promote(pilot, app, "kpt-20260101-001/try-002")
        head = _head(modal)
        assert modal.plans[0].status == "refused" and "looks like a secret" in head
        assert "github-pat ghp_" in head and f"{claude}:" in head and GH_TOKEN not in head
        assert "o: write it anyway" in head
        await pilot.press("y")  # nothing to write
        await pilot.pause()
        assert claude.read_bytes() == original
        await pilot.press("o")
        await until(pilot, lambda: isinstance(app.screen, SecretOverride))
        question = str(app.screen.query_one(".dialog-text").render())
        assert "github-pat ghp_" in question and GH_TOKEN not in question
        assert app.screen.focused is not None and app.screen.focused.id == "no"
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, PromoteScreen))
        assert modal.plans[0].status == "refused" and claude.read_bytes() == original
        await pilot.press("o")
        await until(pilot, lambda: isinstance(app.screen, SecretOverride))
        await pilot.press("y")
        await until(pilot, lambda: modal.plans[0].status == "write")
        await pilot.press("y")
        await until(pilot, lambda: not isinstance(app.screen, PromoteScreen))
        assert GH_TOKEN.encode() in claude.read_bytes()


async def _inbox(pilot, app, pid: str) -> InboxScreen:  # type: ignore[no-untyped-def]
    await ready(pilot)
    await pilot.press("I")
    await until(pilot, lambda: isinstance(app.screen, InboxScreen) and app.screen.proposals != {})
    screen = app.screen
    screen.query_one("#inbox-list", VirtualTable).move_to_key(pid)
    return screen


async def test_inbox_approval_over_budget_asks_first(tmp_path: Path) -> None:
    from textual.widgets import Input

    from screens.dialogs.note_prompt import NotePrompt

    root = _root(tmp_path)
    target = root / "knowledge_base" / "global" / "skills" / "prop-20260101-001.yaml"
    app = create_app(root, CONFIG, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _inbox(pilot, app, "prop-20260101-001")
        scroll = screen.query_one("#inbox-detail-scroll")
        await until(pilot, lambda: str(scroll.border_title).startswith("0 → "))
        assert str(scroll.border_title).endswith("/20 t, over budget")  # short: a pane's title
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, NotePrompt))
        app.screen.query_one(Input).value = "ok"
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, BudgetPrompt))
        assert "/20 tokens" in str(app.screen.query_one("#budget-head").render())
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, InboxScreen))
        assert not target.exists()
        assert (
            "status: pending" in (root / "knowledge_base/inbox/prop-20260101-001.yaml").read_text()
        )


async def test_inbox_approval_of_a_secret_is_refused_unless_overridden(tmp_path: Path) -> None:
    from textual.widgets import Input

    from screens.dialogs.note_prompt import NotePrompt

    root = _root(tmp_path)
    prop = root / "knowledge_base" / "inbox" / "prop-20260101-002.yaml"
    before = prop.read_bytes()
    target = root / "knowledge_base" / "global" / "skills" / "prop-20260101-002.yaml"
    app = create_app(root, Config(budgets={"skill_yaml": 500}), watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await _inbox(pilot, app, "prop-20260101-002")
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, SecretOverride))
        question = str(app.screen.query_one(".dialog-text").render())
        assert "github-pat ghp_" in question and "prop-20260101-002.yaml:" in question
        assert GH_TOKEN not in question
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, InboxScreen))
        assert prop.read_bytes() == before and not target.exists()
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, SecretOverride))
        await pilot.press("y")
        await until(pilot, lambda: isinstance(app.screen, NotePrompt))
        app.screen.query_one(Input).value = "a placeholder"
        await pilot.press("enter")
        await until(pilot, lambda: target.exists())
        assert GH_TOKEN in target.read_text(encoding="utf-8")
