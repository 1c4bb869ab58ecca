"""Staleness per rule (issue 21): a rule a promotion put into a target is as old as that
promotion; other rules are as old as their file. Rules past ``stale_days`` are flagged —
promoted ones one by one at their line, the others once for their file."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from store.config import Config
from store.insight.rule_times import rule_times
from store.insight.target_report import TargetsCache, build_report
from store.ledger import Ledger
from store.review.items import find_item
from store.review.promote import plan_promotion, promote_plans
from store.tx import transactions
from store.workspace import Workspace


def _setup(tmp_path: Path) -> tuple[Workspace, Path, Ledger]:
    root = tmp_path / "claude"
    (root / "hurikaeri").mkdir(parents=True)
    claude = root / "CLAUDE.md"
    claude.write_bytes(b"\xef\xbb\xbf# Ops\r\n\r\n- keep diffs small\r\n- write the plan first\r\n")
    (root / "hurikaeri" / "kpt-20260101-001.yaml").write_text(
        "id: kpt-20260101-001\nproblem: []\nomission: []\ntry:\n"
        "  - id: try-001\n    description: 'Run `uv run pytest -q` before pushing'\n"
        "    addresses: []\n    scope: global\n"
        "    persistence_target: {type: claude_md, path: CLAUDE.md, section: '## Ops'}\n",
        encoding="utf-8",
    )
    ws = Workspace(root, Config(stale_days=30))
    led = Ledger(ws.state_dir)
    plan = plan_promotion(ws, find_item(ws, "kpt-20260101-001/try-001"))
    assert plan.status == "write"
    promote_plans(ws, [plan], ledger=led)
    return ws, claude, led


def _untouched(ws: Workspace, led: Ledger, now: datetime) -> list[tuple[int | None, str]]:
    report = build_report(ws, ledger=led, cache=TargetsCache(), now=now)
    return [(f.line, f.message) for f in report.findings if f.kind == "untouched"]


def test_a_promoted_rule_is_as_old_as_its_promotion(tmp_path: Path) -> None:
    ws, claude, led = _setup(tmp_path)
    times = rule_times(ws, led)[Path(os.path.abspath(claude))]
    assert list(times) == ["run uv run pytest -q before pushing"]
    later = datetime.now(UTC) + timedelta(days=40)
    # the file was edited by hand a day before "now": its own rules are fresh, the promoted
    # one is not (nobody promoted or confirmed it since)
    fresh = later.timestamp() - 86400
    os.utime(claude, (fresh, fresh))
    found = _untouched(ws, led, later)
    assert len(found) == 1
    line, message = found[0]
    assert claude.read_text(encoding="utf-8-sig").splitlines()[line - 1].endswith("before pushing")
    assert message.startswith("promoted 40 days ago (over 30)")


def test_other_rules_go_by_their_file_once_and_undo_forgets_the_promotion(tmp_path: Path) -> None:
    ws, claude, led = _setup(tmp_path)
    later = datetime.now(UTC) + timedelta(days=40)
    old = time.time() - 40 * 86400
    os.utime(claude, (old, old))
    found = _untouched(ws, led, later)
    # the two hand-written rules once for the file; the promoted one at its line
    assert sorted((line is None, "rules may no longer hold" in m) for line, m in found) == [
        (False, False),
        (True, True),
    ]
    assert any("its 2 rules" in m for _, m in found)
    assert _untouched(ws, led, datetime.now(UTC)) == []  # within 30 days of the promotion
    last = transactions.next_turn(ws, ledger=led)
    assert last is not None
    transactions.undo(ws, last.id, ledger=led)
    led.refresh()
    assert rule_times(ws, led) == {}
