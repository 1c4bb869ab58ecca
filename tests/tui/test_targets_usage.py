"""The usage of each target's rules in the Targets view (issue 46): a column of how many
rules were relevant since they were written (of those a session can be matched by), ⚑ with
the number flagged unused, and the flags among the target's findings. ``U`` reads the
transcripts (only what was appended since the last time); the view opens on what is cached."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from screens.targets import TargetsScreen
from screens.widgets.virtual_table import VirtualTable
from tests.store.usage_fixture import DAY, bash, workspace, write_session
from tests.transcript_lines import TranscriptWriter
from tests.tui.helpers import make_app, ready, until

LINT = "Run `pnpm lint` before committing"
LEGACY = "Never edit `docs/legacy/` by hand"


async def test_targets_show_each_files_rule_usage_and_unused_flags(tmp_path: Path) -> None:
    ws = workspace(tmp_path, f"# Rules\n\n- {LINT}\n- {LEGACY}\n")
    for i in range(20):  # twenty sessions that lint and never touch docs/legacy/
        w = TranscriptWriter(f"s-{i:02d}").user("fix it")
        w.assistant("", [bash("pnpm lint"), bash("git commit -am fix")])
        write_session(ws, w, DAY - timedelta(hours=i + 1))
    app = make_app(ws.root)
    async with app.run_test(size=(160, 40)) as pilot:
        await ready(pilot)
        await pilot.press("C")
        await until(pilot, lambda: isinstance(app.screen, TargetsScreen))
        screen = app.screen
        table = screen.query_one("#targets-list", VirtualTable)
        await until(pilot, lambda: screen.report is not None and len(table.rows) >= 1)

        def line() -> str:
            return table.render_line(1).text  # the first row under the header

        assert line().rstrip().endswith("—")  # nothing read yet: nothing claimed
        await pilot.press("U")
        await until(pilot, lambda: "1/2 ⚑1" in line())
        (row,) = [r for r in screen.report.rows if r.path.name == "CLAUDE.md"]
        unused = [f for f in row.findings if f.kind == "unused"]
        assert [f.line for f in unused] == [4] and "unused in the last 20" in unused[0].message


async def test_rules_no_session_came_after_claim_nothing(tmp_path: Path) -> None:
    """Rules written after every session (a copied workspace's files are "written" the day
    they were copied) were shown as 0/2 used: relevant in none of no sessions. They say
    nothing yet."""
    ws = workspace(tmp_path, f"- {LINT}\n- {LEGACY}\n", written=DAY + timedelta(days=1))
    w = TranscriptWriter("s-early").user("fix it")
    w.assistant("", [bash("pnpm lint")])
    write_session(ws, w, DAY - timedelta(hours=1))
    app = make_app(ws.root)
    async with app.run_test(size=(160, 40)) as pilot:
        await ready(pilot)
        await pilot.press("C")
        await until(pilot, lambda: isinstance(app.screen, TargetsScreen))
        screen = app.screen
        table = screen.query_one("#targets-list", VirtualTable)
        await until(pilot, lambda: screen.report is not None and len(table.rows) >= 1)
        first = screen.report
        await pilot.press("U")
        await until(pilot, lambda: screen.report is not first)  # read, shown
        assert table.render_line(1).text.rstrip().endswith("—")
        assert "0/2" not in table.render_line(1).text
