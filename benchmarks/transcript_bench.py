"""Opening a large transcript: time to the first turns on screen, memory while shown.

```sh
uv run python -m benchmarks.transcript_bench [--size-mb 50] [--runs 5] [--keep DIR]
    [--shape tools|messages]
```

Generates a Claude Code transcript of ``--size-mb`` MB in the real format (prompts and
replies in Japanese, Korean and English, tool calls whose results are whole files and
command output, some errors; ``--shape messages``: one-line messages only, each its own
turn, the most rows per MB), then, ``--runs`` times, each in a fresh process:

- **baseline**: the same process with the app up and nothing shown (its RSS), and a bare
  parse of the file with ``json.loads`` line by line (no app, no model) for scale;
- **first turns**: from mounting :class:`TranscriptView` to its first rows being set, and
  to the table first rendering lines with rows in them;
- **all read**: until the last batch is shown;
- **memory growth**: the largest RSS sampled while the view is shown (after each batch
  and at the end) minus the baseline RSS.

Medians are printed (``--json`` for the raw runs). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SID = "5b1c0d2e-3f4a-4b5c-8d6e-7f8091a2b3c4"
WORDS = [
    "認証",
    "ミドルウェア",
    "テスト",
    "依存",
    "確認",
    "修正",
    "実装",
    "設定",
    "인증",
    "테스트",
    "의존성",
    "수정",
    "구현",
    "설정",
    "the",
    "middleware",
    "test",
    "dependency",
    "fix",
    "implement",
    "config",
    "token",
    "refresh",
    "session",
    "cache",
    "error",
    "retry",
    "handler",
    "route",
    "schema",
    "migration",
    "index",
    "query",
]


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def generate(path: Path, size_mb: int, seed: int = 1, shape: str = "tools") -> int:
    """Write a transcript of about ``size_mb`` MB; returns its number of lines.
    ``shape="messages"``: one-line messages only, each its own turn (the worst case for
    memory: the most turns and rows per MB)."""
    rng = random.Random(seed)
    target = size_mb * 1024 * 1024
    path.parent.mkdir(parents=True, exist_ok=True)
    written = lines = n = msg = 0

    def base(kind: str) -> dict[str, object]:
        nonlocal n
        n += 1
        return {
            "parentUuid": f"u{n - 1}",
            "isSidechain": False,
            "userType": "external",
            "cwd": "/home/me/app",
            "sessionId": SID,
            "version": "1.0.80",
            "type": kind,
            "uuid": f"u{n}",
            "timestamp": f"2026-02-08T{10 + n // 3600 % 10:02d}:{n // 60 % 60:02d}:{n % 60:02d}Z",
        }

    with path.open("w", encoding="utf-8") as fh:

        def emit(record: dict[str, object]) -> None:
            nonlocal written, lines
            line = json.dumps(record, ensure_ascii=False) + "\n"
            fh.write(line)
            written += len(line.encode())
            lines += 1

        while shape == "messages" and written < target:
            msg += 1
            role = "user" if msg % 2 else "assistant"
            message: dict[str, object] = {"role": role, "content": _text(rng, rng.randint(5, 40))}
            if role == "assistant":
                message = {
                    "id": f"msg_{msg:06d}",
                    "role": role,
                    "content": [{"type": "text", "text": message["content"]}],
                }
            emit({**base(role), "message": message})
        while written < target:
            emit(
                {
                    **base("user"),
                    "message": {"role": "user", "content": _text(rng, rng.randint(5, 60))},
                }
            )
            for _ in range(rng.randint(1, 6)):
                msg += 1
                mid = f"msg_{msg:06d}"
                emit(
                    {
                        **base("assistant"),
                        "message": {
                            "id": mid,
                            "role": "assistant",
                            "content": [{"type": "text", "text": _text(rng, rng.randint(10, 300))}],
                        },
                    }
                )
                for k in range(rng.randint(0, 3)):
                    tool = rng.choice(["Read", "Bash", "Edit", "Grep"])
                    tid = f"toolu_{msg}_{k}"
                    inp: dict[str, object] = (
                        {"command": f"npm test -- {rng.choice(WORDS)}"}
                        if tool == "Bash"
                        else {"file_path": f"/home/me/app/src/m{rng.randint(1, 400)}.ts"}
                    )
                    if tool == "Edit":
                        inp |= {"old_string": _text(rng, 200), "new_string": _text(rng, 220)}
                    emit(
                        {
                            **base("assistant"),
                            "message": {
                                "id": mid,
                                "role": "assistant",
                                "content": [
                                    {"type": "tool_use", "id": tid, "name": tool, "input": inp}
                                ],
                            },
                        }
                    )
                    # mostly short output, now and then a whole file
                    big = rng.random() < 0.15
                    body = _text(rng, rng.randint(1000, 6000) if big else rng.randint(20, 400))
                    error = rng.random() < 0.05
                    emit(
                        {
                            **base("user"),
                            "message": {
                                "role": "user",
                                "content": [
                                    {
                                        "type": "tool_result",
                                        "tool_use_id": tid,
                                        "content": body,
                                        "is_error": error,
                                    }
                                ],
                            },
                            "toolUseResult": {"stdout": body[:2000]},
                        }
                    )
    return lines


def _rss() -> int:
    """Current resident set size in bytes (Linux ``/proc``; ``ru_maxrss`` elsewhere)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def bare_parse(path: Path) -> tuple[float, float]:
    """Seconds to ``json.loads`` the first 200 lines, and every line."""
    t0 = time.perf_counter()
    first = 0.0
    with path.open("rb") as fh:
        for i, line in enumerate(fh):
            json.loads(line)
            if i == 199:
                first = time.perf_counter() - t0
    return first, time.perf_counter() - t0


def child(root: Path) -> dict[str, float]:
    """One run, in this (fresh) process: the app up, then the view mounted."""
    from textual.app import App, ComposeResult
    from textual.containers import Vertical

    from screens.widgets.transcript_view import TranscriptView
    from store.workspace import Workspace

    ws = Workspace(root)
    out: dict[str, float] = {}
    samples: list[int] = []

    from screens.widgets.virtual_table import VirtualTable

    render_lines = VirtualTable.render_lines

    def timed_render_lines(table: VirtualTable, crop):  # type: ignore[no-untyped-def]
        if len(table.rows) and "first_paint_s" not in out and "t0" in out:
            out["first_paint_s"] = time.perf_counter() - out["t0"]
        return render_lines(table, crop)

    VirtualTable.render_lines = timed_render_lines  # type: ignore[method-assign]

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield Vertical(id="box")

        def on_transcript_view_loaded(self, event: TranscriptView.Loaded) -> None:
            samples.append(_rss())
            now = time.perf_counter()
            out.setdefault("first_rows_s", now - out["t0"])
            if event.done:
                out["all_read_s"] = now - out["t0"]
                out["turns"] = event.turns
                done.set()

    done = asyncio.Event()

    async def main() -> None:
        app = Host()
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            out["baseline_rss_mb"] = _rss() / 2**20
            out["t0"] = time.perf_counter()
            await app.query_one("#box").mount(TranscriptView(ws, SID))
            await done.wait()
            await pilot.pause()
            samples.append(_rss())
            out["growth_mb"] = (max(samples) - out["baseline_rss_mb"] * 2**20) / 2**20

    asyncio.run(main())
    first, whole = bare_parse(root / "projects" / "-home-me-app" / f"{SID}.jsonl")
    out["bare_first_200_s"] = first
    out["bare_all_s"] = whole
    del out["t0"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mb", type=int, default=50)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="generate into (or reuse) this root")
    parser.add_argument(
        "--shape",
        choices=["tools", "messages"],
        default="tools",
        help="tool calls and results (default), or one-line messages only (most turns per MB)",
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child)))
        return
    root = args.keep or Path(tempfile.mkdtemp(prefix="transcript-bench-"))
    path = root / "projects" / "-home-me-app" / f"{SID}.jsonl"
    if not path.exists():
        t0 = time.perf_counter()
        lines = generate(path, args.size_mb, shape=args.shape)
        print(
            f"generated {path.stat().st_size / 2**20:.1f} MB, {lines} lines in "
            f"{time.perf_counter() - t0:.1f} s",
            file=sys.stderr,
        )
    runs = []
    for _ in range(args.runs):
        result = subprocess.run(
            [sys.executable, "-m", "benchmarks.transcript_bench", "--child", str(root)],
            check=True,
            capture_output=True,
            text=True,
        )
        runs.append(json.loads(result.stdout.strip().splitlines()[-1]))
    if args.json:
        print(json.dumps(runs, indent=2))
        return
    size = path.stat().st_size / 2**20
    print(f"transcript: {size:.1f} MB, {int(runs[0]['turns'])} turns; medians of {len(runs)} runs")
    for key, label in [
        ("first_rows_s", "first turns set (s)"),
        ("first_paint_s", "first turns rendered (s)"),
        ("all_read_s", "whole transcript shown (s)"),
        ("bare_first_200_s", "baseline: json.loads of 200 lines (s)"),
        ("bare_all_s", "baseline: json.loads of every line (s)"),
        ("baseline_rss_mb", "baseline: app RSS, nothing shown (MB)"),
        ("growth_mb", "RSS growth while shown (MB)"),
    ]:
        values = [r[key] for r in runs]
        print(
            f"  {label:<42} {statistics.median(values):8.3f}   (min {min(values):.3f}, max {max(values):.3f})"
        )


if __name__ == "__main__":
    main()
