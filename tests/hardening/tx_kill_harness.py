"""Killing a process that writes transactions at random moments (issue 16).

A forked child runs random actions on a copy of the demo workspace — decisions, promotions,
retargets, form edits, inbox decisions, drafted proposals, lesson edits, archives and
removals, imports, feedback exports, person-made reports, undo and redo — with short random
pauses around each file write, so that a ``SIGKILL`` lands inside transactions as well as
between them. After each kill :func:`recover` runs, then :func:`check` says whether every
file is as the last completed transaction that wrote it left it (a transaction that did not
finish left nothing behind). At the end every transaction done is undone, newest first, and
the workspace must be byte for byte what it was at the start.

Used by ``tests/hardening/test_tx_kill.py`` (a few dozen runs) and ``benchmarks/tx_kill.py``
(hundreds, with figures).
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

from store.ledger import Ledger
from store.review.feedback_export import export_feedback
from store.review.inbox import decide_proposals, find_proposal, plan_decision, propose
from store.review.item_edit import edit_item
from store.review.items import ReviewError, decide_keys, find_item
from store.review.lessons import archive_lesson, edit_lesson_tx, find_lesson, remove_lesson
from store.review.person_report import next_report_id, render_report, write_person_report
from store.review.promote import plan_promotion, promote_plans
from store.review.retarget import retarget_items
from store.review.wrapup import import_wrapup
from store.tx import transactions
from store.tx.journal import where
from store.workspace import Workspace
from store.write.atomic import WriteError

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "assets" / "demo"
REPORTS = ("kpt-20261028-001", "kpt-20261028-002", "kpt-20261030-002", "kpt-20261106-001")
PROPOSALS = ("prop-20261116-001", "prop-20261118-001", "prop-20261119-001", "prop-20261109-001")
SKIP_NAMES = (".hurikaeri-tmp-", ".hurikaeri-redo-")


def make_workspace(root: Path) -> Workspace:
    """A copy of the demo workspace with an empty ledger (so that undoing everything at the
    end must give back exactly this)."""
    shutil.copytree(
        DEMO, root, ignore=shutil.ignore_patterns("index-cache-*", "search-cache-*", "search-v*")
    )
    shutil.rmtree(root / ".hurikaeri")
    return Workspace(root)


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
        and ".hurikaeri" not in p.relative_to(root).parts
        and not p.name.startswith(SKIP_NAMES)
    }


@dataclass(slots=True)
class Targets:
    """What the random actions pick from (found once, in the parent)."""

    keys: list[str] = field(default_factory=list)
    tries: list[str] = field(default_factory=list)
    keeps: list[str] = field(default_factory=list)
    lessons: list[str] = field(default_factory=list)


def targets(ws: Workspace) -> Targets:
    t = Targets()
    for rid in REPORTS:
        from store.review.items import find_report

        _path, report = find_report(ws, rid)
        for section, item in report.items():
            if not item.id:
                continue
            t.keys.append(f"{rid}/{item.id}")
            if section == "try":
                t.tries.append(f"{rid}/{item.id}")
            if section == "keep":
                t.keeps.append(f"{rid}/{item.id}")
    from store.read.diagnostics import DiagnosticSink
    from store.read.jsonl import scan_jsonl

    data = ws.loc("lessons_ai").read_bytes()
    t.lessons = [
        str(r.data["id"]) for r in scan_jsonl(data, DiagnosticSink("x")).records if "id" in r.data
    ][:12]
    return t


def act(ws: Workspace, t: Targets, rng: random.Random, n: int) -> None:
    """One random action (refusals and conflicts are part of the game)."""
    kind = rng.choice(
        [
            "decide",
            "decide",
            "promote",
            "retarget",
            "edit",
            "inbox",
            "propose",
            "lesson-edit",
            "lesson-archive",
            "lesson-remove",
            "import",
            "export",
            "report",
            "undo",
            "undo",
            "redo",
        ]
    )
    if kind == "decide":
        decide_keys(ws, [rng.choice(t.keys)], rng.choice(["approve", "reject", "reopen"]))
    elif kind == "promote":
        plan = plan_promotion(ws, find_item(ws, rng.choice(t.tries)), "keep-both")
        if plan.writes:
            promote_plans(ws, [plan])
    elif kind == "retarget":
        ref = find_item(ws, rng.choice(t.tries))
        retarget_items(ws, [ref], "claude_md", f"notes/N{rng.randrange(3)}.md", f"## S{n % 4}")
    elif kind == "edit":
        ref = find_item(ws, rng.choice(t.keeps))
        edit_item(
            ws,
            ref.path,
            ref.section,
            ref.item_id,
            {"description": f"{ref.item.description} ({n})"},
            None,
            subject=ref.key,
        )
    elif kind == "inbox":
        ref = find_proposal(ws, rng.choice(PROPOSALS))
        plan = plan_decision(ws, ref, rng.choice(["approve", "reject", "reopen"]))
        if not plan.refused:
            decide_proposals(ws, [plan], allow_stale=True)
    elif kind == "propose":
        name = f"kill_{os.getpid()}_{n}"
        propose(
            ws,
            {
                "kind": "pattern",
                "title": name,
                "target": f"knowledge_base/global/patterns/{name}.yaml",
                "payload": {"pattern_id": name, "name": name, "type": "success"},
                "status": "pending",
            },
        )
    elif kind.startswith("lesson"):
        ref = find_lesson(ws.loc("lessons_ai"), rng.choice(t.lessons))
        if kind == "lesson-edit":
            title = str(ref.record.data.get("title") or "")
            edit_lesson_tx(ws, ref, {"title": title[: rng.randrange(len(title) + 1)]})
        elif kind == "lesson-archive":
            archive_lesson(ws, str(ref.record.data["id"]), rng.random() < 0.7)
        else:
            remove_lesson(ws, None, ref)
    elif kind == "import":
        import json

        sid = f"kill-{os.getpid()}-{n}"
        wrapup = {
            "project": "c:/work/kill",
            "date": "2026-12-31T10:00:00",
            "session_id": sid,
            "summary": {"info": [sid]},
            "user_lessons": [{"type": "user_preference", "category": "c", "title": sid}],
            "ai_lessons": [{"type": "ai_trial_error", "category": "c", "title": sid}],
        }
        import_wrapup(ws, json.dumps(wrapup))
    elif kind == "export":
        export_feedback(ws, rng.choice(REPORTS), force=True)
    elif kind == "report":
        rid = next_report_id(ws, "20261231")
        doc = {"id": rid, "session_summary": "follow-up", "keep": [], "problem": [], "try": []}
        write_person_report(ws, None, rid, render_report(doc))
    elif kind == "undo":
        transactions.undo_last(ws)
    else:
        transactions.redo(ws)


def child(root: Path, t: Targets, seed: int, done_fd: int | None = None) -> None:
    """Random actions until killed, with short pauses around every file write; a byte
    written to ``done_fd`` after each transaction done."""
    rng = random.Random(seed)
    real = transactions.perform

    def slow(ws: Workspace, p: object) -> None:
        time.sleep(rng.random() * 0.004)
        real(ws, p)  # type: ignore[arg-type]
        if done_fd is not None:
            os.write(done_fd, b"t")
        time.sleep(rng.random() * 0.004)

    transactions.perform = slow  # type: ignore[assignment]
    ws = Workspace(root)
    n = 0
    while True:
        n += 1
        with contextlib.suppress(ReviewError, WriteError, transactions.UndoRefused):
            act(ws, t, rng, n)


def check(ws: Workspace) -> list[str]:
    """What is wrong after recovery: a transaction still open, or a file not as the last
    completed transaction that wrote it left it."""
    led = Ledger(ws.state_dir)
    problems = [f"still open: {r.id}" for r in led.open_transactions()]
    # per file, and per record of a file, the last completed transaction that changed it
    last: dict[str, tuple[str, dict[str, object]]] = {}
    for rec in sorted(led.txs.values(), key=lambda r: r.seq):
        if rec.status != "committed":
            continue
        for f in rec.files:
            last[str(f.get("path"))] = (rec.id, f)
            if f.get("how") == "record":
                last[f"{f.get('path')}#{f.get('record')}"] = (rec.id, f)
    for key, (tx, f) in last.items():
        st = where(ws, f)
        if st.where != "after":
            problems.append(f"{key}: not as {tx} left it ({st.where}: {st.why})")
    return problems


@dataclass(slots=True)
class Figures:
    runs: int = 0
    committed: int = 0
    rolled_back: int = 0
    rolled_back_with_files: int = 0
    inconsistent: int = 0
    undone_at_end: int = 0
    identical_at_end: bool = False
    problems: list[str] = field(default_factory=list)


def run(root: Path, runs: int, seed: int = 16, max_delay: float = 0.5) -> Figures:
    """``runs`` kills of a child working on a fresh demo copy at ``root``."""
    ws = make_workspace(root)
    initial = snapshot(root)
    t = targets(ws)
    rng = random.Random(seed)
    fig = Figures()
    for i in range(runs):
        done_r, done_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child never returns into the caller
            try:
                os.close(done_r)
                child(root, t, seed * 1000 + i, done_w)
            finally:
                os._exit(0)
        os.close(done_w)
        # killed at a random moment after its first transaction, however slow the machine
        # (a child killed before any would test nothing)
        os.read(done_r, 1)
        time.sleep(rng.uniform(0.02, max_delay))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(done_r)
        fig.runs += 1
        for r in transactions.recover(ws):
            fig.rolled_back += 1
            fig.rolled_back_with_files += bool(r.restored)
            if r.left:
                fig.problems.append(f"run {i}: {r.id} left {r.left}")
        bad = check(ws)
        if bad:
            fig.inconsistent += 1
            fig.problems += [f"run {i}: {b}" for b in bad]
    led = Ledger(ws.state_dir)
    fig.committed = sum(
        1 for r in led.txs.values() if r.status == "committed" and r.action not in ("undo", "redo")
    )
    while True:
        try:
            result = transactions.undo_last(ws)
        except transactions.UndoRefused as exc:
            fig.problems.append(f"undo at the end refused: {exc}")
            break
        if result is None:
            break
        fig.undone_at_end += 1
    now = snapshot(root)
    fig.identical_at_end = now == initial
    if not fig.identical_at_end:
        changed = sorted(k for k in set(now) | set(initial) if now.get(k) != initial.get(k))
        fig.problems.append(f"not as at the start: {changed[:5]}")
    return fig
