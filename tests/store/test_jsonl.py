"""JSONL scanning and line-preserving edits."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from store.read.diagnostics import DiagnosticSink
from store.read.jsonl import encode_record, scan_jsonl
from store.read.loader import load_file
from store.write.atomic import ConflictError, WriteError, append_bytes
from store.write.jsonl_edit import prefix_digest, replace_span
from tests.guards import anywhere

MESSY = (
    b'{"id": "ll-ai-20260101-001", "type": "ai_trial_error", "title": "a", "date": "2026-01-01"}\n'
    b"\n"
    b"[1, 2]\n"
    b"{\n"
    b'  "id": "ll-ai-20260101-002",\n'
    b'  "type": "ai_user_guided",\n'
    b'  "title": "pretty",\n'
    b'  "date": "2026-01-01",\n'
    b'  "tags": [{"x": 1}]\n'
    b"}\n"
    b'{"id": broken\n'
    b'{"id": "ll-ai-20260101-001", "type": "ai_new_type", "title": "dup", "date": "2026-01-02"}\r\n'
    b'{"id": "ll-ai-20260101-003", "ti'
)


def test_scan_messy_file() -> None:
    sink = DiagnosticSink("f")
    scan = scan_jsonl(MESSY, sink)
    spans = [(r.line, MESSY[r.start : r.end].count(b"\n")) for r in scan.records]
    assert spans == [(1, 1), (4, 7), (12, 1)]  # lines 4-10 hold one record
    assert scan.pending == b'{"id": "ll-ai-20260101-003", "ti'
    assert scan.complete_until == len(MESSY) - len(scan.pending)
    codes = [(d.code, d.line) for d in sink.items]
    assert codes == [("not-an-object", 3), ("multiline-record", 4), ("invalid-json", 11)]


def test_loader_reports_duplicates_and_unknown_types(tmp_path: Path) -> None:
    p = tmp_path / "lessons.jsonl"
    p.write_bytes(MESSY)
    loaded = load_file(p)
    codes = [(d.code, d.line) for d in loaded.diagnostics]
    assert ("duplicate-id", 12) in codes
    assert ("enum-unknown", 12) in codes
    assert len(loaded.entries) == 3 and loaded.pending


def test_pending_pretty_record_being_written() -> None:
    sink = DiagnosticSink("f")
    scan = scan_jsonl(b'{"id": "a"}\n{\n  "id": "b",\n', sink)
    assert len(scan.records) == 1 and scan.pending.startswith(b"{") and sink.items == []


def test_finished_file_reports_unfinished_line() -> None:
    sink = DiagnosticSink("f")
    scan_jsonl(b'{"id": "a"}\n{"id": "b', sink, growing=False)
    assert [d.code for d in sink.items] == ["invalid-json"]


def test_replace_one_record_keeps_every_other_byte(tmp_path: Path) -> None:
    p = tmp_path / "lessons.jsonl"
    p.write_bytes(MESSY)
    scan = scan_jsonl(MESSY, DiagnosticSink("f"))
    rec = scan.records[1]
    obj = dict(rec.data, title="edited タイトル")
    new = encode_record(obj)
    replace_span(
        p,
        rec.start,
        rec.end,
        new,
        prefix_len=scan.complete_until,
        prefix_sha256=prefix_digest(MESSY, scan.complete_until),
        guard=anywhere,
    )
    out = p.read_bytes()
    assert out == MESSY[: rec.start] + new + MESSY[rec.end :]
    assert json.loads(new)["title"] == "edited タイトル"


def test_replace_tolerates_appends_but_not_changes(tmp_path: Path) -> None:
    p = tmp_path / "lessons.jsonl"
    data = b'{"id": "a"}\n{"id": "b"}\n'
    p.write_bytes(data)
    scan = scan_jsonl(data, DiagnosticSink("f"))
    digest = prefix_digest(data, len(data))
    with open(p, "ab") as fh:
        fh.write(b'{"id": "c"}\n')  # an agent appends meanwhile
    rec = scan.records[0]
    replace_span(
        p,
        rec.start,
        rec.end,
        b'{"id": "A"}\n',
        prefix_len=len(data),
        prefix_sha256=digest,
        guard=anywhere,
    )
    assert p.read_bytes() == b'{"id": "A"}\n{"id": "b"}\n{"id": "c"}\n'
    p.write_bytes(b'{"id": "X"}\n{"id": "b"}\n')  # someone rewrote it
    with pytest.raises(ConflictError):
        replace_span(
            p,
            rec.start,
            rec.end,
            b'{"id": "Y"}\n',
            prefix_len=len(data),
            prefix_sha256=digest,
            guard=anywhere,
        )
    assert p.read_bytes() == b'{"id": "X"}\n{"id": "b"}\n'


def test_append_is_one_whole_line(tmp_path: Path) -> None:
    p = tmp_path / "sub" / "lessons.jsonl"
    append_bytes(p, encode_record({"id": "a", "title": "한국어"}), guard=anywhere)
    append_bytes(p, encode_record({"id": "b"}), guard=anywhere)
    assert p.read_bytes().decode().splitlines() == ['{"id": "a", "title": "한국어"}', '{"id": "b"}']
    with open(p, "ab") as fh:  # a crash mid-write: the ledger's next line ends it first
        fh.write(b'{"id": "unfinished')
    append_bytes(p, encode_record({"id": "c"}), guard=anywhere)
    assert p.read_bytes().endswith(b'{"id": "unfinished\n{"id": "c"}\n')


# -- rewriting in place while others append ---------------------------------------------------


def _replace(p: Path, data: bytes, start: int, end: int, new: bytes, **kw: object) -> None:
    replace_span(
        p,
        start,
        end,
        new,
        prefix_len=len(data),
        prefix_sha256=prefix_digest(data, len(data)),
        guard=anywhere,
        **kw,  # type: ignore[arg-type]
    )


def test_a_shorter_record_is_padded_the_file_never_shrinks(tmp_path: Path) -> None:
    p = tmp_path / "lessons.jsonl"
    data = b'{"id": "a", "title": "long title"}\n{"id": "b"}\r\n'
    p.write_bytes(data)
    _replace(p, data, 0, 35, b'{"id": "a"}\n')
    assert p.read_bytes() == b'{"id": "a"}' + b" " * 23 + b'\n{"id": "b"}\r\n'
    assert [json.loads(x)["id"] for x in p.read_bytes().splitlines()] == ["a", "b"]
    data = p.read_bytes()
    _replace(p, data, 35, len(data), b"")  # a removed record leaves a blank line
    assert p.read_bytes() == data[:35] + b" " * 11 + b"\r\n"


def test_a_rewrite_keeps_the_file_and_an_open_appender_writes_into_it(tmp_path: Path) -> None:
    p = tmp_path / "lessons.jsonl"
    data = b'{"id": "a"}\n{"id": "b"}\n'
    p.write_bytes(data)
    ino = p.stat().st_ino
    logger = os.open(p, os.O_WRONLY | os.O_APPEND)  # a logger keeps its descriptor
    try:
        os.write(logger, b'{"id": "c"}\n')
        _replace(p, data, 0, 12, b'{"id": "a", "title": "grown"}\n')  # longer: the tail moves
        os.write(logger, b'{"id": "d"}\n')
        _replace(p, p.read_bytes(), 0, 30, b'{"id": "A"}\n')  # shorter: padded
        os.write(logger, b'{"id": "e"}\n')
    finally:
        os.close(logger)
    assert p.stat().st_ino == ino
    lines = p.read_bytes().split(b"\n")
    assert [json.loads(x)["id"] for x in lines if x.strip()] == ["A", "b", "c", "d", "e"]


def test_lines_appended_during_a_rewrite_move_with_the_tail(tmp_path: Path) -> None:
    p = tmp_path / "lessons.jsonl"
    data = b'{"id": "a"}\n{"id": "b"}\n'
    p.write_bytes(data)

    def agent_appends_meanwhile(now: bytes) -> tuple[int, int]:
        # called under our lock, between our read and our write: an agent does not lock
        fd = os.open(p, os.O_WRONLY | os.O_APPEND)
        os.write(fd, b'{"id": "late"}\n')
        os.close(fd)
        return 0, 12

    p.write_bytes(b'{"id": "a"}\n{"id": "B"}\n')  # changed since read: relocate is asked
    _replace(p, data, 0, 12, b'{"id": "a", "x": 1}\n', relocate=agent_appends_meanwhile)
    assert p.read_bytes() == b'{"id": "a", "x": 1}\n{"id": "B"}\n{"id": "late"}\n'


def test_a_rewrite_cut_short_is_finished_later(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from store.write import jsonl_edit

    p = tmp_path / "lessons.jsonl"
    data = b'{"id": "a"}\n' + b"".join(b'{"id": "%d"}\n' % i for i in range(2000))
    p.write_bytes(data)
    real = jsonl_edit._pwrite_all

    def killed_half_way(fd: int, payload: bytes, offset: int) -> None:
        real(fd, payload[: len(payload) // 2], offset)
        raise KeyboardInterrupt  # the process dies here

    monkeypatch.setattr(jsonl_edit, "_pwrite_all", killed_half_way)
    new = b'{"id": "a", "title": "longer now"}\n'
    with pytest.raises(KeyboardInterrupt):
        _replace(p, data, 0, 12, new)
    assert p.read_bytes() != new + data[12:]  # torn for now
    monkeypatch.setattr(jsonl_edit, "_pwrite_all", real)
    assert jsonl_edit.finish_interrupted_rewrites([tmp_path]) == [p]
    assert p.read_bytes() == new + data[12:]
    assert sorted(x.name for x in tmp_path.iterdir()) == ["lessons.jsonl"]


def test_lock_waits_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import fcntl

    from store.read import textio

    p = tmp_path / "lessons.jsonl"
    data = b'{"id": "a"}\n'
    p.write_bytes(data)
    monkeypatch.setattr(textio, "LOCK_TIMEOUT", 0.2)
    holder = os.open(p, os.O_RDONLY)
    fcntl.flock(holder, fcntl.LOCK_EX)  # another program holds the lock and never lets go
    try:
        with pytest.raises(WriteError, match="locked"):
            _replace(p, data, 0, 12, b'{"id": "b"}\n')
        with pytest.raises(WriteError, match="locked"):
            append_bytes(p, b'{"id": "c"}\n', guard=anywhere)
        assert textio.read_regular(p, 1000)[0] == data  # a reader reads anyway, in the end
    finally:
        os.close(holder)
    assert p.read_bytes() == data


def _until_opened_twice(path: Path) -> None:
    """Wait until a thread of this process has ``path`` open beside the test's own
    descriptor (it then waits for the lock the test holds); polled, bounded by a count."""
    for _ in range(100_000):
        fds = Path("/proc/self/fd")
        opened = sum(1 for fd in fds.iterdir() if os.path.realpath(fd) == os.path.realpath(path))
        if opened >= 2:
            return
        time.sleep(0.001)
    raise AssertionError(f"{path} was never opened")


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
def test_a_writer_that_waited_for_the_lock_follows_a_replaced_file(tmp_path: Path) -> None:
    import fcntl
    import threading

    p = tmp_path / "lessons.jsonl"
    p.write_bytes(b'{"id": "a"}\n')
    holder = os.open(p, os.O_RDONLY)
    fcntl.flock(holder, fcntl.LOCK_EX)  # a writer of ours is replacing the file
    t = threading.Thread(
        target=append_bytes, args=(p, b'{"id": "new"}\n'), kwargs={"guard": anywhere}
    )
    t.start()
    _until_opened_twice(p)
    (tmp_path / "next").write_bytes(b'{"id": "b"}\n')
    os.replace(tmp_path / "next", p)
    os.close(holder)
    t.join(10)
    assert p.read_bytes() == b'{"id": "b"}\n{"id": "new"}\n'  # not lost in the old file


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
def test_readers_never_see_a_rewrite_half_done(tmp_path: Path) -> None:
    import fcntl
    import threading

    from store.read.textio import read_regular

    p = tmp_path / "lessons.jsonl"
    p.write_bytes(b"half done")
    holder = os.open(p, os.O_RDWR)
    fcntl.flock(holder, fcntl.LOCK_EX)
    got: list[bytes] = []
    t = threading.Thread(target=lambda: got.append(read_regular(p, 1000)[0]))
    t.start()
    _until_opened_twice(p)
    assert got == []  # waits for the writer
    os.pwrite(holder, b"all done\n", 0)
    os.close(holder)
    t.join(10)
    assert got == [b"all done\n"]
