"""A FIFO in place of the ledger (issue 40) hung the app at start, ``q`` ignored: the app
now starts, says which file it refused, and quits on ``q``."""

from __future__ import annotations

import os
from pathlib import Path

from tests.tui.helpers import make_app, told, until


async def test_the_app_refuses_a_fifo_ledger_and_quits(demo_root: Path) -> None:
    ledger = demo_root / ".hurikaeri" / "ledger.jsonl"
    ledger.unlink()
    os.mkfifo(ledger)
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(
            pilot,
            lambda: any("not a regular file" in n.message for n in told(app)),
        )
        await pilot.press("q")
        await until(pilot, lambda: not app.is_running)
