"""The workspace watcher: domain changes out of raw file notifications.

Every test runs the generator in a task and waits for what it expects with a timeout, so a
failure never hangs. Where a test asserts that something is *not* reported, it writes a
barrier file watched by the same underlying watcher afterwards: notifications of one watcher
arrive in order, so everything the action caused has been reported once the barrier is.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

import store.watch
from store.watch import Change, OwnWrites, watch_workspace
from store.workspace import Workspace
from store.write.atomic import atomic_write, current_stamp
from tests.guards import anywhere

TIMEOUT = 5.0
#: For tests whose steps must land in one batch even on a loaded machine: a batch ends only
#: after ``step_ms`` without events, so a wider step keeps quick successive writes together.
ONE_BATCH: dict[str, Any] = {"step_ms": 60, "debounce_ms": 300}
REPORT = "hurikaeri/kpt-20251231-001.yaml"


class Watching:
    """The watcher running in a task; its batches collected as they come."""

    def __init__(self, ws: Workspace, **options: Any) -> None:
        self.ws = ws
        self.probes = ws.root / "knowledge_base"
        # a probe's batch comes a step after it: writing the next one sooner delays it
        self.probe_wait = 2 * options.get("step_ms", 25) / 1000 + 0.01
        self.stop = asyncio.Event()
        self.started = asyncio.Event()
        self.batches: list[list[Change]] = []
        self._read = 0
        self._arrived = asyncio.Event()
        self.task = asyncio.create_task(self._consume(options))

    async def _consume(self, options: dict[str, Any]) -> None:
        try:
            async for batch in watch_workspace(
                self.ws, stop_event=self.stop, started=self.started, **options
            ):
                self.batches.append(batch)
                self._arrived.set()
        finally:
            self._arrived.set()

    async def until(
        self, predicate: Callable[[Change], bool], timeout: float = TIMEOUT
    ) -> list[Change]:
        """The changes since the last call, up to the batch with one matching ``predicate``."""
        got: list[Change] = []

        async def wait() -> list[Change]:
            while True:
                while self._read < len(self.batches):
                    batch = self.batches[self._read]
                    self._read += 1
                    batch = [c for c in batch if not self._is_probe(c)]
                    got.extend(batch)
                    if any(predicate(c) for c in batch):
                        return got
                if self.task.done():
                    raise AssertionError(f"the watcher ended early; got {got}")
                self._arrived.clear()
                await self._arrived.wait()

        try:
            return await asyncio.wait_for(wait(), timeout)
        except TimeoutError:
            raise AssertionError(f"timed out; got {got}") from None

    async def until_path(self, path: Path) -> list[Change]:
        return await self.until(lambda c: c.path == path)

    def _is_probe(self, change: Change) -> bool:
        return change.path.parent == self.probes and change.path.name.startswith("probe-")

    async def _probe_seen(self) -> None:
        while not any(self._is_probe(c) for b in self.batches for c in b):
            self._arrived.clear()
            await self._arrived.wait()

    async def ready(self) -> None:
        """Wait until the watches are in place: write probe files until one is reported.

        New files, not rewrites: a poller misses rewrites within the same second. The
        probes' changes are left out of what :meth:`until` returns.
        """
        await asyncio.wait_for(self.started.wait(), TIMEOUT)  # the watcher's own start-up
        for n in range(int(TIMEOUT / self.probe_wait)):
            (self.probes / f"probe-{n}.yaml").write_text("probe: true\n")
            try:
                await asyncio.wait_for(self._probe_seen(), self.probe_wait)
            except TimeoutError:
                continue
            return
        raise AssertionError("the watcher never became ready")


@asynccontextmanager
async def watching(ws: Workspace, *, ready: bool = True, **options: Any) -> AsyncIterator[Watching]:
    w = Watching(ws, **options)
    try:
        if ready:
            await w.ready()
        yield w
    finally:
        w.stop.set()
        await asyncio.wait_for(w.task, TIMEOUT)


def make_workspace(root: Path) -> Workspace:
    (root / "hurikaeri").mkdir(parents=True)
    (root / REPORT).write_text("id: kpt-20251231-001\n")
    (root / "lessons/ai").mkdir(parents=True)
    (root / "lessons/ai/lessons.jsonl").write_text('{"id": "ll-ai-1"}\n')
    (root / "lessons/user").mkdir(parents=True)
    (root / "knowledge_base/global/skills").mkdir(parents=True)
    (root / ".hurikaeri").mkdir()
    (root / ".hurikaeri/ledger.jsonl").write_text('{"id": "1", "op": "approve"}\n')
    return Workspace(root)


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return make_workspace(tmp_path / "root")


def append(path: Path, text: str) -> None:
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(text)


async def test_a_new_report_is_added(ws: Workspace) -> None:
    new = ws.root / "hurikaeri/kpt-20260101-001.yaml"
    async with watching(ws) as w:
        new.write_text("id: kpt-20260101-001\n")
        assert await w.until_path(new) == [Change(new, "added")]


async def test_changes_of_one_batch_are_sorted(ws: Workspace) -> None:
    names = ["kpt-20260101-003.yaml", "kpt-20260101-001.yaml", "kpt-20260101-002.yaml"]
    paths = [ws.root / "hurikaeri" / n for n in names]
    async with watching(ws, **ONE_BATCH) as w:
        for p in paths:
            p.write_text("x: 1\n")
        got = await w.until(lambda c: c.path in paths)
        assert got == [Change(p, "added") for p in sorted(paths)]


async def test_appending_a_lesson_is_a_modification(ws: Workspace) -> None:
    lessons = ws.root / "lessons/ai/lessons.jsonl"
    async with watching(ws) as w:
        append(lessons, '{"id": "ll-ai-2"}\n')
        assert await w.until_path(lessons) == [Change(lessons, "modified")]


async def test_appending_to_the_ledger_is_a_modification(ws: Workspace) -> None:
    ledger = ws.state_dir / "ledger.jsonl"
    async with watching(ws) as w:
        append(ledger, '{"id": "2", "op": "reject"}\n')
        assert await w.until_path(ledger) == [Change(ledger, "modified")]


async def test_a_rename_save_is_one_modification(ws: Workspace) -> None:
    report = ws.root / REPORT
    temp = report.with_name(f".{report.name}.swp")
    async with watching(ws) as w:
        temp.write_text("id: kpt-20251231-001\nsaved: 1\n")
        os.replace(temp, report)
        assert await w.until_path(report) == [Change(report, "modified")]


async def test_a_rename_save_through_a_document_named_temp_is_one_modification(
    ws: Workspace,
) -> None:
    report = ws.root / REPORT
    temp = report.with_name("tmp8k2j4x.yaml")
    async with watching(ws, **ONE_BATCH) as w:
        temp.write_text("id: kpt-20251231-001\nsaved: 1\n")
        os.replace(temp, report)
        assert await w.until_path(report) == [Change(report, "modified")]


async def test_delete_then_recreate_in_one_batch_is_one_modification(ws: Workspace) -> None:
    report = ws.root / REPORT
    async with watching(ws, **ONE_BATCH) as w:
        report.unlink()
        report.write_text("id: kpt-20251231-001\nsaved: 2\n")
        assert await w.until_path(report) == [Change(report, "modified")]


async def test_droppings_dot_dirs_and_other_files_are_ignored(ws: Workspace) -> None:
    kpt = ws.root / "hurikaeri"
    barrier = kpt / "kpt-20260101-009.yaml"
    async with watching(ws) as w:
        (kpt / ".kpt-20251231-001.yaml.swp").write_bytes(b"\0swap")
        (kpt / "4913").write_text("")
        (kpt / "x~").write_text("")
        (kpt / "kpt-20251231-001.yaml~").write_text("")
        (kpt / "notes.txt").write_text("not a document")
        (kpt / ".cache").mkdir()
        (kpt / ".cache" / "kpt-20260101-005.yaml").write_text("x: 1\n")
        (kpt / "4913").unlink()
        barrier.write_text("x: 1\n")
        assert await w.until_path(barrier) == [Change(barrier, "added")]
        # outside any location (the root's own files, the state dir's other files)
        ledger = ws.state_dir / "ledger.jsonl"
        (ws.root / "history.jsonl").write_text("{}\n")
        (ws.state_dir / "cache.json").write_text("{}\n")
        append(ledger, "{}\n")
        assert await w.until_path(ledger) == [Change(ledger, "modified")]


async def test_a_deleted_report_is_deleted(ws: Workspace) -> None:
    report = ws.root / REPORT
    async with watching(ws) as w:
        report.unlink()
        assert await w.until_path(report) == [Change(report, "deleted")]


async def test_our_own_writes_are_skipped(ws: Workspace) -> None:
    report = ws.root / REPORT
    barrier = ws.root / "hurikaeri/kpt-20260101-009.yaml"
    own = OwnWrites()
    async with watching(ws, own_writes=own) as w:
        atomic_write(
            report, b"id: kpt-20251231-001\nedited: true\n", current_stamp(report), guard=anywhere
        )
        own.record(report)
        barrier.write_text("x: 1\n")
        assert await w.until_path(barrier) == [Change(barrier, "added")]
        # someone else's write to the same file is reported
        append(report, "more: 1\n")
        assert await w.until_path(report) == [Change(report, "modified")]


async def test_a_location_created_later_is_watched(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "root")
    shutil.rmtree(ws.root / "hurikaeri")
    report = ws.root / "hurikaeri/kpt-20260101-001.yaml"
    async with watching(ws) as w:
        report.parent.mkdir()
        report.write_text("id: kpt-20260101-001\n")  # at once: before any watch inside it
        assert await w.until_path(report) == [Change(report, "added")]
        append(report, "more: 1\n")
        assert await w.until_path(report) == [Change(report, "modified")]


async def test_jsonl_locations_created_later_are_watched(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "root")
    shutil.rmtree(ws.root / "lessons")
    shutil.rmtree(ws.state_dir)
    lessons = ws.root / "lessons/user/lessons.jsonl"
    ledger = ws.state_dir / "ledger.jsonl"
    async with watching(ws) as w:
        lessons.parent.mkdir(parents=True)
        lessons.write_text('{"id": "ll-user-1"}\n')
        assert await w.until_path(lessons) == [Change(lessons, "added")]
        append(lessons, '{"id": "ll-user-2"}\n')
        assert await w.until_path(lessons) == [Change(lessons, "modified")]
        ledger.parent.mkdir()
        append(ledger, "{}\n")
        assert await w.until_path(ledger) == [Change(ledger, "added")]
        append(ledger, "{}\n")
        assert await w.until_path(ledger) == [Change(ledger, "modified")]


async def test_a_deleted_and_recreated_location_keeps_working(ws: Workspace) -> None:
    report = ws.root / REPORT
    new = ws.root / "hurikaeri/kpt-20260101-001.yaml"
    async with watching(ws) as w:
        shutil.rmtree(report.parent)
        assert await w.until_path(report) == [Change(report, "deleted")]
        new.parent.mkdir()
        new.write_text("id: kpt-20260101-001\n")
        assert await w.until_path(new) == [Change(new, "added")]
        append(new, "more: 1\n")
        assert await w.until_path(new) == [Change(new, "modified")]


async def test_directories_moved_in_and_out_report_their_files(
    ws: Workspace, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere"
    (outside / "deep").mkdir(parents=True)
    (outside / "a.yaml").write_text("a: 1\n")
    (outside / "deep/b.yaml").write_text("b: 1\n")
    moved = ws.root / "knowledge_base/groups"
    a, b = moved / "a.yaml", moved / "deep/b.yaml"
    async with watching(ws) as w:
        os.rename(outside, moved)
        assert await w.until(lambda c: c.path == b) == [Change(a, "added"), Change(b, "added")]
        os.rename(moved, outside)
        got = await w.until(lambda c: c.path == b)
        assert got == [Change(a, "deleted"), Change(b, "deleted")]


async def test_a_root_created_later_is_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store.watch, "ROOT_POLL_SECONDS", 0.05)
    ws = Workspace(tmp_path / "later")
    report = ws.root / "hurikaeri/kpt-20260101-001.yaml"
    async with watching(ws, ready=False) as w:
        await asyncio.wait_for(w.started.wait(), TIMEOUT)  # looking for the root
        assert not w.task.done()
        report.parent.mkdir(parents=True)
        report.write_text("id: kpt-20260101-001\n")
        assert await w.until_path(report) == [Change(report, "added")]
        append(report, "more: 1\n")
        assert await w.until_path(report) == [Change(report, "modified")]


async def test_a_deleted_root_reports_its_files_and_is_waited_for_again(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store.watch, "ROOT_POLL_SECONDS", 0.05)
    files = [ws.state_dir / "ledger.jsonl", ws.root / REPORT, ws.root / "lessons/ai/lessons.jsonl"]
    async with watching(ws) as w:
        shutil.rmtree(ws.root)
        got = await w.until(lambda c: c.path == files[-1])
        assert got == [Change(p, "deleted") for p in sorted(files)]
        make_workspace(ws.root)
        got = await w.until(lambda c: c.path == files[-1])
        assert got == [Change(p, "added") for p in sorted(files)]
        append(files[-1], "{}\n")
        assert await w.until_path(files[-1]) == [Change(files[-1], "modified")]


async def test_polling_works_and_sees_writes_within_one_second(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WATCHFILES_POLL_DELAY_MS", "50")  # read by watchfiles (default 300)
    new = ws.root / "hurikaeri/kpt-20260101-001.yaml"
    async with watching(ws, force_polling=True) as w:
        new.write_text("id: kpt-20260101-001\n")
        assert await w.until_path(new) == [Change(new, "added")]
        # the poller compares whole-second mtimes: an append keeping the mtime is invisible
        # to it (samuelcolvin/watchfiles#319); the watcher's own recheck sees it
        before = new.stat()
        append(new, "more: 1\n")
        os.utime(new, ns=(before.st_atime_ns, before.st_mtime_ns))
        assert await w.until_path(new) == [Change(new, "modified")]


async def test_the_stop_event_ends_the_generator(ws: Workspace) -> None:
    w = Watching(ws)
    await w.ready()
    w.stop.set()
    await asyncio.wait_for(w.task, TIMEOUT)
    assert w.task.exception() is None


async def test_a_stop_event_set_while_waiting_for_the_root_ends_it(tmp_path: Path) -> None:
    w = Watching(Workspace(tmp_path / "missing"))
    await asyncio.wait_for(w.started.wait(), TIMEOUT)  # looking for the root
    w.stop.set()
    await asyncio.wait_for(w.task, TIMEOUT)
    assert w.batches == []


async def test_cancelling_the_task_ends_the_generator(ws: Workspace) -> None:
    w = Watching(ws)
    await w.ready()
    w.task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(w.task, TIMEOUT)


def test_missing_locations_are_watched_shallowly_from_inside_the_root(tmp_path: Path) -> None:
    assert store.watch._make_plan(Workspace(tmp_path / "missing")) is None
    root = tmp_path / "root"
    (root / "knowledge_base").mkdir(parents=True)
    plan = store.watch._make_plan(Workspace(root))
    assert plan is not None
    assert plan.deep == (root / "knowledge_base",)
    assert plan.shallow == (root,)  # hurikaeri/, lessons/…, .hurikaeri/ do not exist yet


# --- OwnWrites ------------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_own_writes_recognise_exactly_what_was_recorded(tmp_path: Path) -> None:
    p = tmp_path / "a.yaml"
    p.write_bytes(b"a: 1\n")
    own = OwnWrites()
    assert not own.is_own(p)
    own.record(p)
    assert own.is_own(p)
    assert own.is_own(p)  # asking forgets nothing
    os.utime(p, ns=(1, 1))  # touched, same bytes
    assert own.is_own(p)
    p.write_bytes(b"a: 2\n")  # same size, other bytes
    assert not own.is_own(p)
    p.write_bytes(b"a: 1\n")
    assert own.is_own(p)
    p.unlink()
    assert not own.is_own(p)


def test_own_writes_expire(tmp_path: Path) -> None:
    p = tmp_path / "a.yaml"
    p.write_bytes(b"a: 1\n")
    clock = Clock()
    own = OwnWrites(clock=clock)
    own.record(p)
    clock.now += 9.9
    assert own.is_own(p)
    clock.now += 0.2
    assert not own.is_own(p)


def test_own_writes_follow_symlinks(tmp_path: Path) -> None:
    real = tmp_path / "real.md"
    real.write_bytes(b"old\n")
    link = tmp_path / "link.md"
    link.symlink_to(real)
    own = OwnWrites()
    atomic_write(link, b"new\n", current_stamp(link), guard=anywhere)
    own.record(link)
    assert own.is_own(real)
    assert own.is_own(link)


@pytest.mark.parametrize("all_at_once", [False, True])
async def test_an_authors_directory_a_pull_brings_is_followed(
    tmp_path: Path, all_at_once: bool
) -> None:
    """``kpt = "team/*/hurikaeri"``: a teammate's directory that appears later (a ``git
    pull``) is watched, and its reports come as added — made step by step, or moved in
    whole as git may leave it."""
    from store.config import Config

    root = tmp_path / "root"
    make_workspace(root)
    (root / "team/alice/hurikaeri").mkdir(parents=True)
    (root / "team/alice/hurikaeri/kpt-20260208-001.yaml").write_text("id: kpt-20260208-001\n")
    ws = Workspace(root, Config(paths={"kpt": [Path("team/*/hurikaeri")]}))
    new = root / "team/carol/hurikaeri/kpt-20260208-001.yaml"
    async with watching(ws) as w:
        if all_at_once:
            staged = tmp_path / "staged/carol"
            (staged / "hurikaeri").mkdir(parents=True)
            (staged / "hurikaeri" / new.name).write_text("id: kpt-20260208-001\n")
            os.rename(staged, root / "team/carol")
        else:
            (root / "team/carol").mkdir()
            await asyncio.sleep(0.2)
            new.parent.mkdir()
            await asyncio.sleep(0.2)
            new.write_text("id: kpt-20260208-001\n")
        got = await w.until_path(new)
        assert [c.kind for c in got if c.path == new] == ["added"]
        assert root / "team/carol/hurikaeri" in ws.locations["kpt"]
        # and it is followed from then on
        later = new.parent / "kpt-20260209-001.yaml"
        later.write_text("id: kpt-20260209-001\n")
        await w.until_path(later)


@pytest.fixture
def deep_dirs() -> Iterator[list[Path]]:
    """Directories made one inside the other, removed innermost first (shutil.rmtree, which
    cleans tmp_path, recurses too deep for them)."""
    made: list[Path] = []
    yield made
    for d in reversed(made):
        for f in d.iterdir():
            if not f.is_dir():
                f.unlink()
        d.rmdir()


def _looped_or_deep(root: Path, shape: str, made: list[Path]) -> None:
    """A location an agent can make unwalkable by recursion or by following links."""
    (root / "hurikaeri").mkdir(parents=True)
    (root / "hurikaeri" / "kpt-20260101-001.yaml").write_text("id: kpt-20260101-001\n")
    if shape == "link loop":
        (root / "discussions").symlink_to(root / "discussions")
        return
    deep = root / "discussions"
    deep.mkdir()
    for _ in range(1100):  # one by one: mkdir(parents=True) itself recurses
        deep /= "d"
        deep.mkdir()
        made.append(deep)
    (deep / "deep.md").write_text("# deep\n")


@pytest.mark.parametrize("shape", ["link loop", "deep tree"])
def test_the_scan_goes_past_a_looped_or_very_deep_location(
    tmp_path: Path, shape: str, deep_dirs: list[Path]
) -> None:
    _looped_or_deep(tmp_path, shape, deep_dirs)
    plan = store.watch._make_plan(Workspace(tmp_path))
    assert plan is not None
    names = {p.name for p in store.watch._scan(plan)}
    assert "kpt-20260101-001.yaml" in names
    assert shape == "link loop" or "deep.md" in names


@pytest.mark.parametrize("shape", ["link loop", "deep tree"])
def test_discovery_goes_past_a_looped_or_very_deep_location(
    tmp_path: Path, shape: str, deep_dirs: list[Path]
) -> None:
    _looped_or_deep(tmp_path, shape, deep_dirs)
    names = {f.path.name for f in Workspace(tmp_path).discover()}
    assert "kpt-20260101-001.yaml" in names
    assert shape == "link loop" or "deep.md" in names
