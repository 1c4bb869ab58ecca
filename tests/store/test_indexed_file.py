"""One file as the index holds it, kept small: its identity packed, its path as shown cut
from its path, a small document kept as JSON until it is first asked for."""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

import pytest

from store.index.entries import IndexedFile, entry_of_path, file_of_entry
from store.index.sessions import Session
from store.read.kinds import Kind
from store.read.loader import load_file
from store.read.textio import FileStamp
from store.workspace import Workspace

SKILL = """skill_id: skill_x
name: Check the lock file first
version: 1
created_at: 2026-01-01T09:00:00Z
updated_at: 2026-01-01T09:00:00Z
triggers:
  keywords: [lock]
content: |
  ## Lock files
"""


def _skill(root: Path) -> Path:
    path = root / "knowledge_base" / "global" / "skills" / "skill_x.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(SKILL)
    return path


def test_a_files_identity_is_kept_packed_and_read_back(tmp_path: Path) -> None:
    sha = hashlib.sha256(b"x").hexdigest()
    stamp = FileStamp(12, 1_795_508_299_488_761_765, sha)
    f = IndexedFile(tmp_path / "x.yaml", "x.yaml", Kind.SKILL, stamp, ident=(2**40, -5))
    assert f.stamp == stamp
    assert f.identity() == (12, 1_795_508_299_488_761_765, 2**40, -5, sha)
    unread = IndexedFile(tmp_path / "x.yaml", "x.yaml", None, None)
    assert unread.stamp is None and unread.identity() is None


@pytest.mark.parametrize("sha", ["", "xyz", "ab" * 31, "AB" * 32, "ab" * 33])
def test_an_identity_that_is_not_a_sha256_is_refused(tmp_path: Path, sha: str) -> None:
    """What a cache entry could hold but the index never writes (the loader parses the file
    again): what the stamp gives back is always what it was given."""
    with pytest.raises(ValueError):
        IndexedFile(tmp_path / "x.yaml", "x.yaml", None, FileStamp(1, 1, sha))


def test_a_files_path_as_shown_is_what_the_workspace_shows(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "root")
    for path in (ws.root / "hurikaeri" / "kpt-1.yaml", tmp_path / "pieces" / "elsewhere.yaml"):
        assert IndexedFile(path, ws.display(path), None, None).display == ws.display(path)
    other = IndexedFile(ws.root / "a.yaml", "shown otherwise", None, None)
    assert other.display == "shown otherwise"


def test_files_without_diagnostics_share_one_empty_list(tmp_path: Path) -> None:
    a, b = (IndexedFile(tmp_path / n, n, None, None, diagnostics=[]) for n in ("a", "b"))
    assert a.diagnostics == [] and a.diagnostics is b.diagnostics


def test_a_document_is_kept_as_json_until_asked_for(tmp_path: Path) -> None:
    path = _skill(tmp_path)
    ws = Workspace(tmp_path)
    f = file_of_entry(ws, path, *entry_of_path(path, Kind.SKILL, ws.display(path)))
    assert f.doc == load_file(path, Kind.SKILL).doc
    assert f.doc is f.doc  # validated once, then kept


@pytest.mark.parametrize("raw", [b"[1, 2]", b"not json", b'{"version": "one"}'])
def test_a_document_whose_json_does_not_validate_is_read_from_its_file(
    tmp_path: Path, raw: bytes
) -> None:
    """Validated late, a document's JSON may not validate (the models changed under a
    cache): no crash, the document is what reading its file gives."""
    path = _skill(tmp_path)
    f = IndexedFile(path, "skill_x.yaml", Kind.SKILL, None, doc=raw)
    assert f.doc == load_file(path, Kind.SKILL).doc and f.doc is not None
    path.unlink()
    gone = IndexedFile(path, "skill_x.yaml", Kind.SKILL, None, doc=raw)
    assert gone.doc is None


def test_a_document_is_validated_once_whichever_thread_asks_first(tmp_path: Path) -> None:
    path = _skill(tmp_path)
    ws = Workspace(tmp_path)
    for _trial in range(20):
        f = file_of_entry(ws, path, *entry_of_path(path, Kind.SKILL, ws.display(path)))
        start = threading.Barrier(6)
        got: list[object] = []

        def read(
            f: IndexedFile = f, start: threading.Barrier = start, got: list[object] = got
        ) -> None:
            start.wait()
            got.append(f.doc)

        threads = [threading.Thread(target=read) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(got) == 6 and got[0] is not None and all(d is got[0] for d in got)


def test_a_session_without_lessons_has_none() -> None:
    s = Session("discussion:x")
    assert len(s.lessons) == 0 and list(s.lessons) == [] and s.proposals == ()
