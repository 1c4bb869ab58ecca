"""Claude Code transcript lines for tests, in the real format (see
``../shared/corpus/claude-code-transcripts/``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SID = "0f6c7d1e-aaaa-4bbb-8ccc-123456789abc"
#: the corpus samples (claude-code-log's MIT-licensed test data, three lines broken on purpose)
CORPUS = Path(__file__).resolve().parent / "fixtures" / "claude-code-transcripts"


def _base(kind: str, n: int, sid: str, **extra: Any) -> dict[str, Any]:
    return {
        "type": kind,
        "uuid": f"u{n}",
        "parentUuid": f"u{n - 1}" if n else None,
        "sessionId": sid,
        "timestamp": f"2026-02-08T10:{n // 60 % 60:02d}:{n % 60:02d}Z",
        "cwd": "/home/me/app",
        "isSidechain": False,
        **extra,
    }


class TranscriptWriter:
    """Builds a transcript line by line: ``user``, ``assistant``, ``tool`` (a call and
    its result)."""

    def __init__(self, sid: str = SID) -> None:
        self.sid = sid
        self.lines: list[str] = []
        self.n = 0
        self.msg = 0

    def _add(self, record: dict[str, Any]) -> None:
        self.lines.append(json.dumps(record, ensure_ascii=False))
        self.n += 1

    def user(self, text: str) -> TranscriptWriter:
        self._add(
            _base(
                "user",
                self.n,
                self.sid,
                message={"role": "user", "content": [{"type": "text", "text": text}]},
            )
        )
        return self

    def assistant(
        self, text: str = "", tools: list[tuple[str, dict[str, Any], str, bool]] = ()
    ) -> TranscriptWriter:  # type: ignore[assignment]
        """One model response: its text, then each tool call on its own line (as Claude
        Code writes them: same ``message.id``), each result right after."""
        self.msg += 1
        mid = f"msg_{self.msg:04d}"
        if text:
            self._add(
                _base(
                    "assistant",
                    self.n,
                    self.sid,
                    message={
                        "id": mid,
                        "role": "assistant",
                        "content": [{"type": "text", "text": text}],
                    },
                )
            )
        for i, (name, tool_input, result, error) in enumerate(tools):
            tid = f"toolu_{self.msg}_{i}"
            self._add(
                _base(
                    "assistant",
                    self.n,
                    self.sid,
                    message={
                        "id": mid,
                        "role": "assistant",
                        "content": [
                            {"type": "tool_use", "id": tid, "name": name, "input": tool_input}
                        ],
                    },
                )
            )
            self._add(
                _base(
                    "user",
                    self.n,
                    self.sid,
                    message={
                        "role": "user",
                        "content": [
                            {
                                "type": "tool_result",
                                "tool_use_id": tid,
                                "content": result,
                                "is_error": error,
                            }
                        ],
                    },
                )
            )
        return self

    def snapshot(self) -> TranscriptWriter:
        """A ``file-history-snapshot`` line, as Claude Code writes before each prompt."""
        self.lines.append(
            json.dumps(
                {"type": "file-history-snapshot", "messageId": f"u{self.n}", "snapshot": {}},
            )
        )
        self.n += 1
        return self

    def system(self, subtype: str, **extra: Any) -> TranscriptWriter:
        """A ``system`` line (``stop_hook_summary``, ``compact_boundary``, ``turn_duration``)."""
        self._add(_base("system", self.n, self.sid, subtype=subtype, **extra))
        return self

    def compact(self, summary: str) -> TranscriptWriter:
        """What ``/compact`` leaves: a ``compact_boundary`` line, then the summary as a
        ``user`` line marked ``isCompactSummary``."""
        self.system("compact_boundary", content="Conversation compacted")
        self._add(
            _base(
                "user",
                self.n,
                self.sid,
                isCompactSummary=True,
                message={"role": "user", "content": summary},
            )
        )
        return self

    def sidechain(
        self, prompt: str, tools: list[tuple[str, dict[str, Any], str]]
    ) -> TranscriptWriter:
        """A sub-agent's lines in the session's own file (``isSidechain``, as Claude Code
        wrote them before sub-agents got files of their own): its prompt, its calls and
        their results."""
        self._add(
            _base(
                "user",
                self.n,
                self.sid,
                isSidechain=True,
                message={"role": "user", "content": prompt},
            )
        )
        for i, (name, tool_input, result) in enumerate(tools):
            tid = f"toolu_side_{self.n}_{i}"
            content = [{"type": "tool_use", "id": tid, "name": name, "input": tool_input}]
            self._add(
                _base(
                    "assistant",
                    self.n,
                    self.sid,
                    isSidechain=True,
                    message={"id": f"msg_side_{self.n}", "role": "assistant", "content": content},
                )
            )
            result_block = {"type": "tool_result", "tool_use_id": tid, "content": result}
            self._add(
                _base(
                    "user",
                    self.n,
                    self.sid,
                    isSidechain=True,
                    message={"role": "user", "content": [result_block]},
                )
            )
        return self

    def raw(self, line: str) -> TranscriptWriter:
        self.lines.append(line)
        self.n += 1
        return self

    def text(self) -> str:
        return "".join(line + "\n" for line in self.lines)

    def write(self, root: Path, slug: str = "-home-me-app") -> Path:
        path = root / "projects" / slug / f"{self.sid}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.text(), encoding="utf-8")
        return path


def sample_session(sid: str = SID) -> TranscriptWriter:
    """Ten turns: 1 you, 2 agent (reads package.json), 3 you, 4 agent (npm install fails),
    5 agent (text), 6 you, 7 agent (edits src/auth.ts, runs the tests), 8 agent, 9 you,
    10 agent."""
    w = TranscriptWriter(sid)
    w.user("JWT 認証ミドルウェアを追加してください")
    w.assistant(
        "まず依存を確認します",
        [
            (
                "Read",
                {"file_path": "/home/me/app/package.json"},
                '{"dependencies": {"jose": "5"}}',
                False,
            )
        ],
    )
    w.user("express-jwt を使って")
    w.assistant(
        "", [("Bash", {"command": "npm install express-jwt"}, "npm ERR! peer dep conflict", True)]
    )
    w.assistant("依存が衝突しました。jose を使います。")
    w.user("OK")
    w.assistant(
        "実装します",
        [
            (
                "Edit",
                {"file_path": "/home/me/app/src/auth.ts", "old_string": "a", "new_string": "b"},
                "ok",
                False,
            ),
            ("Bash", {"command": "npm test"}, "12 passing", False),
        ],
    )
    w.assistant("テストが通りました。")
    w.user("ありがとう")
    w.assistant("どういたしまして。")
    return w
