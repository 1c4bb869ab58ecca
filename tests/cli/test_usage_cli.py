"""``hurikaeri usage [--json] [PATH]`` (issue #46)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.store.usage_fixture import bash, tool, workspace, write_session
from tests.transcript_lines import TranscriptWriter
from tui.cli.main import main

RULE = "Run `pnpm lint` before committing"


def _root(tmp_path: Path) -> Path:
    now = datetime.now(UTC)
    ws = workspace(tmp_path, f"- {RULE}\n- Never edit `dist/`\n", written=now - timedelta(days=9))
    (ws.root / "rules").mkdir()
    (ws.root / "rules" / "web.md").write_text("- Do not use WebFetch\n", encoding="utf-8")
    w = TranscriptWriter("s-1").user("ship it")
    w.assistant("", [bash("pnpm lint"), bash("git commit -m ship")])
    w.sidechain("build", [("Edit", {"file_path": "/home/me/app/dist/a.js"}, "ok")])
    write_session(ws, w, now - timedelta(days=2))
    w = TranscriptWriter("s-2").user("quick fix")
    w.assistant("", [tool("Edit", file_path="/home/me/app/src/a.ts"), bash("git commit -m fix")])
    write_session(ws, w, now - timedelta(days=1))
    return ws.root


def test_usage_json_and_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _root(tmp_path)
    assert main(["usage", "--json", "--root", str(root)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["sessions"] == 2 and data["complete"] is True
    by_text = {i["text"]: i for i in data["items"]}
    lint = by_text[RULE]
    assert (lint["relevant"], lint["followed"], lint["checked"]) == (1, 1, 1)
    assert lint["names"] == ["pnpm lint"] and lint["written_from"] == "file modified"
    # the second session committed without pnpm: the rule did not apply there
    dist = by_text["Never edit `dist/`"]
    assert (dist["check"], dist["followed"], dist["checked"], dist["broken_in"]) == (
        "path prohibition", 0, 1, ["s-1"],
    )  # fmt: skip
    assert main(["usage", "--root", str(root)]) == 0
    out = capsys.readouterr()
    assert "CLAUDE.md:1  [rule, global] Run `pnpm lint` before committing" in out.out
    assert "relevant in 1 of 2 · followed 1 of 1" in out.out
    assert "3 rules and skills over 2 sessions" in out.err


def test_usage_of_one_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _root(tmp_path)
    assert main(["usage", "--json", "--root", str(root), str(root / "rules")]) == 0
    items = json.loads(capsys.readouterr().out)["items"]
    assert [i["text"] for i in items] == ["Do not use WebFetch"]
    assert main(["usage", "--root", str(root), str(root / "nowhere")]) == 1
    assert "no rule or skill of Targets there" in capsys.readouterr().err
