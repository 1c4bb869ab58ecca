"""A workspace with targets and transcripts built like Claude Code's, at chosen times."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from store.config import Config
from store.workspace import Workspace
from tests.transcript_lines import TranscriptWriter

#: the day the fixtures' sessions are around
DAY = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
SLUG = "-home-me-app"


def tool(name: str, **args: Any) -> tuple[str, dict[str, Any], str, bool]:
    return (name, args, "ok", False)


def bash(command: str) -> tuple[str, dict[str, Any], str, bool]:
    return ("Bash", {"command": command}, "done", False)


def write_session(ws: Workspace, w: TranscriptWriter, when: datetime, slug: str = SLUG) -> Path:
    """``w``'s lines as a transcript of project ``slug``, its times moved to ``when``."""
    text = w.text().replace("2026-02-08T10:", when.strftime("%Y-%m-%dT%H:"))
    path = ws.root / "projects" / slug / f"{w.sid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def workspace(
    tmp_path: Path, claude_md: str, *, written: datetime = DAY - timedelta(days=60)
) -> Workspace:
    root = tmp_path / "claude"
    root.mkdir()
    (root / "hurikaeri").mkdir()
    path = root / "CLAUDE.md"
    path.write_text(claude_md, encoding="utf-8")
    stamp = written.timestamp()
    os.utime(path, (stamp, stamp))
    return Workspace(root, Config())


def add_skill(ws: Workspace, name: str, written: datetime) -> Path:
    path = ws.root / "skills" / name / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text(f"---\nname: {name}\ndescription: d\n---\n\n- step one\n", encoding="utf-8")
    stamp = written.timestamp()
    os.utime(path, (stamp, stamp))
    return path
