"""Evidence states per report, cached under .hurikaeri/, and the ``evidence:`` filters of
search and of the sessions list."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from store.index.order import SessionFilter, ordered
from store.index.workspace_index import WorkspaceIndex
from store.insight.evidence_cache import CACHE_NAME, EvidenceStates, evidence_for
from store.search.facade import search_for
from store.search.query import EVIDENCE, QueryError, evidence_query, parse_query, with_evidence
from store.workspace import Workspace

MISSING_SESSION = "sid:92f1c7d3-4a6b-4e85-bc20-7e3d9a15f8c6"  # kpt-20261102-001
MISSING_REPORT = "kpt-20261102-001"
MISSING_ITEM = "kpt-20261102-001/prob-003"  # cites turns 23-30 of a 22-turn session
FOUND_SESSION = "sid:3f9c2a1e-8b4d-4c6f-9a2e-51d7c0b8e4a3"  # kpt-20261028-001


def _index(root: Path) -> WorkspaceIndex:
    ix = WorkspaceIndex(Workspace(root))
    ix.load_all()
    return ix


def _states(root: Path) -> EvidenceStates:
    states = evidence_for(_index(root)).update()
    assert states is not None
    return states


def _transcript(root: Path, session_key: str) -> Path:
    sid = session_key.removeprefix("sid:")
    return next(root.glob(f"projects/*/{sid}.jsonl"))


def test_each_report_gets_a_state(demo_root: Path) -> None:
    states = _states(demo_root)
    assert states.session_states().get(MISSING_SESSION) == "missing"
    assert states.session_states().get(FOUND_SESSION) == "found"
    assert {st for st in states.session_states().values()} == {"missing", "found", "none"}
    assert [k for k, v in states.session_states().items() if v == "missing"] == [MISSING_SESSION]
    values = states.record_values()
    assert values[MISSING_REPORT] == "missing"
    assert values[MISSING_ITEM] == "missing"
    assert values["kpt-20261102-001/keep-001"] == "found"
    assert set(values.values()) <= set(EVIDENCE)
    # a session with a report but no transcript: every item "none", read from the index only
    none = next(k for k, v in states.session_states().items() if v == "none")
    assert all(values[r] == "none" for r, _s in states.sessions[none].items)


def test_the_cache_spares_a_second_reading(demo_root: Path) -> None:
    first = _states(demo_root)
    assert first.checked == 4  # the four sessions with a transcript
    assert (demo_root / ".hurikaeri" / CACHE_NAME).is_file()
    again = _states(demo_root)  # a new process: a new index, the cache file
    assert again.checked == 0
    assert again.session_states() == first.session_states()
    assert again.record_values() == first.record_values()


def test_a_changed_report_or_a_grown_transcript_is_checked_again(demo_root: Path) -> None:
    _states(demo_root)
    report = demo_root / "hurikaeri" / f"{MISSING_REPORT}.yaml"
    with report.open("a", encoding="utf-8") as fh:
        fh.write("# reviewed by a person\n")
    assert _states(demo_root).checked == 1
    transcript = _transcript(demo_root, FOUND_SESSION)
    with transcript.open("a", encoding="utf-8") as fh:
        fh.write('{"type": "summary", "summary": "appended"}\n')
    again = _states(demo_root)
    assert again.checked == 1
    assert again.session_states().get(FOUND_SESSION) == "found"
    assert _states(demo_root).checked == 0


def test_a_transcript_that_goes_away_makes_the_report_none(demo_root: Path) -> None:
    _states(demo_root)
    _transcript(demo_root, MISSING_SESSION).unlink()
    states = _states(demo_root)
    assert states.session_states().get(MISSING_SESSION) == "none"
    assert states.record_values()[MISSING_ITEM] == "none"


@pytest.mark.parametrize("garbage", [b"", b"not json\n{}", b'{"format": "x"}\n{}', b"\xff\xfe"])
def test_a_broken_cache_is_ignored_and_rewritten(demo_root: Path, garbage: bytes) -> None:
    cache = demo_root / ".hurikaeri" / CACHE_NAME
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_bytes(garbage)
    states = _states(demo_root)
    assert states.checked == 4 and states.session_states().get(MISSING_SESSION) == "missing"
    header = json.loads(cache.read_bytes().partition(b"\n")[0])
    assert header["format"] == "hurikaeri-evidence"


def test_a_cache_entry_for_another_identity_is_not_used(demo_root: Path) -> None:
    _states(demo_root)
    report = demo_root / "hurikaeri" / f"{MISSING_REPORT}.yaml"
    st = report.stat()
    os.utime(report, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    assert _states(demo_root).checked == 1


# -- the query language -------------------------------------------------------------------


def test_evidence_filter_parses() -> None:
    (f,) = parse_query("evidence:missing").filters
    assert (f.name, f.values, f.negated, f.ids) == ("evidence", ("missing",), False, None)
    assert parse_query("evidence:mis").filters[0].values == ("missing",)
    assert parse_query("evidence:not_found").filters[0].values == ("missing",)
    assert parse_query("evidence:no-transcript").filters[0].values == ("none",)
    assert parse_query("evidence:found,none").filters[0].values == ("found", "none")
    assert parse_query("-evidence:missing").filters[0].negated
    assert evidence_query("evidence:missing") is not None
    assert evidence_query("kind:try") is None
    with pytest.raises(QueryError, match="unknown evidence state 'bogus'"):
        parse_query("evidence:bogus")


def test_with_evidence_names_the_records() -> None:
    q = with_evidence(
        parse_query("jwt evidence:missing kind:try"),
        {"a/try-1": "missing", "a/try-2": "found", "a": "missing"},
    )
    assert all(f.ids is not None for f in q.filters if f.name == "evidence")
    ev = next(f for f in q.filters if f.name == "evidence")
    assert ev.ids == frozenset({"a/try-1", "a"})
    assert q.terms == ("jwt",)
    plain = parse_query("kind:try")
    assert with_evidence(plain, {}) == plain


def test_search_keeps_only_what_the_evidence_filter_names(demo_root: Path) -> None:
    ix = _index(demo_root)
    search = search_for(ix)
    assert search.ensure() is not None
    values = _states(demo_root).record_values()

    def ids(text: str) -> set[str]:
        result = search.search(with_evidence(parse_query(text), values), 500)
        assert result.error is None
        return {h.id for h in result.hits}

    assert ids("evidence:missing") == {MISSING_REPORT, MISSING_ITEM}
    assert ids("evidence:missing kind:problem") == {MISSING_ITEM}
    assert ids("evidence:found kind:keep") >= {"kpt-20261102-001/keep-001"}
    everything = ids("kind:problem")
    assert ids("-evidence:missing kind:problem") == everything - {MISSING_ITEM}
    # not handed the states, the filter finds nothing (rather than everything)
    assert search.search("evidence:missing", 500).hits == []


# -- the sessions list ----------------------------------------------------------------------


def test_the_sessions_filter(demo_root: Path) -> None:
    ix = _index(demo_root)
    states = _states(demo_root).session_states()
    keys = [s.key for s in ordered(ix, SessionFilter(evidence="missing", evidence_states=states))]
    assert keys == [MISSING_SESSION]
    found = ordered(ix, SessionFilter(evidence="found", evidence_states=states))
    assert FOUND_SESSION in {s.key for s in found} and len(found) == 3
    # not yet checked: nothing is shown as if it were
    assert ordered(ix, SessionFilter(evidence="missing")) == []
    # the states are not part of what the filter is
    assert SessionFilter(evidence_states=states) == SessionFilter()
