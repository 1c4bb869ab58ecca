"""Over budget, the prompt lists the target's rules least relevant first (issue #46), from
the session facts measured before (nothing is read while it asks)."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from screens.dialogs.budget_prompt import BudgetPrompt
from screens.dialogs.promote import PromoteScreen
from store.config import Config
from store.insight.usage import usage_report
from store.review.items import find_item
from store.workspace import Workspace
from tests.store.usage_fixture import bash, write_session
from tests.transcript_lines import TranscriptWriter
from tests.tui.helpers import ready, until
from tui.app import create_app

CLAUDE = (
    "# Rules\n\n## Ops\n\n- Run `pnpm lint` before committing\n- Never edit `dist/` by hand\n"
    "- keep diffs small\n"
)
CONFIG = Config(budgets={"claude_md": 30})


def _root(tmp_path: Path) -> Path:
    root = tmp_path / "claude"
    (root / "hurikaeri").mkdir(parents=True)
    (root / "CLAUDE.md").write_text(CLAUDE, encoding="utf-8")
    old = (datetime.now(UTC) - timedelta(days=20)).timestamp()
    os.utime(root / "CLAUDE.md", (old, old))
    (root / "hurikaeri" / "kpt-20260101-001.yaml").write_text(
        "id: kpt-20260101-001\nproblem: []\nomission: []\ntry:\n"
        "  - id: try-001\n    description: always run the tests before pushing them upstream\n"
        "    addresses: []\n    scope: global\n"
        "    persistence_target: {type: claude_md, path: CLAUDE.md, section: '## Ops'}\n",
        encoding="utf-8",
    )
    ws = Workspace(root, CONFIG)
    w = TranscriptWriter("s-1").user("ship it")
    w.assistant("", [bash("pnpm lint"), bash("git commit -m ship")])
    write_session(ws, w, datetime.now(UTC) - timedelta(days=2))
    return root


async def test_the_budget_prompt_lists_what_to_cut(tmp_path: Path) -> None:
    root = _root(tmp_path)
    usage_report(Workspace(root, CONFIG))  # measured once (the CLI, or a session's detail)
    app = create_app(root, CONFIG, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        app.push_screen(
            PromoteScreen(app.index, [find_item(app.index.ws, "kpt-20260101-001/try-001")])
        )
        await until(pilot, lambda: isinstance(app.screen, PromoteScreen) and bool(app.screen.plans))
        await pilot.press("y")
        await until(pilot, lambda: isinstance(app.screen, BudgetPrompt))
        cut = app.screen.query_one("#budget-cut").text  # type: ignore[attr-defined]
        lines = cut.splitlines()
        assert lines[0] == "CLAUDE.md: least relevant first (1 session known):"
        assert "[0/1] Never edit `dist/` by hand" in lines[1]
        assert "[1/1] Run `pnpm lint` before committing" in lines[2]
        assert "[not checkable] keep diffs small" in lines[3]
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, PromoteScreen))
