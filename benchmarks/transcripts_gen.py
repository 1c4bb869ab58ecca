"""Realistic Claude Code transcripts in bulk, and the figures of ``hurikaeri usage`` on them
(issue #46).

```sh
uv run python -m benchmarks.transcripts_gen DIR [--sessions 1000] [--scale 1.0] [--seed 7]
    [--projects 5] [--bench]
```

Writes a workspace under ``DIR``: a global ``CLAUDE.md`` and ``rules/`` with command rules,
path and tool prohibitions and plain advice, three skills, and ``--sessions`` transcripts
spread over ``--projects`` project folders and 180 days. Each transcript is in the real
format (see ``tests/transcript_lines.py``): prompts (some of them corrections), model
responses whose tool calls sit on lines of their own sharing a message id, tool results that
carry whole files and command output (the bulk of the bytes), sub-agent (sidechain) runs,
``Skill`` calls, ``/name`` commands and SKILL.md reads, and compactions. Sizes follow a mix of
1–50 MB (60 % 1–5 MB, 30 % 5–20 MB, 10 % 20–50 MB), times ``--scale`` (``0.02`` keeps the
shape at a fiftieth of the bytes).

``--bench`` then runs ``usage`` in a fresh process three times: the first computation (no
cache), a warm run with nothing changed, and a warm run after lines were appended to 5 % of
the transcripts; each prints its wall time, bytes read and peak RSS (MiB).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

RULES = """# Team rules

## Workflow

- Run `pnpm lint` before committing
- Run `pnpm test` before pushing
- Never edit `src/generated/` by hand
- Do not use WebFetch for internal documentation
- Never run `terraform apply` from a session
- Keep pull requests small and focused
- Read `docs/architecture.md` before changing module boundaries
"""
SKILLS = ("review-pr", "release-notes", "db-migrate")
WORDS = [
    "認証",
    "ミドルウェア",
    "トークン",
    "검증",
    "요청",
    "응답",
    "the",
    "handler",
    "returns",
    "a",
    "value",
    "when",
    "cache",
    "is",
    "cold",
    "retry",
    "budget",
    "exceeded",
    "config",
    "loader",
    "テスト",
    "失敗",
    "修正",
    "依存",
    "패키지",
    "설치",
    "빌드",
]
PROMPTS = (
    "JWT 認証ミドルウェアを追加して",
    "Add retries to the payment client",
    "테스트가 실패합니다. 원인을 찾아 주세요",
    "Refactor the config loader",
    "ログの出力を減らして",
)
CORRECTIONS = (
    "No, that's not it. I said use the existing client",
    "いや、違う。そこは直してください",
    "why are you doing that? I asked you to fix the test",
)
COMMANDS = (
    "pnpm lint",
    "pnpm test",
    "git status",
    "git diff --stat",
    "uv run pytest -q",
    "npm run build",
    "rg -n TODO src",
)
PATHS = (
    "src/auth/middleware.ts",
    "src/api/client.ts",
    "src/generated/schema.ts",
    "docs/architecture.md",
    "package.json",
    "src/config/loader.ts",
)


class Writer:
    """One transcript, written line by line to its file."""

    def __init__(self, fh: Any, sid: str, cwd: str, start: datetime, rnd: random.Random) -> None:
        self.fh, self.sid, self.cwd, self.t, self.rnd = fh, sid, cwd, start, rnd
        self.n = self.msg = self.size = 0

    def _line(self, kind: str, message: dict[str, Any], **extra: Any) -> None:
        self.t += timedelta(seconds=self.rnd.randint(1, 40))
        record = {
            "type": kind,
            "uuid": f"{self.sid[:8]}-{self.n}",
            "parentUuid": f"{self.sid[:8]}-{self.n - 1}" if self.n else None,
            "sessionId": self.sid,
            "timestamp": self.t.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
            "cwd": self.cwd,
            "isSidechain": False,
            "message": message,
            **extra,
        }
        raw = json.dumps(record, ensure_ascii=False) + "\n"
        self.fh.write(raw)
        self.size += len(raw.encode())
        self.n += 1

    def user(self, text: str, **extra: Any) -> None:
        self._line("user", {"role": "user", "content": text}, **extra)

    def text(self, text: str, **extra: Any) -> None:
        self.msg += 1
        content = [{"type": "text", "text": text}]
        self._line("assistant", {"id": f"msg_{self.msg}", "role": "assistant", "content": content}, **extra)  # fmt: skip

    def call(self, name: str, args: dict[str, Any], result: str, **extra: Any) -> None:
        self.msg += 1
        tid = f"toolu_{self.sid[:6]}_{self.msg}"
        use = [{"type": "tool_use", "id": tid, "name": name, "input": args}]
        self._line("assistant", {"id": f"msg_{self.msg}", "role": "assistant", "content": use}, **extra)  # fmt: skip
        res = [{"type": "tool_result", "tool_use_id": tid, "content": result, "is_error": False}]
        self._line("user", {"role": "user", "content": res}, **extra)


def _filler(rnd: random.Random, n: int) -> str:
    out: list[str] = []
    size = 0
    while size < n:
        line = " ".join(rnd.choices(WORDS, k=12))
        out.append(line)
        size += len(line) + 1
    return "\n".join(out)


def _size(rnd: random.Random, scale: float) -> int:
    r = rnd.random()
    lo, hi = (1, 5) if r < 0.6 else (5, 20) if r < 0.9 else (20, 50)
    return int(rnd.uniform(lo, hi) * 1024 * 1024 * scale)


def _turn(w: Writer, rnd: random.Random, root: Path, chunk: str) -> None:
    cwd = w.cwd
    w.user(rnd.choice(CORRECTIONS) if rnd.random() < 0.15 else rnd.choice(PROMPTS))
    w.text(" ".join(rnd.choices(WORDS, k=30)))
    for _ in range(rnd.randint(2, 6)):
        pick = rnd.random()
        if pick < 0.35:
            w.call("Read", {"file_path": f"{cwd}/{rnd.choice(PATHS)}"}, chunk)
        elif pick < 0.55:
            w.call("Edit", {"file_path": f"{cwd}/{rnd.choice(PATHS)}", "old_string": "a",
                            "new_string": "b"}, "The file has been updated.")  # fmt: skip
        elif pick < 0.85:
            w.call("Bash", {"command": rnd.choice(COMMANDS)}, chunk[: len(chunk) // 4])
        elif pick < 0.9:
            w.call("Bash", {"command": "git add -A && git commit -m 'wip'"}, "[main 1a2b3c] wip")
        elif pick < 0.93:
            w.call("WebFetch", {"url": "https://intranet.example/docs"}, chunk[:2000])
        else:
            skill = rnd.choice(SKILLS)
            how = rnd.randrange(3)
            if how == 0:
                w.call("Skill", {"skill": skill}, f"Launching skill: {skill}")
            elif how == 1:
                w.user(f"<command-message>{skill} is running…</command-message>\n"
                       f"<command-name>/{skill}</command-name>")  # fmt: skip
            else:
                w.call(
                    "Read", {"file_path": f"{root}/skills/{skill}/SKILL.md"}, "---\nname: x\n---"
                )
    if rnd.random() < 0.1:
        w.user("run the checks", isSidechain=True)
        w.call("Bash", {"command": "pnpm lint"}, chunk[:3000], isSidechain=True)


def write_session(
    path: Path, sid: str, cwd: str, start: datetime, size: int, rnd: random.Random, root: Path
) -> None:
    chunk = _filler(rnd, rnd.randint(8_000, 60_000))
    with path.open("w", encoding="utf-8") as fh:
        w = Writer(fh, sid, cwd, start, rnd)
        turns = 0
        while w.size < size:
            _turn(w, rnd, root, chunk)
            turns += 1
            if turns % 40 == 0:
                w._line("system", {"role": "system", "content": ""}, subtype="compact_boundary")
                w.user("This session is being continued… Summary: " + chunk[:1500], isCompactSummary=True)  # fmt: skip


def generate(root: Path, sessions: int, scale: float, seed: int, projects: int) -> int:
    """The workspace's targets and transcripts; the bytes of transcript written."""
    rnd = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    (root / "hurikaeri").mkdir(exist_ok=True)
    (root / "CLAUDE.md").write_text(RULES, encoding="utf-8")
    old = (datetime.now(UTC) - timedelta(days=200)).timestamp()
    os.utime(root / "CLAUDE.md", (old, old))
    for skill in SKILLS:
        p = root / "skills" / skill / "SKILL.md"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(f"---\nname: {skill}\ndescription: {skill}\n---\n\n- step\n", encoding="utf-8")
        os.utime(p, (old, old))
    now = datetime.now(UTC)
    total = 0
    for i in range(sessions):
        project = f"-home-me-proj{i % projects}"
        folder = root / "projects" / project
        folder.mkdir(parents=True, exist_ok=True)
        sid = f"{rnd.getrandbits(32):08x}-0000-4000-8000-{i:012d}"
        start = now - timedelta(days=rnd.uniform(0, 180))
        path = folder / f"{sid}.jsonl"
        write_session(
            path, sid, f"/home/me/proj{i % projects}", start, _size(rnd, scale), rnd, root
        )
        total += path.stat().st_size
    return total


def grow(root: Path, share: float, seed: int) -> int:
    """Append a few turns to ``share`` of the transcripts; the bytes appended."""
    rnd = random.Random(seed)
    files = sorted((root / "projects").glob("*/*.jsonl"))
    added = 0
    for path in rnd.sample(files, max(1, int(len(files) * share))):
        before = path.stat().st_size
        with path.open("a", encoding="utf-8") as fh:
            w = Writer(fh, path.stem, "/home/me/proj0", datetime.now(UTC), rnd)
            for _ in range(3):
                _turn(w, rnd, root, _filler(rnd, 4000))
        added += path.stat().st_size - before
    return added


_CHILD = """
import json, resource, sys, time
from pathlib import Path
from store.config import Config
from store.insight.usage import usage_report
from store.workspace import Workspace
t = time.perf_counter()
report = usage_report(Workspace(Path(sys.argv[1]), Config()))
print(json.dumps({"seconds": time.perf_counter() - t, "bytes_read": report.bytes_read,
    "sessions": report.sessions, "items": len(report.items),
    "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _run(root: Path) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(root)], capture_output=True, text=True, check=True
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", type=Path)
    ap.add_argument("--sessions", type=int, default=1000)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--projects", type=int, default=5)
    ap.add_argument("--bench", action="store_true")
    args = ap.parse_args()
    t = time.perf_counter()
    total = generate(args.dir, args.sessions, args.scale, args.seed, args.projects)
    print(f"wrote {args.sessions} transcripts, {total / 2**20:,.0f} MiB "
          f"in {time.perf_counter() - t:.0f} s")  # fmt: skip
    if not args.bench:
        return
    for name in ("first", "warm, unchanged"):
        r = _run(args.dir)
        print(f"{name}: {r['seconds']:.1f} s, read {r['bytes_read'] / 2**20:,.0f} MiB, "
              f"{r['sessions']} sessions, {r['items']} items, peak RSS {r['peak_rss_mib']:.0f} MiB")  # fmt: skip
    added = grow(args.dir, 0.05, args.seed + 1)
    r = _run(args.dir)
    print(f"warm, 5% grown ({added / 2**20:,.1f} MiB appended): {r['seconds']:.1f} s, "
          f"read {r['bytes_read'] / 2**20:,.1f} MiB, peak RSS {r['peak_rss_mib']:.0f} MiB")  # fmt: skip


if __name__ == "__main__":
    main()
