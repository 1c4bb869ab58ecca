"""What the screens show, worked out by the store: filters, the knowledge tree, discussions,
a piece's view, counts, a match explained, proposals from a reply, one-line text."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from store.check.piece_view import load_piece_view
from store.index.discussions import read_discussions
from store.index.knowledge_tree import doc_id, knowledge_tree
from store.index.lesson_list import LessonList
from store.index.order import LessonFilter
from store.index.workspace_index import WorkspaceIndex
from store.insight.matching import MatchTask, all_scores, load_knowledge, match, match_task
from store.insight.stats import workspace_counts
from store.read.diagnostics import DiagnosticSink
from store.read.metadata_block import parse_reply
from store.read.textsafe import has_controls, one_for_one, printable
from store.review.propose import item_from_reply
from store.workspace import Workspace


def _index(root: Path) -> WorkspaceIndex:
    ix = WorkspaceIndex(Workspace(root))
    ix.load_all()
    return ix


def test_both_filters_share_project_and_days() -> None:
    flt = LessonFilter(since=date(2026, 11, 1), until=date(2026, 11, 3))
    assert flt.dated and flt.covers(date(2026, 11, 1)) and flt.covers(date(2026, 11, 3))
    assert not flt.covers(date(2026, 10, 31)) and not flt.covers(date(2026, 11, 4))
    assert not LessonFilter().dated and LessonFilter().covers(date(1, 1, 1))


def test_lessons_newest_first_and_filtered(demo_root: Path) -> None:
    ix = _index(demo_root)
    lessons = LessonList(ix.files.values())
    rows = [lessons.row(i) for i in range(len(lessons))]
    assert rows and all(r.key == f"{r.path}:{r.line}" for r in rows)
    dates = [(r.lesson.date or "")[:19] for r in rows]
    assert dates == sorted(dates, reverse=True)
    tagged = [rows[r] for r in lessons.select(LessonFilter(tag="unity"))]
    assert tagged and all(any("unity" in t.casefold() for t in r.lesson.tags or ()) for r in tagged)
    first = rows[0].lesson
    assert 0 in lessons.select(LessonFilter(type=first.type, project=first.project))
    assert 0 not in lessons.select(LessonFilter(type="no-such-type"))
    day = date.fromisoformat((first.date or "")[:10])
    assert 0 in lessons.select(LessonFilter(since=day, until=day))
    assert 0 not in lessons.select(LessonFilter(until=date(2000, 1, 1)))
    assert rows[0].full().id == first.id


def test_knowledge_tree_follows_the_directories(demo_root: Path) -> None:
    kb = knowledge_tree(_index(demo_root))
    top = [d.key for d in kb.root.folders]
    assert top == ["global", "groups", "projects"]  # the inbox has its own screen
    glob = kb.root.folders[0]
    assert [d.key for d in glob.folders] == [
        "global/skills",
        "global/patterns",
        "global/anti_patterns",
    ]
    skills = glob.folders[0]
    assert not skills.tagged and kb.root.folders[1].tagged
    assert [f.path.name for f in skills.files] == sorted(f.path.name for f in skills.files)
    assert [doc_id(f) for f in kb.memories] == ["harbor-api", "pixel-courier"]
    assert len(list(kb.files())) == kb.root.count() + len(kb.memories) == 13
    assert kb.skills()["jwt_auth_middleware"].name == "jwt_auth_middleware.yaml"


def test_discussions_are_read_again_only_when_changed(demo_root: Path) -> None:
    ix = _index(demo_root)
    found, cache = read_discussions(ix, {})
    assert [d.display for d in found] == sorted(d.display for d in found) and len(found) == 4
    again, cache2 = read_discussions(ix, cache)
    assert all(a is b for a, b in zip(found, again, strict=True))
    path = found[0].path
    path.write_text(path.read_text() + "\nmore\n")
    ix.update([path])
    third, _ = read_discussions(ix, cache2)
    assert third[0] is not found[0] and third[1] is found[1]


def test_piece_view_places_diagnostics_and_facets(demo_root: Path) -> None:
    path = demo_root / "pieces" / "builtin" / "api-feature.yaml"
    view = load_piece_view(path, "pieces/builtin/api-feature.yaml")
    assert view.doc is not None and view.sections and view.facets
    assert view.sections[0].key == "head"
    broken = demo_root / "pieces" / "broken.yaml"
    broken.write_text("name: [unclosed\n")
    bad = load_piece_view(broken, "pieces/broken.yaml")
    assert bad.doc is None and bad.by_section == {"head": bad.diagnostics} and bad.diagnostics


def test_counts_are_one_typed_result(demo_root: Path) -> None:
    ix = _index(demo_root)
    counts = workspace_counts(ix)
    assert counts.sessions == len(ix.sessions) and counts.kpt_reports == 30
    assert counts.items["pending"] == ix.unreviewed_count()
    assert counts.inbox_pending == ix.inbox_pending()
    assert list(counts.as_dict()) == [
        "sessions",
        "kpt_reports",
        "items",
        "lessons",
        "inbox_pending",
        "files_with_errors",
    ]


def test_match_task_is_computed_once(demo_root: Path) -> None:
    k = load_knowledge(Workspace(demo_root))
    task = MatchTask(objective="JWT の認証ミドルウェアを追加", files=("src/auth/jwt.ts",))
    result = match_task(k, task)
    assert result.scores == all_scores(k, task)
    assert result.loaded == [s.skill_id for s in match(k, task)]
    assert result.below == [s for s in result.scores if s.score > 0 and not s.kept]
    for s in result.scores:
        assert s.capped == (s.raw * s.success_rate > 1)
        assert s.keyword_points == pytest.approx(0.3 * len(s.keywords))


def test_a_reply_entry_becomes_the_item_to_propose() -> None:
    reply = parse_reply(
        "Body\n\n---\nstatus: continue\nfindings:\n  - severity: high\n    message: m\n"
        "    suggestion: s\nblockers: [b]\ndecisions: [d]\nnext_steps: [n]\n---\n",
        DiagnosticSink("discussions/x.md"),
    )
    section, item, note = item_from_reply(reply, "discussions/x.md", "finding", 0)
    assert (section, item.id, item.description) == ("problem", "discussions/x.md#finding-1", "m")
    assert note == "From discussions/x.md, finding 1 (severity high). Suggested: s"
    assert item_from_reply(reply, "d.md", "decision", 0)[0] == "keep"
    section, item, note = item_from_reply(reply, "d.md", "next_step", 0)
    assert (section, item.id, note) == ("try", "d.md#next-step-1", "From d.md, next step 1")


def test_one_policy_for_control_characters() -> None:
    text = "a\x1b[31m\tb\nc\u202ed\x85"
    assert has_controls(text) and not has_controls("plain 日本語")
    shown = one_for_one(text)
    assert len(shown) == len(text) and not has_controls(shown)
    assert shown == "a\u241b[31m b\u21b5c\ufffdd\ufffd"
    assert printable(text) == "a\u241b[31m\tb\nc\u27e8U+202E\u27e9d\ufffd"
