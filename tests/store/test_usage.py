"""Usage of rules and skills from the sessions that followed them (issue #46), on
transcripts built like Claude Code's: tool calls and results, sub-agent lines, compaction."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from store.insight.usage import Usage, usage_report
from store.workspace import Workspace
from tests.store.usage_fixture import DAY, add_skill, bash, tool, workspace, write_session
from tests.transcript_lines import TranscriptWriter


def _rule(ws: Workspace, text: str, now=DAY) -> Usage:  # type: ignore[no-untyped-def]
    report = usage_report(ws, now=now)
    (found,) = [u for u in report.items if u.text == text]
    return found


LINT = "Run `pnpm lint` before committing"


def test_a_command_rule_followed_in_one_session_and_not_in_another(tmp_path) -> None:  # type: ignore[no-untyped-def]
    ws = workspace(tmp_path, f"# Rules\n\n- {LINT}\n- keep diffs small\n")
    ok = TranscriptWriter("s-followed").user("直してコミットして")
    ok.sidechain("lint it", [("Bash", {"command": "pnpm lint"}, "0 problems")])
    ok.assistant("", [bash("git add -A && git commit -m 'fix'")])
    write_session(ws, ok, DAY - timedelta(days=3))
    skipped = TranscriptWriter("s-skipped").user("テストを書いて")
    skipped.assistant("", [bash("pnpm test"), tool("Edit", file_path="/home/me/app/a.ts")])
    skipped.compact("Earlier the agent ran pnpm lint and it passed.")
    skipped.assistant("", [bash("git commit -am wip"), bash("pnpm lint")])
    write_session(ws, skipped, DAY - timedelta(days=2))
    no_commit = TranscriptWriter("s-no-commit").user("lint only")
    no_commit.assistant("", [bash("pnpm lint")])
    write_session(ws, no_commit, DAY - timedelta(days=1))
    elsewhere = TranscriptWriter("s-python").user("run the tests")
    elsewhere.assistant("", [bash("uv run pytest -q"), bash("git commit -m x")])
    write_session(ws, elsewhere, DAY - timedelta(days=1))

    u = _rule(ws, LINT)
    assert (u.sessions, u.relevant, u.check) == (4, 3, "command")
    # committed in two of the relevant sessions, the lint ran first in one of them
    assert (u.followed, u.checked) == (1, 2)
    assert "followed 1 of 2" in u.summary()
    plain = _rule(ws, "keep diffs small")
    assert plain.relevant is None and plain.followed is None and plain.check == "not checkable"


def test_sessions_before_the_rule_was_written_do_not_count(tmp_path) -> None:  # type: ignore[no-untyped-def]
    ws = workspace(tmp_path, f"- {LINT}\n", written=DAY - timedelta(days=2))
    early = TranscriptWriter("s-early").user("go")
    early.assistant("", [bash("git commit -m x")])
    write_session(ws, early, DAY - timedelta(days=5))
    u = _rule(ws, LINT)
    assert (u.sessions, u.relevant, u.written_from) == (0, 0, "file modified")


def test_a_path_prohibition_broken_by_a_sub_agent(tmp_path) -> None:  # type: ignore[no-untyped-def]
    rule = "Never edit `src/generated/` by hand (run `pnpm gen`)"
    ws = workspace(tmp_path, f"- {rule}\n")
    looked = TranscriptWriter("s-read").user("what does the client do?")
    looked.assistant("", [tool("Read", file_path="/home/me/app/src/generated/client.ts")])
    write_session(ws, looked, DAY - timedelta(days=4))
    broke = TranscriptWriter("s-broke").user("fix the client")
    broke.sidechain(
        "patch it",
        [("Edit", {"file_path": "/home/me/app/src/generated/client.ts", "old_string": "a"}, "ok")],
    )
    write_session(ws, broke, DAY - timedelta(days=3))
    other = TranscriptWriter("s-other").user("edit the app")
    other.assistant("", [tool("Edit", file_path="/home/me/app/src/app.ts")])
    write_session(ws, other, DAY - timedelta(days=2))

    u = _rule(ws, rule)
    assert (u.check, u.relevant, u.followed, u.checked) == ("path prohibition", 2, 1, 2)
    assert u.broken == ["s-broke"]


def test_a_tool_prohibition_and_an_unused_rule(tmp_path) -> None:  # type: ignore[no-untyped-def]
    web = "Do not use WebFetch for internal docs"
    push = "Never run `terraform apply` by hand"
    ws = workspace(tmp_path, f"- {web}\n- {push}\n- be kind\n")
    for i in range(20):
        w = TranscriptWriter(f"s-{i:02d}").user("work")
        calls = [bash("git status"), tool("Read", file_path="/home/me/app/README.md")]
        if i == 0:
            calls.append(("WebFetch", {"url": "https://intra/docs"}, "...", False))
        w.assistant("", calls)
        write_session(ws, w, DAY - timedelta(days=30 - i))
    fetched = _rule(ws, web)
    assert (fetched.check, fetched.relevant, fetched.followed, fetched.checked) == (
        "tool prohibition", 1, 0, 1,
    )  # fmt: skip
    assert fetched.broken == ["s-00"]
    assert fetched.flags == []  # relevant in one of the last 20 sessions
    never = _rule(ws, push)
    assert never.relevant == 0 and never.flags == ["unused in the last 20 sessions"]
    assert "followed: nothing to check (never relevant)" in never.summary()
    assert _rule(ws, "be kind").flags == []  # nothing to check: never flagged
    report = usage_report(ws, now=DAY)
    cut = [u.text for u in report.what_to_cut(ws.root / "CLAUDE.md")]
    assert cut == [push, web, "be kind"]  # never relevant, then 1 of 20, then unknown


def _skill_session(ws: Workspace, sid: str, days_ago: int, how: str) -> None:
    w = TranscriptWriter(sid)
    if how == "command":
        w.user("<command-message>review-pr is running…</command-message>\n"
               "<command-name>/review-pr</command-name>\n<command-args>12</command-args>")  # fmt: skip
    else:
        w.user("please review the PR")
    if how == "tool":
        w.assistant("", [("Skill", {"skill": "review-pr"}, "Launching skill: review-pr", False)])
    if how == "read":
        w.assistant("", [tool("Read", file_path=str(ws.root / "skills/review-pr/SKILL.md"))])
    w.assistant("", [tool("Read", file_path=str(ws.root / "skills/other/README.md"))])
    write_session(ws, w, DAY - timedelta(days=days_ago))


def test_a_skill_invoked_three_ways_and_skills_unused(tmp_path) -> None:  # type: ignore[no-untyped-def]
    ws = workspace(tmp_path, "- be kind\n")
    add_skill(ws, "review-pr", DAY - timedelta(days=200))
    add_skill(ws, "deploy", DAY - timedelta(days=200))
    add_skill(ws, "fresh", DAY - timedelta(days=10))
    _skill_session(ws, "s-tool", 60, "tool")
    _skill_session(ws, "s-command", 50, "command")
    _skill_session(ws, "s-read", 45, "read")
    _skill_session(ws, "s-none", 1, "none")
    report = usage_report(ws, now=DAY)
    skills = {u.text: u for u in report.items if u.kind == "skill"}
    review = skills["review-pr"]
    assert (review.sessions, review.relevant) == (4, 3)
    assert review.last_used is not None and review.last_used.startswith("2026-04-17")
    assert review.flags == ["not invoked in 30 days"]
    assert skills["deploy"].relevant == 0
    assert skills["deploy"].flags == ["not invoked in 30 days", "not invoked in 90 days"]
    assert skills["fresh"].flags == []  # written 10 days ago


def _report(ws: Workspace, rid: str, when: datetime, problem: str | None, try_: bool) -> None:
    lines = [f"id: {rid}", f"session_id: sess-{rid}", f"created_at: '{when.isoformat()}'"]
    lines += (
        ["problem:", "  - id: prob-001", f"    description: '{problem}'"]
        if problem
        else ["problem: []"]
    )
    lines.append("omission: []")
    if try_:
        lines += [
            "try:",
            "  - id: try-001",
            f"    description: '{LINT}'",
            "    addresses: [prob-001]",
            "    scope: global",
            "    persistence_target: {type: claude_md, path: CLAUDE.md, section: '## Rules'}",
        ]
    else:
        lines.append("try: []")
    (ws.root / "hurikaeri" / f"{rid}.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_the_effect_of_a_promotion_before_and_after(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from store.ledger import Ledger
    from store.review.items import find_item
    from store.review.promote import plan_promotion, promote_plans

    now = datetime.now(UTC)
    ws = workspace(tmp_path, "# Team\n\n## Rules\n\n- keep diffs small\n")
    problem = "Committed without running pnpm lint first"
    _report(ws, "kpt-20260101-001", now - timedelta(days=20), problem, try_=True)
    _report(ws, "kpt-20260101-002", now - timedelta(days=40), problem, try_=False)  # too early
    _report(
        ws,
        "kpt-20260101-003",
        now - timedelta(days=10),
        "committed without running pnpm lint",
        False,
    )
    _report(ws, "kpt-20260101-004", now - timedelta(days=5), "The API docs were stale", False)
    _report(ws, "kpt-20260101-005", now + timedelta(days=5), problem, try_=False)
    _report(ws, "kpt-20260101-006", now + timedelta(days=10), None, try_=False)
    led = Ledger(ws.state_dir)
    plan = plan_promotion(ws, find_item(ws, "kpt-20260101-001/try-001"))
    assert plan.status == "write"
    promote_plans(ws, [plan], ledger=led)
    before = TranscriptWriter("s-before").user("No, that's not it. I said run pnpm lint first")
    before.assistant("", [bash("pnpm lint")]).user("いや、違う。ちゃんと直してください").user("ok")
    write_session(ws, before, now - timedelta(days=5))
    after = TranscriptWriter("s-after").user("commit it")
    after.assistant("", [bash("pnpm lint"), bash("git commit -m done")])
    after.compact("The person said: no, that's not it. I said run pnpm lint first")
    write_session(ws, after, now + timedelta(days=3))

    u = _rule(ws, LINT, now=now + timedelta(days=30))
    assert u.written_from == "promoted" and (u.relevant, u.followed, u.checked) == (1, 1, 1)
    e = u.effect
    assert e is not None and e.item == "kpt-20260101-001/try-001"
    assert (e.problems_before, e.problems_after) == (2, 1)
    assert (e.kpt_sessions_before, e.kpt_sessions_after) == (3, 2)
    # the compaction summary quotes a correction: not the person's own line
    assert (e.corrections_before, e.corrections_after) == (2, 0)
    assert (e.sessions_before, e.sessions_after) == (1, 1)
    assert (
        "the problem came back 1 time in 2 reports, 2 times in 3 reports of the 30 days before"
        in u.summary()
    )
    assert _rule(ws, "keep diffs small", now=now).effect is None
    report = usage_report(ws, now=now + timedelta(days=30))
    found = report.for_item("kpt-20260101-001/try-001")
    assert found is not None and found.text == LINT
    assert report.for_item("kpt-20260101-003/try-001") is None


def test_real_transcripts(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Two sessions as Claude Code wrote them (tests/fixtures/spotter-transcripts): the
    corrections are the skill's trace script's (2 and 0), the plugin's ``/name`` command
    invokes its skill, and WebFetch (a sub-agent's in one) breaks a prohibition."""
    import shutil
    from pathlib import Path

    from store.insight.transcript_facts import FactsCache

    ws = workspace(tmp_path, "- Do not use WebFetch\n", written=datetime(2026, 1, 1, tzinfo=UTC))
    add_skill(ws, "create-beads", datetime(2026, 1, 1, tzinfo=UTC))
    src = Path(__file__).parents[1] / "fixtures" / "spotter-transcripts"
    slug = ws.root / "projects" / "-home-marco-projects-spotter"
    slug.mkdir(parents=True)
    for name in ("subagent.jsonl", "tool_heavy.jsonl"):
        shutil.copyfile(src / name, slug / name)
    facts = FactsCache(ws.state_dir).update(sorted((p.stem, p) for p in slug.iterdir()))
    assert {f.session_id: f.corrections for f in facts} == {"subagent": 2, "tool_heavy": 0}
    report = usage_report(ws, now=datetime(2026, 2, 20, tzinfo=UTC))
    by = {u.text: u for u in report.items}
    assert (by["create-beads"].relevant, by["create-beads"].sessions) == (1, 2)
    web = by["Do not use WebFetch"]
    assert (web.relevant, web.followed, sorted(web.broken)) == (2, 0, ["subagent", "tool_heavy"])


def test_a_skill_of_a_project_with_no_session_is_not_flagged(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """takt-sdd's skills, in a workspace with no transcript of its project:
    "not invoked in 30 days" would say what no session shows."""
    import shutil

    from store.config import Config
    from tests.conftest import FIXTURES

    proj = tmp_path / "takt-sdd"
    shutil.copytree(FIXTURES / "takt-sdd", proj)
    ws = Workspace(tmp_path / "claude", Config(projects=[str(proj)]))
    report = usage_report(ws, now=datetime.now(UTC) + timedelta(days=400))
    skills = [u for u in report.items if u.kind == "skill"]
    assert [(u.text, u.sessions, u.flags) for u in skills] == [
        ("kiro-steering", 0, []),
        ("kiro-validate-impl", 0, []),
    ]
