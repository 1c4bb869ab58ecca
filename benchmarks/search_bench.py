"""Search side by side: this tree against another checkout of the code, on copies of a workspace.

    uv run python -m benchmarks.generate /tmp/ws-gen --reports 10000 --lessons 100000
    git -C REPO archive BASE | tar -x -C /tmp/base && (cd /tmp/base && uv sync --locked)
    uv run python -m benchmarks.search_bench /tmp/ws-gen --before /tmp/base [--rounds 5]

Each version runs in its own processes (its own ``.venv/bin/python``, its code tree first on
the path) on its own copy of the workspace, taking turns in every round, so a loaded
machine weighs on both alike. Measured:

1. *Cold build*: ``python -m tui.cli.search`` with no index: wall, CPU (user + system of
   the command's own process: the parsing workers run under multiprocessing's forkserver,
   not as its children, and are left out) and peak RSS (``/usr/bin/time``); the index's
   size on disk against the workspace's.
2. *Whole process*: ``python -m tui.cli.search QUERY`` with the index built, per query, the
   two versions one after the other in each round (the order swapped every round): median
   wall and CPU per version and their ratio.
3. *Keystrokes*: each query typed a character at a time in one process, as the search
   screen's thread searches (50 hits, highlighted): p50 / p95 per key, RSS after typing.
4. *In-app build*: the workspace index loaded and the search index built as the app does
   (no index on disk), then every query typed: peak RSS of that process.
5. *Answers*: every query of :func:`corpus` (typed prefixes of words, typos, Japanese and
   Korean substrings, ids, filters) searched by both, 50 hits each: same count and hits,
   or the differences listed (``--answers OUT`` writes them all as JSON).

Figures are measured, not asserted: the machine, its load and its caches all count.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

LIMIT = 50  # what the search screen asks for
CLI_QUERIES = [
    "test",
    "retrybucket",
    "rate limit",
    "jwks cache",
    "タイムゾーン",
    "実デ",
    "재시도",
    "kpt-20251221-014",
    "confgi",
    "kind:try jwt after:2026-01",
]
KEY_QUERIES = [
    "config",
    "rate limit",
    "失敗するテスト",
    "타임존",
    "ll-ai-202506",
    "migraton scrpit",
]
#: The queries ``benchmarks.probe`` types, by class (:func:`keystrokes`).
QUERIES: dict[str, list[str]] = {
    "common": ["test", "error", "config"],
    "rare": ["retrybucket", "nullreference", "preflight"],
    "multi-word": ["rate limit", "migration script", "jwks cache"],
    "japanese": ["タイムゾーン", "失敗するテスト", "実データ"],
    "korean": ["타임존", "재시도"],
    "id-like": ["kpt-20251221-014", "ll-ai-202506", "ws-2026011"],
    "typo": ["confgi", "retrybukcet", "migraton scrpit"],
}
WORDS = ["test", "error", "config", "retrybucket", "nullreference", "preflight", "migration",
         "rotation", "timeout", "deadlock", "schema", "middleware", "tokenizer", "resolveCache"]  # fmt: skip
PHRASES = ["rate limit", "migration script", "jwks cache", "jwt rotation", "refresh token"]
CJK = ["タイムゾーン", "失敗するテスト", "実データ", "設定", "認証", "変更ファイル", "全テスト",
       "타임존", "재시도", "설정은", "한곳에", "확인했다", "원인을"]  # fmt: skip
IDS = ["kpt-20251221-014", "ll-ai-202506", "ws-2026011", "kpt-2026", "try-001", "prob-002"]
FILTERS = ["kind:try", "kind:lesson", "kind:kpt", "-kind:lesson", "project:api", "-project:web",
           "status:pending", "status:approved", "state:rejected,contested", "after:2026-06",
           "before:2025-09", "after:2026-01 before:2026-03", "outcome:success", "scope:imm",
           "category:debug", "kind:prob after:2026-10"]  # fmt: skip


def typos(word: str) -> list[str]:
    """A swap of neighbours, a dropped character and a doubled one, inside the word."""
    if len(word) < 5:
        return []
    m = len(word) // 2
    return [word[: m - 1] + word[m] + word[m - 1] + word[m + 1 :], word[:m] + word[m + 1 :],
            word[:m] + word[m] + word[m:]]  # fmt: skip


def corpus() -> list[str]:
    """Queries typed as a person types them: every prefix of words, phrases, CJK and ids;
    typos; CJK substrings of one character and more; filters alone and with words."""
    out: list[str] = []
    for text in [*WORDS, *PHRASES, *CJK, *IDS]:
        out += [text[:n] for n in range(1, len(text) + 1)]
    for word in WORDS:
        out += typos(word.lower())
    for text in CJK:
        out += [text[i : i + n] for n in (1, 2, 3) for i in range(0, len(text) - n + 1, 2)]
    for f in FILTERS:
        out += [f, f"{f} test", f"{f} 設定", f"jwt {f}"]
    out += ['"rate limit"', '"refresh token" -rotation', "-test error", "migration,script"]
    return list(dict.fromkeys(q for q in out if q.strip()))


#: Run by each version's Python with its code tree first on the path (argv: tree, workspace,
#: mode, queries as JSON). Both the custom container (``store.search.cache``) and the
#: tantivy index (``store.search.facade.open_index``) are opened the same way.
_CHILD = r"""
import json, resource, statistics, sys, time
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from store.workspace import Workspace
try:
    from store.search.facade import open_index
except ImportError:
    from store.search.cache import open_index
ws, mode, queries = Workspace(Path(sys.argv[2])), sys.argv[3], json.loads(sys.argv[4])

def rss():
    with open("/proc/self/status") as fh:
        return next(int(x.split()[1]) / 1024 for x in fh if x.startswith("VmRSS:"))

if mode == "app":
    from store.index.workspace_index import WorkspaceIndex
    from store.search.facade import search_for
    wi = WorkspaceIndex(ws)
    wi.load_all()
    handle = search_for(wi)
    handle.ensure()
    for q in queries:
        for n in range(1, len(q) + 1):
            handle.search(q[:n], 50)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"peak": peak, "rss": rss()}))
    sys.exit(0)
index, stats = open_index(ws)
from store.ledger import Ledger
ledger = Ledger(ws.state_dir)
if mode == "answers":
    out = {}
    for q in queries:
        r = index.search(q, 50, ledger=ledger, spans=False)
        out[q] = {"total": r.total, "exact": r.exact,
                  "error": r.error.message if r.error else None,
                  "hits": [[h.kind, h.id, h.path, h.count, h.tier] for h in r.hits]}
    print(json.dumps(out, ensure_ascii=False))
    sys.exit(0)
keys = []
for q in queries:
    index.search("", 50, ledger=ledger)
    for n in range(1, len(q) + 1):
        t0 = time.perf_counter()
        index.search(q[:n], 50, ledger=ledger, count=False)
        keys.append((time.perf_counter() - t0) * 1000)
print(json.dumps({"keys": keys, "rss": rss()}))
"""


class Side:
    def __init__(self, name: str, code: Path, ws: Path) -> None:
        self.name, self.code, self.ws = name, code.resolve(), ws
        venv = self.code / ".venv" / "bin" / "python"
        self.python = str(venv) if venv.exists() else sys.executable
        # the tree first on the path of its parsing workers too: they run with PYTHONSAFEPATH
        # (no working directory on the path), and would import this venv's project instead
        env = {**os.environ, "PYTHONPATH": str(self.code)}
        self.where: dict[str, Any] = {"cwd": self.code, "env": env}

    def child(self, mode: str, queries: Sequence[str]) -> Any:
        args = [self.python, "-c", _CHILD, str(self.code), str(self.ws), mode, json.dumps(queries)]
        out = subprocess.run(args, capture_output=True, text=True, check=False, **self.where)
        if out.returncode:
            raise SystemExit(f"{self.name} {mode}: {out.stderr[-3000:]}")
        return json.loads(out.stdout.strip().splitlines()[-1])

    def cli(self, query: str) -> tuple[float, float, float]:
        """Wall (ms), CPU (ms) and peak RSS (MB) of one ``python -m tui.cli.search``."""
        module = (
            "tui.cli_search" if (self.code / "tui/cli_search.py").exists() else "tui.cli.search"
        )
        cmd = ["/usr/bin/time", "-f", "%e %U %S %M", self.python, "-m", module]
        cmd += ["--root", str(self.ws), "--limit", "20", "--", query]
        t0 = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, text=True, check=False, **self.where)
        wall = (time.perf_counter() - t0) * 1000
        _e, user, sys_, peak = out.stderr.strip().splitlines()[-1].split()
        return wall, (float(user) + float(sys_)) * 1000, int(peak) / 1024

    def drop_index(self) -> None:
        state = self.ws / ".hurikaeri"
        for p in [*state.glob("search-cache-v*"), *state.glob("search-v*")]:
            shutil.rmtree(p) if p.is_dir() else p.unlink()

    def index_bytes(self) -> int:
        state = self.ws / ".hurikaeri"
        paths = [*state.glob("search-cache-v*"), *state.glob("search-v*")]
        return sum(f.stat().st_size for p in paths for f in ([p] if p.is_file() else p.rglob("*")))


def tree_bytes(root: Path) -> int:
    return sum(
        f.stat().st_size for f in root.rglob("*") if f.is_file() and ".hurikaeri" not in f.parts
    )


def med(values: list[float]) -> float:
    return statistics.median(values) if values else 0.0


def percentile(values: Sequence[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, round((len(s) - 1) * p / 100))] if s else 0.0


pct = percentile


def keystrokes(index: Any, repeat: int) -> dict[str, list[float]]:
    """Per class of :data:`QUERIES`, the time of every key (ms, median of ``repeat``
    typings), each typing from an empty box, searched as the screen does while typing."""
    out: dict[str, list[float]] = {}
    for category, queries in QUERIES.items():
        times: list[float] = []
        for query in queries:
            runs = []
            for _ in range(repeat):
                index.search("", LIMIT)
                one = []
                for n in range(1, len(query) + 1):
                    t0 = time.perf_counter()
                    index.search(query[:n], LIMIT, count=False)
                    one.append((time.perf_counter() - t0) * 1000)
                runs.append(one)
            times += [statistics.median(col) for col in zip(*runs, strict=True)]
        out[category] = times
    return out


def answers(before: dict[str, Any], after: dict[str, Any]) -> dict[str, list[str]]:
    """Queries by how the two answers compare."""

    def hits(a: dict[str, Any]) -> list[tuple[str, str]]:
        return [(h[0], h[1]) for h in a["hits"]]

    out: dict[str, list[str]] = {}
    for q in before:
        b, a = before[q], after[q]
        if (b["error"] is None) != (a["error"] is None):
            kind = "error in one only"
        elif b["total"] == a["total"] and hits(b) == hits(a):
            kind = "same count and hits, same order"
        elif b["total"] == a["total"] and set(hits(b)) == set(hits(a)):
            kind = "same count and hits, other order"
        elif b["total"] == a["total"]:
            kind = "same count, other hits (ties of rank among more than 50)"
        elif a["total"] > b["total"]:
            kind = "more found"
        else:
            kind = "fewer found"
        out.setdefault(kind, []).append(q)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.search_bench", description=__doc__.split("\n")[0]
    )
    p.add_argument("workspace", type=Path, help="a generated workspace (copied for each side)")
    p.add_argument("--before", type=Path, required=True, help="the other checkout of the code")
    p.add_argument("--rounds", type=int, default=5, help="rounds of the whole-process runs")
    p.add_argument("--answers", type=Path, help="write every query's two answers here (JSON)")
    p.add_argument("--skip-build", action="store_true", help="copies kept from a run before")
    p.add_argument("--skip-app", action="store_true", help="no in-app build (minutes at 10k)")
    p.add_argument("--tmp", type=Path, default=Path(tempfile.gettempdir()) / "search-bench")
    a = p.parse_args(argv)
    sides = [
        Side("before", a.before, a.tmp / "before"),
        Side("after", Path(__file__).parents[1], a.tmp / "after"),
    ]
    ws_bytes = tree_bytes(a.workspace)
    print(
        f"workspace {a.workspace}: {ws_bytes / 1e6:.1f} MB; load average {os.getloadavg()[0]:.1f}"
    )
    if not a.skip_build:
        for s in sides:
            shutil.rmtree(s.ws, ignore_errors=True)
            shutil.copytree(a.workspace, s.ws, symlinks=True)
        print(
            "\ncold build (python -m tui.cli.search, no index): wall s, CPU s, peak RSS MB, index MB"
        )
        for s in sides:
            s.drop_index()
            wall, cpu, peak = s.cli("warm-up")
            size = s.index_bytes()
            print(f"  {s.name:<7} {wall / 1000:6.1f} {cpu / 1000:6.1f} {peak:6.0f} {size / 1e6:7.1f}"
                  f"  ({size / ws_bytes:.2f}× the workspace)")  # fmt: skip
    print(f"\nwhole process per query, ms, medians of {a.rounds} rounds (wall; CPU)")
    walls: dict[str, dict[str, list[float]]] = {s.name: {q: [] for q in CLI_QUERIES} for s in sides}
    cpus: dict[str, dict[str, list[float]]] = {s.name: {q: [] for q in CLI_QUERIES} for s in sides}
    for r in range(a.rounds):
        for q in CLI_QUERIES:
            for s in sides if r % 2 == 0 else sides[::-1]:
                wall, cpu, _peak = s.cli(q)
                walls[s.name][q].append(wall)
                cpus[s.name][q].append(cpu)
    ratios = []
    for q in CLI_QUERIES:
        b, f = med(walls["before"][q]), med(walls["after"][q])
        ratios.append(b / f)
        print(f"  {q:<28} before {b:6.0f}; {med(cpus['before'][q]):6.0f}   after {f:6.0f}; "
              f"{med(cpus['after'][q]):6.0f}   {b / f:4.1f}× faster")  # fmt: skip
    print(f"  median ratio {med(ratios):.1f}× (min {min(ratios):.1f}, max {max(ratios):.1f})")
    print("\nkeystrokes in one process (search(text, 50) per key), ms")
    for s in sides:
        got = s.child("keys", KEY_QUERIES)
        print(f"  {s.name:<7} p50 {pct(got['keys'], 50):6.1f}  p95 {pct(got['keys'], 95):6.1f}  "
              f"max {max(got['keys']):6.1f}  RSS after typing {got['rss']:.0f} MB")  # fmt: skip
    print("\nin-app build (workspace index loaded, search index built, queries typed): peak RSS")
    for s in [] if a.skip_app else sides:
        s.drop_index()
        got = s.child("app", KEY_QUERIES)
        print(f"  {s.name:<7} {got['peak']:.0f} MB")
    queries = corpus()
    got_b, got_a = (s.child("answers", queries) for s in sides)
    print(f"\nanswers on {len(queries)} queries (50 hits each)")
    for kind, qs in sorted(answers(got_b, got_a).items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(qs):4} {kind}: {', '.join(qs[:8])}{' …' if len(qs) > 8 else ''}")
    if a.answers is not None:
        a.answers.write_text(json.dumps({"before": got_b, "after": got_a}, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
