"""The search index of a real workspace: records of every format, the disk cache, updates."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from pathlib import Path

import pytest

import store.search.records as search_records
from store.index.workspace_index import WorkspaceIndex
from store.search.cache import BIN_NAME, SIDE_NAME, CacheError, open_index, scan_workspace
from store.search.engine import SearchIndex
from store.search.facade import WorkspaceSearch, resolve_line
from store.workspace import Workspace
from tests.conftest import REPO


def hits(index: object, query: str, limit: int = 50) -> list[tuple[str, str]]:
    result = index.search(query, limit)  # type: ignore[attr-defined]
    assert result.error is None
    return [(h.kind, h.id) for h in result.hits]


def test_scan_matches_discover(demo_root: Path) -> None:
    ws = Workspace(demo_root)
    scanned = scan_workspace(ws)
    found = {str(f.path): f.kind for f in ws.discover()}
    assert {p: k for p, (k, _s) in scanned.items()} == found


def test_every_kind_of_record_is_indexed(demo_root: Path) -> None:
    index, stats = open_index(Workspace(demo_root), parallel=False)
    assert stats["rebuilt"] == 1
    kinds = {index.main.records[i].kind for i in range(len(index.main))}
    assert kinds >= {
        "report",
        "keep",
        "problem",
        "try",
        "omission",
        "summary",
        "lesson",
        "skill",
        "pattern",
        "anti_pattern",
        "memory",
        "proposal",
        "feedback",
        "discussion",
        "piece",
        "movement",
    }


def test_warm_start_parses_nothing_and_a_change_reparses_one_file(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = Workspace(demo_root)
    cold, stats = open_index(ws, parallel=False)
    assert stats["rebuilt"] == 1 and (ws.state_dir / BIN_NAME).exists()
    expected = hits(cold, "jwt")

    def no_parsing(*_a: object, **_k: object) -> None:
        raise AssertionError("a file was parsed on a warm start")

    with monkeypatch.context() as m:
        m.setattr(search_records, "load_records", no_parsing)
        warm, stats = open_index(ws, parallel=False)
    assert stats == {"files": stats["files"], "parsed": 0, "removed": 0, "rebuilt": 0}
    assert hits(warm, "jwt") == expected

    lessons = demo_root / "lessons/ai/lessons.jsonl"
    line = {
        "id": "ll-ai-20261121-001",
        "date": "2026-11-21T10:00:00",
        "session_id": "sess-new",
        "type": "ai_trial_error",
        "title": "Zeppelin bearings need grease",
        "summary": "x",
    }
    with open(lessons, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(line) + "\n")
    parsed: list[str] = []
    real = search_records.load_records

    def counting(path: Path, *a: object) -> object:
        parsed.append(str(path))
        return real(path, *a)  # type: ignore[arg-type]

    with monkeypatch.context() as m:
        m.setattr(search_records, "load_records", counting)
        updated, stats = open_index(ws, parallel=False)
    assert parsed == [str(lessons)] and stats["parsed"] == 1
    assert hits(updated, "zeppelin") == [("lesson", "ll-ai-20261121-001")]
    assert len(updated.delta) == 1  # the other lessons of the file kept their place
    # the side file remembers it: the next start parses nothing again
    with monkeypatch.context() as m:
        m.setattr(search_records, "load_records", no_parsing)
        again, stats = open_index(ws, parallel=False)
    assert stats["parsed"] == 0 and hits(again, "zeppelin") == [("lesson", "ll-ai-20261121-001")]

    lessons.unlink()
    gone, stats = open_index(ws, parallel=False)
    assert stats["removed"] == 1 and hits(gone, "zeppelin") == []


@pytest.mark.parametrize("damage", ["garbage", "truncated", "flipped", "empty", "magic", "side"])
def test_a_corrupt_cache_is_rebuilt_never_trusted(demo_root: Path, damage: str) -> None:
    ws = Workspace(demo_root)
    fresh, _ = open_index(ws, parallel=False)
    expected = hits(fresh, "rotation")
    path = ws.state_dir / BIN_NAME
    data = bytearray(path.read_bytes())
    if damage == "garbage":
        path.write_bytes(b"\x00garbage" * 100)
    elif damage == "truncated":
        path.write_bytes(bytes(data[: len(data) // 2]))
    elif damage == "flipped":
        data[-100] ^= 0xFF
        path.write_bytes(bytes(data))
    elif damage == "empty":
        path.write_bytes(b"")
    elif damage == "magic":
        path.write_bytes(b"X" + bytes(data[1:]))
    else:
        (ws.state_dir / SIDE_NAME).write_text('{"token": 5, "delta": [["x"]]}')
    index, stats = open_index(ws, parallel=False)
    assert stats["rebuilt"] == (0 if damage == "side" else 1)
    assert hits(index, "rotation") == expected


def test_a_corrupt_record_is_caught_when_it_is_read(demo_root: Path) -> None:
    ws = Workspace(demo_root)
    fresh, _ = open_index(ws, parallel=False)
    expected = [h.as_json() for h in fresh.search("jwt", 20).hits]
    path = ws.state_dir / BIN_NAME
    data = bytearray(path.read_bytes())
    header = json.loads(data[24 : 24 + int.from_bytes(data[16:24], "little")])
    base = 24 + int.from_bytes(data[16:24], "little")
    base += (-base) % 8
    off, length, _code, _crc = header["sections"]["records"]
    for k in range(0, length, 997):  # damage every chunk of the records
        data[base + off + k] ^= 0x55
    path.write_bytes(bytes(data))
    index, stats = open_index(ws, parallel=False)  # the damage is not seen yet: it is lazy
    assert stats["rebuilt"] == 0
    with pytest.raises(CacheError):
        index.search("jwt", 20)
    wi = WorkspaceIndex(ws)
    wi.load_all()
    handle = WorkspaceSearch(wi)
    handle.index = index
    assert [h.as_json() for h in handle.search("jwt", 20).hits] == expected


def test_a_cache_made_for_another_workspace_is_not_used(demo_root: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "lessons/ai").mkdir(parents=True)
    (other / "lessons/ai/lessons.jsonl").write_text(
        json.dumps(
            {
                "id": "ll-ai-20260101-001",
                "date": "2026-01-01",
                "type": "ai_trial_error",
                "title": "only in the other workspace",
            }
        )
        + "\n"
    )
    open_index(Workspace(other), parallel=False)
    ws = Workspace(demo_root)
    ws.state_dir.mkdir(parents=True, exist_ok=True)
    (ws.state_dir / BIN_NAME).write_bytes((other / ".hurikaeri" / BIN_NAME).read_bytes())
    index, stats = open_index(ws, parallel=False)
    assert stats["rebuilt"] == 1
    assert hits(index, "other workspace") == []


def test_a_warm_search_imports_no_models(demo_root: Path) -> None:
    open_index(Workspace(demo_root), parallel=False)
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from store.workspace import Workspace\n"
        "from store.search.cache import open_index\n"
        f"index, stats = open_index(Workspace(Path({str(demo_root)!r})))\n"
        "assert stats['parsed'] == 0, stats\n"
        "assert index.search('jwt', 5).hits\n"
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'ruamel', 'textual'))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == ""


def test_workspace_search_follows_the_workspace_index(demo_root: Path) -> None:
    wi = WorkspaceIndex(Workspace(demo_root))
    wi.load_all()
    handle = WorkspaceSearch(wi)
    assert handle.ensure(loaded=True) is not None
    assert hits(handle, "zeppelin") == []
    lessons = demo_root / "lessons/user/lessons.jsonl"
    with open(lessons, "a", encoding="utf-8") as fh:
        fh.write(
            json.dumps(
                {
                    "id": "ll-user-20261121-001",
                    "date": "2026-11-21T10:00:00",
                    "type": "user_question_answer",
                    "title": "Why zeppelins float",
                }
            )
            + "\n"
        )
    changed, _removed = wi.update([lessons])
    assert handle.sync(changed)
    assert hits(handle, "zeppelin") == [("lesson", "ll-user-20261121-001")]
    assert handle.save()
    # a new handle starts from the cache, already up to date
    again = WorkspaceSearch(wi)
    assert again.ensure(loaded=False) is not None
    assert hits(again, "zeppelin") == [("lesson", "ll-user-20261121-001")]
    assert not again.sync()


def test_a_compacted_index_has_its_vocabulary_indexed_before_a_key_needs_it(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the changes since the cache outgrow it, a new segment replaces it: its
    vocabulary's index is made there and then, not on the next key that needs it, and
    nothing else alive is frozen out of the cycle collector's reach."""
    wi = WorkspaceIndex(Workspace(demo_root))
    wi.load_all()
    handle = WorkspaceSearch(wi)
    first = handle.ensure(loaded=True)
    assert first is not None and first.main._vocab_starts is not None
    lessons = demo_root / "lessons/user/lessons.jsonl"
    with open(lessons, "a", encoding="utf-8") as fh:
        line = {
            "id": "ll-user-20261121-002",
            "date": "2026-11-21",
            "title": "Airships and zeppelins",
        }
        fh.write(json.dumps(line) + "\n")
    changed, _removed = wi.update([lessons])
    monkeypatch.setattr(SearchIndex, "needs_compaction", property(lambda _self: True))
    frozen = gc.get_freeze_count()
    assert handle.sync(changed)
    assert gc.get_freeze_count() <= frozen  # (a frozen object freed meanwhile leaves it)
    assert handle.index is not None and handle.index is not first
    assert handle.index.main._vocab_starts is not None
    assert ("lesson", "ll-user-20261121-002") in hits(handle, "eppelin")  # inside a word


def test_lines_of_records_inside_yaml_files(demo_root: Path) -> None:
    index, _ = open_index(Workspace(demo_root), parallel=False)
    hit = index.search('"kid 포함 발급" kind:try', 5).hits[0]
    assert hit.id == "kpt-20261118-001/try-001"
    lines = Path(hit.path).read_text(encoding="utf-8").splitlines()
    assert lines[resolve_line(hit.record) - 1].strip() == "- id: try-001"
    for lesson in index.search("kind:lesson jwt", 5).hits:
        text = Path(lesson.path).read_text(encoding="utf-8").splitlines()
        assert f'"id": "{lesson.id}"' in text[resolve_line(lesson.record) - 1]
