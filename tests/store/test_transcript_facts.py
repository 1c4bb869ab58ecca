"""The session facts cache reads a grown transcript's appended bytes only, and a truncated
or rewritten one anew (issue #46)."""

from __future__ import annotations

from pathlib import Path

from store.insight.transcript_facts import FactsCache
from tests.transcript_lines import TranscriptWriter, sample_session


def _facts(state: Path, path: Path):  # type: ignore[no-untyped-def]
    cache = FactsCache(state)
    (facts,) = cache.update([(path.stem, path)])
    assert cache.save()
    return facts, cache.bytes_read


def test_a_grown_transcript_gives_the_new_facts_reading_only_what_was_appended(
    tmp_path: Path,
) -> None:
    w = sample_session()
    path = w.write(tmp_path)
    state = tmp_path / "state"
    state.mkdir()
    facts, read = _facts(state, path)
    assert read == path.stat().st_size
    assert list(facts.commands) == ["npm install express-jwt", "npm test"]
    assert facts.edited == ["/home/me/app/src/auth.ts"]
    assert facts.read == ["/home/me/app/package.json"]
    assert facts.corrections == 1  # "…を追加してください" scores 3 on the skill's table

    more = TranscriptWriter(w.sid)
    more.n = w.n
    more.user("No, that's not it: I said use pnpm")
    more.sidechain("lint", [("Bash", {"command": "pnpm lint"}, "ok")])
    more.compact("Earlier: ran pnpm install, I said use pnpm")
    added = more.text().encode()
    with path.open("ab") as fh:
        fh.write(added)
    facts, read = _facts(state, path)
    assert read == len(added)
    assert list(facts.commands) == ["npm install express-jwt", "npm test", "pnpm lint"]
    assert facts.corrections == 2  # the person's line, not the compaction summary

    # an unfinished last line waits for its end
    tail = TranscriptWriter(w.sid)
    tail.assistant("", [("Bash", {"command": "make build"}, "ok", False)])
    line = tail.text().encode()
    with path.open("ab") as fh:
        fh.write(line[:40])
    facts, read = _facts(state, path)
    assert read == 0 and "make build" not in facts.commands
    with path.open("ab") as fh:
        fh.write(line[40:])
    facts, read = _facts(state, path)
    assert read == len(line) and "make build" in facts.commands


def test_a_truncated_or_rewritten_transcript_is_read_anew(tmp_path: Path) -> None:
    w = sample_session()
    path = w.write(tmp_path)
    state = tmp_path / "state"
    state.mkdir()
    _facts(state, path)
    short = TranscriptWriter(w.sid).user("start over")
    short.assistant("", [("Bash", {"command": "cargo test"}, "ok", False)])
    path.write_text(short.text(), encoding="utf-8")  # smaller than what was read
    facts, read = _facts(state, path)
    assert list(facts.commands) == ["cargo test"] and facts.edited == []
    assert read == path.stat().st_size

    # the same size or more, other bytes where the last read stopped
    longer = TranscriptWriter(w.sid).user("again")
    longer.assistant("", [("Bash", {"command": "go test ./... && go vet ./..."}, "ok", False)])
    longer.assistant("", [("Bash", {"command": "cargo test"}, "ok", False)])
    path.write_text(longer.text(), encoding="utf-8")
    facts, _ = _facts(state, path)
    assert list(facts.commands) == ["go test ./... && go vet ./...", "cargo test"]


def test_a_damaged_cache_is_rebuilt(tmp_path: Path) -> None:
    path = sample_session().write(tmp_path)
    state = tmp_path / "state"
    state.mkdir()
    _facts(state, path)
    cache_file = next(state.iterdir())
    cache_file.write_bytes(cache_file.read_bytes()[:-10])
    facts, read = _facts(state, path)
    assert read == path.stat().st_size and "npm test" in facts.commands


def test_a_stopped_first_read_keeps_what_was_read(tmp_path: Path) -> None:
    """The first computation can be stopped (a progress callback says no): the transcripts
    read so far are not read again."""
    from store.config import Config
    from store.insight.usage import session_facts
    from store.workspace import Workspace

    root = tmp_path / "claude"
    (root / "hurikaeri").mkdir(parents=True)
    first = sample_session("a-first").write(root)
    second = sample_session("b-second").write(root)
    ws = Workspace(root, Config())
    facts, read, complete = session_facts(ws, lambda done, total: done < 1)
    assert [f.session_id for f in facts] == ["a-first"] and not complete
    assert read == first.stat().st_size
    facts, read, complete = session_facts(ws)
    assert sorted(f.session_id for f in facts) == ["a-first", "b-second"] and complete
    assert read == second.stat().st_size


def test_a_line_whose_timestamp_is_no_time_leaves_the_first_and_last(tmp_path: Path) -> None:
    """An agent's line with ``"timestamp": ""`` (or a number) is no time: the session's first
    and last times stay those of its real lines."""
    w = sample_session()
    path = w.write(tmp_path)
    state = tmp_path / "state"
    state.mkdir()
    facts, _read = _facts(state, path)
    first, last = facts.first, facts.last
    assert first and last and first < last
    odd = '{"type": "user", "timestamp": "", "message": {"role": "user", "content": "x"}}\n'
    odd += '{"type": "user", "timestamp": 7, "message": {"role": "user", "content": "y"}}\n'
    path.write_text(odd + path.read_text(encoding="utf-8"), encoding="utf-8")
    facts, _read = _facts(state, path)
    assert (facts.first, facts.last) == (first, last)
