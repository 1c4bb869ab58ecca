"""Reading the ledger fast: the plain-lines path finds what ``scan_jsonl`` finds, or
declines; a report is found by its name, then where the index cache saw it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from store.config import Config
from store.index import cache as index_cache
from store.ledger import Ledger
from store.ledger.files import plain_pairs
from store.read.diagnostics import DiagnosticSink
from store.read.jsonl import scan_jsonl
from store.review.items import find_report
from store.workspace import Workspace
from tests.ledger_lines import decide

_LINE = st.one_of(
    st.dictionaries(st.text(max_size=5), st.text(max_size=8), max_size=3).map(
        lambda d: json.dumps(d, ensure_ascii=False)
    ),
    st.sampled_from(
        [
            "",
            "  ",
            "\r",
            '{"a": 1}\r',
            ' {"a": 1}',
            '{"a": 1} ',
            "[1]",
            "1",
            '{"a": [1',
            "2]}",
            '{"a":"}',
            '{"}',
            '{"x":1},{"y":2}',
            "\ufeff{}",
            "{}\x0c",
            "NaN",
            '{"a": NaN}',
            '{"a": "\\ud800"}',
        ]
    ),
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_LINE, max_size=8), st.booleans())
@example(['{"a":"}', '{"}', '{"x":1},{"y":2}'], True)
@example(['{"a": 1}', "\ufeff{}"], True)
def test_plain_lines_find_what_scan_finds_or_decline(lines: list[str], newline: bool) -> None:
    data = "\n".join(lines).encode("utf-8", "surrogatepass") + (b"\n" if newline else b"")
    got = plain_pairs(data)
    if got is None:
        return  # scan_jsonl reads it
    records, texts = got
    sink = DiagnosticSink("x")
    scan = scan_jsonl(data, sink)
    assert records == [r.data for r in scan.records]
    assert [json.loads(t) for t in texts] == records  # each record's own line
    assert not sink.items and scan.complete_until == len(data)


def test_a_broken_line_is_reported_as_before(tmp_path: Path) -> None:
    led = Ledger(tmp_path)
    decide(led, "x/1", "approve")
    with open(led.path, "ab") as fh:
        fh.write(b"not json\n")
    decide(led, "x/2", "reject")
    again = Ledger(tmp_path)
    assert [d.code for d in again.diagnostics] == [d.code for d in led.diagnostics]
    assert again.diagnostics and again.state("x/2").state == "rejected"


def test_lines_without_a_time_keep_their_order(tmp_path: Path) -> None:
    (tmp_path / "ledger.jsonl").write_text(
        '{"id": "1", "at": "2020-01-01T00:00:00+00:00", "op": "approve", "target": "a/1"}\n'
        '{"id": "2", "at": "then", "op": "reject", "target": "a/1"}\n'
        '{"id": "3", "at": "1960-01-01T00:00:00+00:00", "op": "approve", "target": "b/1"}\n'
    )
    led = Ledger(tmp_path)
    assert led.state("a/1").state == "rejected"
    assert [e.id for e in led.entries] == ["1", "2", "3"]  # the last not taken as of 1960


def test_report_found_where_the_index_cache_saw_it(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from store.index.workspace_index import WorkspaceIndex
    from store.review import items

    ws = Workspace(demo_root, Config())
    kpt_dir = ws.loc("kpt")
    first = sorted(kpt_dir.glob("kpt-*.yaml"))[0]
    report_id = first.stem
    named = kpt_dir / "renamed.yaml"  # not under its id's name
    shutil.move(first, named)
    index = WorkspaceIndex(ws)
    index.load_all()
    index.save_cache()
    assert index_cache.report_path_hint(ws, report_id) == named
    with monkeypatch.context() as m:  # found without walking the reports
        m.setattr(items, "report_paths", lambda ws: iter(()))
        assert find_report(ws, report_id)[0] == named
    # moved since the cache was written: the hint is wrong, the walk finds it
    moved = kpt_dir / "moved.yaml"
    shutil.move(named, moved)
    path, report = find_report(ws, report_id)
    assert (path, report.id) == (moved, report_id)
    assert index_cache.report_path_hint(ws, "kpt-29991231-999") is None
