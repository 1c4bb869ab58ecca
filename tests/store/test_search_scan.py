"""The search index's view of the workspace's files (``scan_workspace``): the same documents
as :meth:`Workspace.discover`, and every change on disk searched at the next open."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from store.read.kinds import ignored_name
from store.search.facade import open_index
from store.search.scan import scan_workspace
from store.workspace import Workspace


def test_the_scan_lists_what_discovery_finds(demo_root: Path) -> None:
    kpt = demo_root / "hurikaeri"
    for name in (".kpt-1.yaml.swp", "kpt-1.yaml~", "4913", "#kpt.yaml#", "kpt.yaml.tmp", ".k.yaml"):
        (kpt / name).write_text("garbage: [", encoding="utf-8")
    (kpt / "sub").mkdir()  # not walked: reports lie flat
    (kpt / "sub" / "kpt-20990101-001.yaml").write_text("id: x\n", encoding="utf-8")
    deep = demo_root / "session-summaries" / "a" / "b" / "c"
    deep.mkdir(parents=True)
    (deep / "summaries.jsonl").write_text("{}\n", encoding="utf-8")
    (demo_root / "knowledge_base" / ".git").mkdir()
    (demo_root / "knowledge_base" / ".git" / "x.yaml").write_text("bad: [", encoding="utf-8")
    (demo_root / "discussions" / "dir.md").mkdir()  # a directory named like a document
    (demo_root / "discussions" / "dir.md" / "inside.md").write_text("# x\n", encoding="utf-8")
    # links: to a document (read), to a directory (not walked), dangling (skipped)
    discussions = demo_root / "discussions"
    (discussions / "link.md").symlink_to(discussions / "dir.md" / "inside.md")
    (discussions / "linked.md").symlink_to(discussions / "dir.md")
    (discussions / "linked").symlink_to(discussions / "dir.md")
    (discussions / "gone.md").symlink_to(discussions / "nowhere.md")
    pieces = demo_root / "pieces"  # TAKT's own YAML beside its workflows: not pieces
    (pieces / "steps").mkdir(parents=True, exist_ok=True)
    for name in ("config.yaml", "review-categories.yaml", "steps/plan.yaml"):
        (pieces / name).write_text("x: 1\n", encoding="utf-8")
    ws = Workspace(demo_root)
    scan = scan_workspace(ws)
    scanned = {p: scan.kind(p) for p in scan.stamps}
    assert scanned == {str(f.path): f.kind for f in ws.discover()}
    assert str(deep / "summaries.jsonl") in scanned
    assert str(demo_root / "discussions" / "dir.md" / "inside.md") in scanned
    assert str(pieces / "config.yaml") not in scanned
    assert str(discussions / "link.md") in scanned
    assert not any(p.startswith(str(discussions / "linked")) for p in scanned)


def _found(ws: Workspace, query: str) -> set[str]:
    """The files holding the hits of ``query``, the index opened as a new process would."""
    engine, _stats = open_index(ws)
    return {h.path for h in engine.search(query, 50).hits}


def test_a_change_made_a_moment_ago_is_searched(demo_root: Path) -> None:
    """Each kind of change the scan sees, read in by the next open: a file rewritten in
    place at the same size (its time the next nanosecond), a file added deep in a walked
    location, a line appended to the lessons, a file renamed, then removed; an editor's
    dropping is not."""
    ws = Workspace(demo_root)
    report = sorted((demo_root / "hurikaeri").glob("kpt-*.yaml"))[0]
    text = report.read_text(encoding="utf-8")
    values = " ".join(re.findall(r'description: "(.*)"', text))
    words = re.findall(r"(?<![A-Za-z])[a-z]{5,}(?![A-Za-z])", values)
    word = next(w for w in words if str(report) in _found(ws, w))
    same = "q" * len(word)  # the same size: only the time tells
    assert _found(ws, same) == set()
    st = report.stat()
    report.write_text(text.replace(word, same), encoding="utf-8")
    os.utime(report, ns=(st.st_atime_ns, st.st_mtime_ns + 1))
    assert report.stat().st_size == st.st_size
    assert _found(ws, same) == {str(report)}

    deep = demo_root / "session-summaries" / "new" / "deeper"
    deep.mkdir(parents=True)
    summary = {"id": "ws-20990101-001", "date": "2099-01-01T00:00:00", "session_id": "s-new"}
    summary["info_summary"] = ["quokkaword in a summary"]  # type: ignore[assignment]
    (deep / "summaries.jsonl").write_text(json.dumps(summary) + "\n", encoding="utf-8")
    lessons = demo_root / "lessons" / "user" / "lessons.jsonl"
    with lessons.open("a", encoding="utf-8") as fh:
        fh.write('{"id": "ll-user-20990101-001", "title": "wombatword learned", "type": "x"}\n')
    (demo_root / "hurikaeri" / "kpt-20990101-001.yaml~").write_text(
        "id: kpt-20990101-001\ntitle: tarsierglyph\n", encoding="utf-8"
    )
    assert _found(ws, "quokkaword") == {str(deep / "summaries.jsonl")}
    assert _found(ws, "wombatword") == {str(lessons)}
    assert _found(ws, "tarsierglyph") == set()

    renamed = deep / "renamed.jsonl"  # a rename keeps the size and the time: a new path
    (deep / "summaries.jsonl").rename(renamed)
    assert _found(ws, "quokkaword") == {str(renamed)}
    renamed.unlink()
    assert _found(ws, "quokkaword") == set()


_FORMER = re.compile(r"(^\.|~$|\.sw[a-p]$|^4913$|^#.*#$|\.tmp$|\.bak$|\.orig$)")
_PIECES = [".", "~", "#", "4913", ".sw", "a", "p", "q", ".tmp", ".bak", ".orig", "\n", "x", "-"]


@given(st.lists(st.sampled_from(_PIECES), max_size=6).map("".join))
def test_ignored_names_are_those_of_the_former_pattern(name: str) -> None:
    """The ignored names, matched at either end (a search of the whole name for any of the
    alternatives cost 3 µs a file, a third of a scan), are the same names as before."""
    assert ignored_name(name) == bool(_FORMER.search(name))


@pytest.mark.parametrize("form", ["json", "foreign keys"])
def test_an_index_with_a_manifest_of_another_form_is_built_again(
    demo_root: Path, form: str
) -> None:
    """The manifest was JSON before it was marshal, and one written by anything else may hold
    keys that are no paths: such an index is rebuilt on open (its files as they are now),
    never read as one reflecting no files or the wrong ones."""
    import marshal

    import tantivy

    from store.search.index import DIR_NAME, MANIFEST, SCHEMA_OBJ, SearchIndex, identity

    ws = Workspace(demo_root)
    open_index(ws)
    index = SearchIndex.open(ws.state_dir / DIR_NAME)
    w = index.writer()
    w.delete_documents_by_term("kind", MANIFEST)
    if form == "json":
        old = json.dumps({"ident": identity(ws), "stamps": {}}).encode()
    else:
        old = marshal.dumps((identity(ws), {1: (0, 0), b"kb/x.yaml": (0, 0)}))
    w.add_document(tantivy.Document.from_dict({"kind": MANIFEST, "rec": old}, SCHEMA_OBJ))
    w.commit()
    index.close_writer()
    engine, stats = open_index(ws)
    assert stats["rebuilt"] == 1 and len(engine.index) > 0
    assert engine.index.stamps == scan_workspace(ws).stamps


_lines = st.one_of(
    st.builds(lambda n: json.dumps({"id": n, "text": "x" * (n % 50)}), st.integers(0, 999)),
    st.just('{\n  "id": "pretty",\n  "text": "spread over lines"\n}'),
    st.sampled_from(["", "   ", "[1, 2]", "{not json", '"a string"', "{}\r", "\x00\xff"]),
)


@given(st.lists(_lines, max_size=60), st.integers(1, 400), st.booleans())
def test_a_big_jsonl_file_is_cut_at_lines_that_are_whole_objects(
    lines: list[str], every: int, newline_at_end: bool
) -> None:
    import io

    from store.read.jsonl import cut_points

    data = ("\n".join(lines) + ("\n" if newline_at_end else "")).encode("utf-8", "replace")
    parts = cut_points(io.BytesIO(data), len(data), every)
    assert parts[0][0] == 0 and parts[-1][1] == len(data)
    assert [end for _s, end, _l in parts[:-1]] == [start for start, _e, _l in parts[1:]]
    for start, end, line in parts:
        assert start < end or len(data) == 0
        assert line == data.count(b"\n", 0, start) + 1
        if start:  # a part begins a line that is a JSON object by itself
            assert data[start - 1 : start] == b"\n"
            first = data[start:].split(b"\n", 1)[0].rstrip(b"\r")
            assert isinstance(json.loads(first), dict)


def test_a_big_jsonl_file_truncated_while_it_is_cut_does_not_kill_the_process(
    tmp_path: Path,
) -> None:
    """An agent rewriting its lessons (``jq … > lessons.jsonl`` truncates first) while the
    index cuts the file into parts: a mapping of it would die of SIGBUS at its next page."""
    import subprocess
    import sys

    path = tmp_path / "lessons" / "ai" / "lessons.jsonl"
    path.parent.mkdir(parents=True)
    with path.open("w", encoding="utf-8") as f:
        for n in range(120_000):
            f.write(json.dumps({"id": f"ll-ai-{n}", "lesson": "y" * 150}) + "\n")
    script = f"""
import json, os
from store.search.facade import open_index
from store.workspace import Workspace
loads = json.loads
def truncating(raw, *args, **kwargs):  # a record looked at, as the agent's rewrite begins
    if isinstance(raw, bytes) and raw.startswith(b'{{"id": "ll-ai-'):
        os.truncate({str(path)!r}, 0)
    return loads(raw, *args, **kwargs)
json.loads = truncating
open_index(Workspace({str(tmp_path)!r}))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, (done.returncode, done.stderr[-500:])


def test_a_report_without_an_id_leads_to_its_session_by_its_path(demo_root: Path) -> None:
    """Its record is named by the file (``kpt-noid``), its session has no report id: only
    the report's path finds the session (``session_key_for``'s last test)."""
    from store.index.workspace_index import WorkspaceIndex
    from store.search.facade import session_key_for

    (demo_root / "hurikaeri" / "kpt-noid.yaml").write_text(
        "created_at: '2026-02-08T10:00:00+09:00'\nsession_summary: quokka session\n"
        "keep:\n  - id: keep-001\n    description: a wombat item\n"
        "problem: []\ntry: []\nomission: []\n",
        encoding="utf-8",
    )
    ws = Workspace(demo_root)
    wi = WorkspaceIndex(ws, use_cache=False)
    wi.load_all()
    (hit,) = open_index(ws)[0].search("quokka").hits
    assert (hit.kind, hit.id) == ("report", "kpt-noid")
    assert session_key_for(wi, hit) == "kpt:kpt-noid"
    (item,) = open_index(ws)[0].search("wombat").hits  # and its items (they led nowhere)
    assert item.kind == "keep" and session_key_for(wi, item) == "kpt:kpt-noid"
