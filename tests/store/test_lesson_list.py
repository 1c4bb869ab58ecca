"""The lessons list held in arrays: the same order, keys and filtering as the rows it
replaces (every lesson as a row, sorted; :func:`keeps`), rows decoded when asked for."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from store.index import lesson_list
from store.index.entries import IndexedFile
from store.index.heads import HeadTable, LessonHead, RecordSpan
from store.index.lesson_list import LessonList, Shown
from store.index.order import LessonFilter, LessonRow
from store.index.workspace_index import WorkspaceIndex
from store.read.isotime import utc_time
from store.read.kinds import Kind
from store.workspace import Workspace


def ordered_lessons(files: Iterable[IndexedFile]) -> list[LessonRow]:
    """The reference: every lesson as a row, newest first (ties by id, also backwards)."""
    out = []
    for f in files:
        if f.kind is not Kind.LESSONS:
            continue
        for rec in f.records or ():
            if isinstance(rec, LessonHead):
                line = rec.span.line
                out.append(LessonRow(f"{f.path}:{line}", rec, f.path, line))
    out.sort(key=lambda r: (utc_time(r.lesson.date), r.lesson.id or ""), reverse=True)
    return out


def keeps(flt: LessonFilter, les: LessonHead) -> bool:
    """The reference filter: a lesson the filter keeps, field by field."""
    if (flt.type and les.type != flt.type) or (flt.category and les.category != flt.category):
        return False
    if flt.project is not None and les.project != flt.project:
        return False
    if flt.tag and not any(flt.tag in x.casefold() for x in les.tags or ()):
        return False
    return not flt.dated or flt.covers(utc_time(les.date).date())


def _index(root: Path) -> WorkspaceIndex:
    ix = WorkspaceIndex(Workspace(root))
    ix.load_all()
    return ix


def test_same_order_keys_and_filters_as_the_rows(demo_root: Path, monkeypatch) -> None:
    monkeypatch.setattr(lesson_list, "PART", 3)  # built in several parts
    ix = _index(demo_root)
    rows = ordered_lessons(ix.files.values())
    lessons = LessonList(ix.files.values())
    assert len(lessons) == len(rows) > 3
    assert [lessons.key(i) for i in range(len(rows))] == [r.key for r in rows]
    assert [lessons.row(i) for i in range(len(rows))] == rows
    assert all(lessons.rank(r.key) == i for i, r in enumerate(rows))
    assert lessons.rank("nowhere:1") is None and lessons.rank(f"{rows[0].path}:0") is None
    first = rows[0].lesson
    day = date.fromisoformat((first.date or "")[:10])
    tag = (next(r.lesson.tags for r in rows if r.lesson.tags) or ("",))[0]
    filters = [
        LessonFilter(),
        LessonFilter(type=first.type),
        LessonFilter(type="no-such-type"),
        LessonFilter(category=first.category, project=first.project),
        LessonFilter(project=""),
        LessonFilter(tag=tag[:3].casefold()),
        LessonFilter(tag="no-such-tag"),
        LessonFilter(since=day, until=day),
        LessonFilter(until=date(2000, 1, 1)),
        LessonFilter(since=date(2026, 1, 1), type=first.type),
    ]
    for flt in filters:
        want = [i for i, r in enumerate(rows) if keeps(flt, r.lesson)]
        assert list(lessons.select(flt)) == want, flt
    hidden = {rows[1].lesson.id or ""}
    want = [i for i, r in enumerate(rows) if (r.lesson.id or "") not in hidden]
    assert list(lessons.select(LessonFilter(), hidden)) == want
    assert lessons.categories() == sorted({r.lesson.category for r in rows if r.lesson.category})
    assert lessons.projects() == sorted({r.lesson.project for r in rows if r.lesson.project})


def test_shown_is_a_mapping_of_the_kept_rows(demo_root: Path) -> None:
    ix = _index(demo_root)
    rows = ordered_lessons(ix.files.values())
    lessons = LessonList(ix.files.values())
    flt = LessonFilter(type=rows[0].lesson.type)
    shown = Shown(lessons, lessons.select(flt))
    kept = {r.key: r for r in rows if keeps(flt, r.lesson)}
    assert dict(shown) == kept and list(shown) == list(kept)
    assert list(shown.keys_seq) == list(kept) and shown.keys_seq[0:2] == list(kept)[0:2]
    assert {k: shown.index[k] for k in kept} == {k: i for i, k in enumerate(kept)}
    other = next(r.key for r in rows if r.key not in kept)
    assert shown.index.get(other) is None and other not in shown
    assert LessonList(()).select(LessonFilter()).tolist() == []


_DATES = st.sampled_from(
    [
        "2026-02-08",
        "2026-02-08T09:00:00+09:00",
        "2026-02-08T00:00:00Z",  # the same moment as the one above
        "2026-02-07T15:00:00+00:00",
        "2026-02-08T09:00:00.000001+09:00",
        "not a date",
        "",
        "0001-01-01",
        "9999-12-31T23:59:59",
        "9999-12-31T23:59:59.999998",  # a float of seconds since 1970 cannot tell these
        "9999-12-31T23:59:59.999999",
        "2400-01-01T00:00:00.000001",
        "2400-01-01T00:00:00.000002",
    ]
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.lists(
            st.tuples(_DATES, st.sampled_from(["", "ll-1", "ll-2", "ll-10", "a"])), max_size=8
        ),
        min_size=1,
        max_size=3,
    )
)
def test_order_matches_ordered_lessons_for_any_times_and_ids(
    files: list[list[tuple[str, str]]],
) -> None:
    """Ties of time (the same moment written two ways included), ids and unreadable dates
    sort as ``ordered_lessons`` sorts them."""
    indexed = []
    for n, recs in enumerate(files):
        heads = [
            LessonHead(
                RecordSpan(i + 1, i * 10, 10),
                rid or None,
                day or None,
                None,
                None,
                "ai_trial_error",
                None,
                "t",
                None,
            )
            for i, (day, rid) in enumerate(recs)
        ]
        path = Path(f"/ws/lessons{n}.jsonl")
        indexed.append(
            IndexedFile(path, path.name, Kind.LESSONS, None, records=HeadTable.of(heads))
        )
    rows = ordered_lessons(indexed)
    lessons = LessonList(indexed)
    assert [lessons.key(i) for i in range(len(lessons))] == [r.key for r in rows]
