"""Two KPT reports naming one ``session_id`` (issue 40, point 8): a session reflected on
twice, or an id an agent reused. Both are listed and reviewed (the second is a session of
its own, with the same session id), the counts hold both, ``show --markdown`` works for
each, and ``lint`` warns on each file, naming the other."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from store.config import Config
from store.index.workspace_index import WorkspaceIndex
from store.insight.lint import lint_workspace
from store.workspace import Workspace
from tui.cli.main import main

FIRST, SECOND = "kpt-20261201-001", "kpt-20261201-002"


def write_report(root: Path, rid: str, n: int) -> Path:
    path = root / "hurikaeri" / f"{rid}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"id: {rid}\nsession_id: s-shared\nsession_summary: report {n}\n"
        f"created_at: '2026-12-01T1{n}:00:00+09:00'\n"
        f"keep:\n  - id: keep-001\n    description: keep of report {n}\n"
        f"problem:\n  - id: prob-001\n    description: problem of report {n}\n"
        "try: []\nomission: []\n",
        encoding="utf-8",
    )
    return path


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    write_report(root, FIRST, 1)
    write_report(root, SECOND, 2)
    summary = {"id": "ws-1", "date": "2026-12-01T12:30:00", "session_id": "s-shared",
               "session_name": "the shared session"}  # fmt: skip
    (root / "session-summaries").mkdir()
    (root / "session-summaries" / "summaries.jsonl").write_text(
        json.dumps(summary) + "\n", encoding="utf-8"
    )
    return root


def loaded(root: Path) -> WorkspaceIndex:
    index = WorkspaceIndex(Workspace(root, Config()), use_cache=False)
    index.load_all()
    return index


def reports_listed(index: WorkspaceIndex) -> dict[str | None, str | None]:
    """{report id: session id} of every session listed."""
    return {s.report_id: s.session_id for s in index.sessions.values() if s.report}


def test_both_reports_are_listed_and_counted(root: Path) -> None:
    index = loaded(root)
    assert reports_listed(index) == {FIRST: "s-shared", SECOND: "s-shared"}
    assert index.unreviewed_count() == 4
    for rid in (FIRST, SECOND):
        s = index.find_report(rid)
        assert s is not None and s.report_id == rid
        assert index.item_keys(s) == [f"{rid}/keep-001", f"{rid}/prob-001"]
    # the summary stays joined to the session (once: not to each report)
    assert [s.summary is not None for s in index.sessions.values()].count(True) == 1


def test_a_second_report_arriving_and_leaving_is_joined_again(root: Path) -> None:
    second = root / "hurikaeri" / f"{SECOND}.yaml"
    second.unlink()
    index = loaded(root)
    assert reports_listed(index) == {FIRST: "s-shared"}
    write_report(root, SECOND, 2)
    index.update([second])
    assert reports_listed(index) == {FIRST: "s-shared", SECOND: "s-shared"}
    assert index.unreviewed_count() == 4
    second.unlink()
    index.update([second])
    assert reports_listed(index) == {FIRST: "s-shared"}
    assert index.unreviewed_count() == 2
    assert index.shared_session_ids() == {}


def test_lint_warns_on_each_file_naming_the_other(root: Path) -> None:
    warned = {
        d.path: d.message
        for d in lint_workspace(Workspace(root, Config()))
        if d.code == "duplicate-session-id"
    }
    first, second = f"hurikaeri/{FIRST}.yaml", f"hurikaeri/{SECOND}.yaml"
    assert set(warned) == {first, second}
    assert "s-shared" in warned[first] and second in warned[first]
    assert first in warned[second]


def test_show_markdown_and_stats_hold_both(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for n, rid in ((1, FIRST), (2, SECOND)):
        capsys.readouterr()
        assert main(["--root", str(root), "show", rid, "--markdown"]) == 0
        out = capsys.readouterr().out
        assert f"keep of report {n}" in out and "s-shared" in out
    assert main(["--root", str(root), "stats"]) == 0
    out = capsys.readouterr().out
    assert "sessions 2 (KPT reports 2)" in out and "pending 4" in out
