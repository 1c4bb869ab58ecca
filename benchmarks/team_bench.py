"""A team's workspace at scale (issue 22), against a single author's in the same run.

    uv run python -m benchmarks.team_bench [--runs 3] [--keys 20] [--cache DIR] [--json OUT]

Generates (once; kept under ``--cache``, default ``/tmp/hurikaeri-team-bench``, and reused
while the sizes and the seed are the same):

- **solo**: the usual single-author workspace of :mod:`benchmarks.generate`
  (10,000 reports, 100,000 lessons, one ``ledger.jsonl``);
- **team**: 50 authors, each with their own ``team/<login>/hurikaeri``, ``feedback``,
  ``session-summaries`` and ``lessons`` (1,000 reports and 10,000 lessons each, written by
  :func:`benchmarks.generate.make_unit` with the author's own seed and one pool of recurring
  learnings shared by the team), found through location globs in a config file
  (``kpt = "team/*/hurikaeri"``, …); one shared knowledge base, memory, discussions and
  pieces at the root (as :func:`benchmarks.generate.knowledge` writes them for 50,000
  reports); and 50 ledgers under ``.hurikaeri/ledger/``, one per reviewer, in the format
  transactions write: a third of the reports reviewed, by their author or a teammate, some
  items approved a section at a time, rejections with notes, second opinions (half of them
  disagreeing: contested items, some settled later with ``resolves``), undos and reopens.
  Report ids collide between authors, as daily counters on 50 machines do.

Then, round by round, each workspace in fresh processes one after the other (the probes of
:mod:`benchmarks.run` / :mod:`benchmarks.probe`, so imports, caches and peak RSS start clean
and the machine's load touches both alike): the **warm index** (``load_all`` with the index
cache present), the **app** (first paint, every session listed, fully loaded, peak RSS with
its workers) and the **fold** of every ledger alone. The table shows medians (min–max) for
both and their ratio, beside the ratio of the data (5×): linear growth keeps the ratio near
it. ``--profile`` also profiles the warm index and the fold of each workspace in-process and
lists the functions whose own time grew most against the data.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import itertools
import json
import multiprocessing
import os
import pstats
import random
import re
import shlex
import shutil
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from benchmarks import generate as gen
from benchmarks.run import ProbeFailed, machine, probe

DEFAULT_CACHE = Path("/tmp/hurikaeri-team-bench")
#: the team's locations, one directory (or file) per author
TEAM_CONFIG = """\
[paths]
kpt = "team/*/hurikaeri"
feedback = "team/*/feedback"
summaries = "team/*/session-summaries"
lessons_user = "team/*/lessons/user/lessons.jsonl"
lessons_ai = "team/*/lessons/ai/lessons.jsonl"
"""
FIRST = ["aki", "minji", "sam", "yuna", "jun", "lee", "kenta", "hana", "omar", "ines"]
LAST = ["tanaka", "kim", "park", "sato", "smith", "garcia", "ito", "choi", "meyer", "suzuki"]
ZONES = [timezone(timedelta(hours=h)) for h in (9, 9, 9, 0, 1, -5, -8, 2, 5.5, 8)]
Result = dict[str, Any]

# -- the team's workspace ---------------------------------------------------------------------


def authors(n: int) -> list[str]:
    """``n`` distinct e-mail addresses (their local part is the author's directory)."""
    names = [f"{f}.{ln}" for ln, f in itertools.product(LAST, FIRST)]
    return [f"{names[i % len(names)]}{i // len(names) or ''}@team.example" for i in range(n)]


def login(email: str) -> str:
    return email.split("@", 1)[0]


_ID = re.compile(r"(?m)^id: (\S+)$")
_AT = re.compile(r'(?m)^created_at: "([^"]+)"$')
_ITEM = re.compile(r"(?m)^  - id: (\S+)$")


def report_items(text: str) -> tuple[str, str, list[str]] | None:
    """``(report id, created_at, item ids)`` of a generated report's text."""
    rid, at = _ID.search(text), _AT.search(text)
    if rid is None or at is None:
        return None
    return rid.group(1), at.group(1), _ITEM.findall(text)


def _team_unit(args: tuple[int, tuple[Any, ...]]) -> tuple[int, dict[str, object]]:
    author, unit = args
    return author, gen.make_unit(*unit)


def generate_team(
    out: Path,
    n_authors: int,
    reports: int,
    lessons: int,
    seed: int,
    workers: int | None,
    log: Callable[[str], None],
) -> dict[str, int]:
    """Write the team's workspace under ``out`` (see the module's docstring)."""
    t0 = time.perf_counter()
    people = authors(n_authors)
    per_r, per_l = reports // n_authors, lessons // n_authors
    sessions = max(per_r, per_l // 10, 1)
    canon = gen.canonical(seed, max(50, sessions * n_authors // 5))  # shared by the team
    units = [
        (
            a,
            (
                seed * 1000 + a + 1,
                u,
                lo,
                min(lo + gen.CHUNK, sessions),
                sessions,
                per_r,
                per_l,
                canon,
            ),
        )
        for a in range(n_authors)
        for u, lo in enumerate(range(0, sessions, gen.CHUNK))
    ]
    counts = {"files": 0, "reports": 0, "lessons": 0, "summaries": 0}
    # (author, report id, created, items, where)
    made: list[tuple[int, str, str, list[str], str]] = []
    summaries: dict[str, list[str]] = {}
    current: int | None = None
    fu = fa = None

    def flush() -> None:
        nonlocal fu, fa
        if fu is not None and fa is not None and current is not None:
            fu.close()
            fa.close()
            top = out / "team" / login(people[current])
            for slug, lines in summaries.items():
                gen._write(top / "session-summaries" / slug / "summaries.jsonl", "\n".join(lines))
                counts["summaries"] += len(lines)
            summaries.clear()
        fu = fa = None

    nproc = workers or os.cpu_count() or 1
    with multiprocessing.get_context("fork").Pool(nproc) as pool:
        for a, res in pool.imap(_team_unit, units, chunksize=1):
            top = out / "team" / login(people[a])
            if a != current:
                flush()
                current = a
                (top / "lessons/user").mkdir(parents=True, exist_ok=True)
                (top / "lessons/ai").mkdir(parents=True, exist_ok=True)
                fu = open(top / "lessons/user/lessons.jsonl", "w", encoding="utf-8")  # noqa: SIM115
                fa = open(top / "lessons/ai/lessons.jsonl", "w", encoding="utf-8")  # noqa: SIM115
                if a % 10 == 0:
                    log(f"  author {a + 1}/{n_authors}…")
            assert fu is not None and fa is not None
            for rel, text in res["files"]:  # type: ignore[attr-defined]
                gen._write(top / rel, text)
                counts["files"] += 1
                if rel.startswith("hurikaeri/"):
                    counts["reports"] += 1
                    got = report_items(text)
                    if got is not None:  # where it lies: decisions record it (store.located)
                        made.append((a, *got, f"team/{login(people[a])}/{rel}"))
            for slug, lines in res["summaries"].items():  # type: ignore[attr-defined]
                summaries.setdefault(slug, []).extend(lines)
            fu.writelines(line + "\n" for line in res["user"])  # type: ignore[attr-defined]
            fa.writelines(line + "\n" for line in res["ai"])  # type: ignore[attr-defined]
            counts["lessons"] += len(res["user"]) + len(res["ai"])  # type: ignore[arg-type]
        flush()
    gen.knowledge(seed, out, reports, canon)  # one knowledge base for the team
    (out / "CLAUDE.md").write_text("# Project rules\n\n## Rules\n- Read before writing.\n")
    counts |= write_ledgers(out / ".hurikaeri" / "ledger", people, made, seed)
    log(f"generated the team's workspace {counts} in {time.perf_counter() - t0:.0f} s under {out}")
    return counts


class _Reviewer:
    """One reviewer's transactions, kept as (time, line) until written in time order."""

    def __init__(self, email: str, zone: timezone) -> None:
        self.email, self.zone = email, zone
        self.lines: list[tuple[datetime, str]] = []

    def commit(
        self,
        r: random.Random,
        when: datetime,
        action: str,
        effects: list[dict[str, Any]],
        note: str | None = None,
        undoes: str | None = None,
    ) -> str:
        tx = f"{r.getrandbits(48):012x}"
        subjects = sorted({str(e["target"]) for e in effects}) or [str(note or "")]
        rec: dict[str, Any] = {
            "id": tx,
            "at": when.astimezone(self.zone).isoformat(timespec="seconds"),
            "op": "commit",
            "target": subjects[0],
            "tx": tx,
            "action": action,
            "who": self.email,
            "subjects": subjects,
        }
        if note:
            rec["note"] = note
        if undoes:
            rec["undoes"] = undoes
        rec["effects"] = effects
        self.lines.append((when, json.dumps(rec, ensure_ascii=False)))
        return tx


NOTES = [
    "evidence does not show this",
    "根拠が弱い",
    "already in CLAUDE.md",
    "중복된 내용",
    "too specific to this session",
    "対象のファイルが違う",
]


def write_ledgers(
    ledger_dir: Path,
    people: list[str],
    made: list[tuple[int, str, str, list[str], str]],
    seed: int,
) -> dict[str, int]:
    """The reviewers' ledgers: a third of the reports reviewed (see the module docstring).
    Report ids collide between authors, so every decision names its report's place, as
    the app and the command line record it (``store.located``)."""
    from store.located import report_key
    from store.team import file_name

    r = random.Random(seed * 31 + 22)
    revs = [_Reviewer(p, ZONES[i % len(ZONES)]) for i, p in enumerate(people)]
    second = contested = undos = reopens = 0
    for author, plain_rid, created, items, loc in made:
        if not items or r.random() >= 0.33:
            continue
        rid = report_key(plain_rid, loc)
        try:
            t = datetime.fromisoformat(created).astimezone(UTC)
        except ValueError:
            continue
        rev = revs[author] if r.random() < 0.6 else r.choice(revs)
        t += timedelta(hours=r.uniform(0.5, 96))
        picked = [i for i in items if r.random() < 0.55] or [r.choice(items)]
        txs: dict[str, tuple[str, str]] = {}  # item → (tx, op) of its standing decision
        keeps = [i for i in picked if i.startswith("keep-")]
        if len(keeps) > 1 and r.random() < 0.3:  # the keep section approved at once
            effects = [{"op": "approve", "target": f"{rid}/{i}", "loc": loc} for i in keeps]
            tx = rev.commit(r, t, "approve-section", effects)
            txs |= {i: (tx, "approve") for i in keeps}
            picked = [i for i in picked if i not in keeps]
        for item in picked:
            t += timedelta(seconds=r.randint(5, 90))
            op = "approve" if r.random() < 0.8 else "reject"
            note = r.choice(NOTES) if op == "reject" and r.random() < 0.6 else None
            eff: dict[str, Any] = {"op": op, "target": f"{rid}/{item}", "loc": loc}
            if note:
                eff["note"] = note
            tx = rev.commit(r, t, op, [eff], note)
            txs[item] = (tx, op)
            if r.random() < 0.01:  # changed their mind
                t += timedelta(seconds=r.randint(2, 30))
                rev.commit(r, t, "undo", [], f"{op} {rid}/{item}", undoes=tx)
                del txs[item]
                undos += 1
        if txs and r.random() < 0.06:  # a second opinion on one or two items
            other = r.choice([x for x in revs if x is not rev])
            t2 = t + timedelta(hours=r.uniform(1, 200))
            for item in r.sample(sorted(txs), min(len(txs), r.randint(1, 2))):
                tx, op = txs[item]
                agree = r.random() < 0.5
                op2 = op if agree else ("reject" if op == "approve" else "approve")
                t2 += timedelta(seconds=r.randint(5, 60))
                tx2 = other.commit(r, t2, op2, [{"op": op2, "target": f"{rid}/{item}", "loc": loc}])
                second += 1
                if agree:
                    continue
                contested += 1
                if r.random() < 0.4:  # settled later by one of them
                    who = r.choice([rev, other])
                    t3 = t2 + timedelta(hours=r.uniform(1, 48))
                    eff = {"op": op, "target": f"{rid}/{item}", "loc": loc, "resolves": [tx, tx2]}
                    who.commit(r, t3, op, [eff])
                elif r.random() < 0.1:
                    t3 = t2 + timedelta(hours=r.uniform(1, 48))
                    rev.commit(
                        r, t3, "reopen", [{"op": "reopen", "target": f"{rid}/{item}", "loc": loc}]
                    )
                    reopens += 1
    ledger_dir.mkdir(parents=True, exist_ok=True)
    lines = 0
    for rev in revs:
        rev.lines.sort(key=lambda tl: tl[0])
        text = "".join(line + "\n" for _t, line in rev.lines)
        (ledger_dir / f"{file_name(rev.email)}.jsonl").write_text(text, encoding="utf-8")
        lines += len(rev.lines)
    return {
        "ledgers": len(revs),
        "ledger_lines": lines,
        "second_opinions": second,
        "disagreements": contested,
        "undos": undos,
        "reopens": reopens,
    }


def ensure(
    cache: Path, which: str, params: dict[str, int], workers: int | None, log: Callable[[str], None]
) -> Path:
    """The workspace ``which`` (``solo`` or ``team``) under ``cache``, generated when it is
    missing or was made with other parameters."""
    root, marker = cache / which, cache / f"{which}.json"
    want = json.dumps(params, sort_keys=True)
    if root.is_dir() and marker.is_file() and marker.read_text() == want:
        return root
    if root.exists():
        shutil.rmtree(root)
    for part in cache.glob("ledgers-*"):  # made from the team's ledgers: stale now
        shutil.rmtree(part)
    marker.unlink(missing_ok=True)
    root.mkdir(parents=True)
    log(f"generating the {which} workspace under {root} (once; kept for the next runs)…")
    if which == "team":
        generate_team(
            root,
            params["authors"],
            params["reports"],
            params["lessons"],
            params["seed"],
            workers,
            log,
        )
    else:
        gen.generate(root, params["reports"], params["lessons"], params["seed"], workers, log=log)
    marker.write_text(want)
    return root


def ledgers_part(cache: Path, team: Path, count: int) -> Path:
    """A root whose state holds only the first ``count`` of the team's ledgers (links)."""
    root = cache / f"ledgers-{count}"
    got = root / ".hurikaeri" / "ledger"
    files = sorted((team / ".hurikaeri" / "ledger").glob("*.jsonl"))[:count]
    if sorted(p.name for p in got.glob("*.jsonl")) != [p.name for p in files]:
        shutil.rmtree(root, ignore_errors=True)
        got.mkdir(parents=True)
        for f in files:
            os.link(f, got / f.name)
    return root


# -- measuring ------------------------------------------------------------------------------


@contextlib.contextmanager
def env(**values: str) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def fold(root: str) -> Result:
    """Every ledger of the workspace read and folded (``Ledger(state_dir)``), in this
    process; printed as one JSON line by ``python -m benchmarks.team_bench fold ROOT``."""
    from benchmarks.probe import peak_rss_mb, workspace
    from store.ledger import Ledger

    ws = workspace(root)
    t0 = time.perf_counter()
    led = Ledger(ws.state_dir)
    took = time.perf_counter() - t0
    # items of reports sharing an id, one state per report (as the app keeps them)
    led.locate({e.target.partition("@")[0] for e in led.folded if "@" in e.target})
    states = {
        **{k: st for k, st in led.states.items() if k.partition("/")[0] not in led.located_ids},
        **led.located_states,
    }
    return {
        "seconds": took,
        "ms": took * 1000,
        "files": len(led.paths()),
        "lines": len(led.entries),
        "transactions": len(led.txs),
        "items": len(states),
        "contested": sum(st.contested for st in states.values()),
        "rss_mb": peak_rss_mb(),
    }


def profile(root: str, top: int = 25) -> Result:
    """The warm index and the fold under cProfile: each function's own time."""
    from benchmarks.probe import workspace
    from store.index.workspace_index import WorkspaceIndex
    from store.ledger import Ledger

    ws = workspace(root)
    out: Result = {}
    for what, call in (
        ("index", lambda: WorkspaceIndex(ws).load_all()),
        ("fold", lambda: Ledger(ws.state_dir)),
    ):
        prof = cProfile.Profile()
        t0 = time.perf_counter()
        prof.runcall(call)
        took = time.perf_counter() - t0
        st = pstats.Stats(prof, stream=io.StringIO())
        funcs = {
            f"{Path(f).name}:{line}:{name}": (tt, ct, nc)
            for (f, line, name), (_cc, nc, tt, ct, _callers) in st.stats.items()  # type: ignore[attr-defined]
        }
        best = sorted(funcs.items(), key=lambda kv: -kv[1][0])[: top * 4]
        out[what] = {"seconds": took, "funcs": {k: list(v) for k, v in best}}
    return out


def _self_probe(what: str, root: Path) -> Result:
    """``python -m benchmarks.team_bench WHAT ROOT`` in a fresh process (as the probes run)."""
    return probe(what, root, module="benchmarks.team_bench")


def median(results: list[Result], key: str) -> float | None:
    values = [v for r in results if isinstance(v := _get(r, key), int | float)]
    return statistics.median(values) if values else None


def _get(result: Result, key: str) -> Any:
    value: Any = result
    for part in key.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def span(results: list[Result], key: str, fmt: Callable[[float], str]) -> str:
    values = [v for r in results if isinstance(v := _get(r, key), int | float)]
    if not values:
        return "—"
    mid = fmt(statistics.median(values))
    return mid if len(values) < 2 else f"{mid} ({fmt(min(values))}–{fmt(max(values))})"


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] in (["fold"], ["profile"]) and len(args) == 2:  # a probe, in its own process
        print(json.dumps(fold(args[1]) if args[0] == "fold" else profile(args[1])))
        return 0
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.team_bench", description=__doc__.split("\n")[0]
    )
    p.add_argument("--runs", type=int, default=3, help="rounds of fresh processes (default 3)")
    p.add_argument("--keys", type=int, default=20, help="'down' presses in the app (default 20)")
    p.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="where the workspaces stay")
    p.add_argument("--authors", type=int, default=50)
    p.add_argument("--reports", type=int, default=50_000, help="the team's reports (all authors)")
    p.add_argument("--lessons", type=int, default=500_000, help="the team's lessons")
    p.add_argument("--base-reports", type=int, default=10_000, help="the single author's")
    p.add_argument("--base-lessons", type=int, default=100_000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int, default=None, help="generating processes")
    p.add_argument("--profile", action="store_true", help="profile the index and the fold too")
    p.add_argument("--json", type=Path, help="every run's raw figures, as JSON")
    a = p.parse_args(args)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    a.cache.mkdir(parents=True, exist_ok=True)
    solo = ensure(
        a.cache,
        "solo",
        {"reports": a.base_reports, "lessons": a.base_lessons, "seed": a.seed},
        a.workers,
        log,
    )
    team_params = {"authors": a.authors, "reports": a.reports, "lessons": a.lessons, "seed": a.seed}
    team_params["ledger_format"] = 2  # decisions name their report's place (store.located)
    team = ensure(a.cache, "team", team_params, a.workers, log)
    (a.cache / "solo.toml").write_text("")
    (a.cache / "team.toml").write_text(TEAM_CONFIG)
    reviewer = authors(a.authors)[0]
    spaces = {
        "solo": (solo, {"HURIKAERI_CONFIG": str(a.cache / "solo.toml")}),
        "team": (team, {"HURIKAERI_CONFIG": str(a.cache / "team.toml")}),
    }
    command = shlex.join(["uv", "run", "python", "-m", "benchmarks.team_bench", *args])
    before = machine()
    runs: dict[str, dict[str, list[Result]]] = {
        w: {"index": [], "app": [], "fold": [], "fold_part": []} for w in spaces
    }
    first: dict[str, Result] = {}
    profiles: dict[str, Result] = {}
    try:
        for w, (root, extra) in spaces.items():
            with env(HURIKAERI_REVIEWER=reviewer, **extra):
                log(f"{w}: the index (built when its cache is missing)…")
                first[w] = probe("index", root)
                first[w]["bare"] = probe("bare", root)
                if a.profile:
                    log(f"{w}: profiling…")
                    profiles[w] = _self_probe("profile", root)
        for n in range(a.runs):
            for w, (root, extra) in spaces.items():
                with env(HURIKAERI_REVIEWER=reviewer, **extra):
                    log(f"round {n + 1}/{a.runs}: {w}: warm index, app, fold…")
                    runs[w]["index"].append(probe("index", root))
                    runs[w]["app"].append(probe("app", root, "--keys", str(a.keys)))
                    runs[w]["fold"].append(_self_probe("fold", root))
                    if w == "team":  # the same format, a fifth of the reviewers
                        part = ledgers_part(a.cache, team, a.authors // 5)
                        runs[w]["fold_part"].append(_self_probe("fold", part))
    except ProbeFailed as exc:
        print(exc, file=sys.stderr)
        return 1

    report(a, command, before, first, runs, profiles)
    if a.json:
        raw = {"command": command, "machine": before, "first": first, "runs": runs}
        a.json.write_text(json.dumps(raw | {"profiles": profiles}, indent=1) + "\n")
    return 0


def report(
    a: argparse.Namespace,
    command: str,
    before: str,
    first: dict[str, Result],
    runs: dict[str, dict[str, list[Result]]],
    profiles: dict[str, Result],
) -> None:
    scale = (a.reports + a.lessons) / (a.base_reports + a.base_lessons)
    print(f"# A team's workspace against a single author's, {a.runs} round(s)\n")
    print(f"reproduce: `{command}`  ")
    print(f"machine: {before} (before); {machine().rsplit('load average ', 1)[1]} (after)  ")
    for w in ("solo", "team"):
        b, f = first[w]["bare"], runs[w]["fold"][0] if runs[w]["fold"] else {}
        print(
            f"{w}: {b['files']:,} files, {b['mb']:.0f} MB, {first[w]['sessions']:,} sessions, "
            f"{b['jsonl_records']:,} JSONL records; ledger: {f.get('files', 0)} file(s), "
            f"{f.get('lines', 0):,} lines, {f.get('items', 0):,} items decided, "
            f"{f.get('contested', 0):,} contested; first index in this run "
            f"{first[w]['seconds']:.1f} s  "
        )
    print(f"\ndata: team / solo = {scale:.1f}× (reports and lessons); medians (min–max)\n")
    print("| figure | solo | team | team / solo |")
    print("|---|---:|---:|---:|")

    def row(label: str, what: str, key: str, fmt: Callable[[float], str]) -> None:
        s, t = median(runs["solo"][what], key), median(runs["team"][what], key)
        ratio = f"{t / s:.2f}×" if s and t is not None else "—"
        print(
            f"| {label} | {span(runs['solo'][what], key, fmt)} | "
            f"{span(runs['team'][what], key, fmt)} | {ratio} |"
        )

    def secs(v: float) -> str:
        return f"{v:.2f} s"

    def mb(v: float) -> str:
        return f"{v:.0f} MB"

    def ms(v: float) -> str:
        return f"{v:.1f} ms"

    row("warm index (`load_all`, cache present)", "index", "seconds", secs)
    row("warm index: peak RSS with workers", "index", "peak_rss_mb", mb)
    row("app: first paint", "app", "first_paint_s", secs)
    row("app: warm start, every session listed", "app", "interactive_s", secs)
    row("app: **fully loaded**", "app", "loaded_s", secs)
    row("app: key → frame p95", "app", "key_ms.p95", ms)
    row("app: new report → on screen", "app", "write_screen_ms", ms)
    row("app: **peak RSS** with workers", "app", "peak_rss_mb", mb)
    row("fold of every ledger alone", "fold", "ms", ms)
    row("fold: peak RSS (process)", "fold", "rss_mb", mb)
    part, whole = median(runs["team"]["fold_part"], "ms"), median(runs["team"]["fold"], "ms")
    if part and whole:
        lines = median(runs["team"]["fold_part"], "lines") or 0
        print(
            f"\nfold of {a.authors // 5} of the team's {a.authors} ledgers ({lines:,.0f} lines, "
            f"the same format): {span(runs['team']['fold_part'], 'ms', ms)}; all of them / "
            f"these: {whole / part:.2f}×"
        )
    rss = median(runs["team"]["app"], "peak_rss_mb")
    if rss is not None:
        print(f"\ngoal peak RSS ≤ 400 MB: {'met' if rss <= 400 else '**missed**'} ({rss:.0f} MB)")
    if profiles:
        print(f"\nOwn time grown most, team / solo (data {scale:.1f}×):\n")
        print("| step | function | solo s | team s | ratio |")
        print("|---|---|---:|---:|---:|")
        for what in ("index", "fold"):
            sf = profiles["solo"][what]["funcs"]
            tf = profiles["team"][what]["funcs"]
            grown = [(k, sf.get(k, [0.0])[0], v[0]) for k, v in tf.items() if v[0] >= 0.05]
            grown.sort(key=lambda x: -(x[2] / x[1] if x[1] else float("inf")))
            for k, s, t in grown[:8]:
                ratio = f"{t / s:.1f}×" if s else "new"
                print(f"| {what} | `{k}` | {s:.3f} | {t:.3f} | {ratio} |")


if __name__ == "__main__":
    sys.exit(main())
