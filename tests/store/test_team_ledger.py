"""A team's ledgers (issue 22): one file per reviewer, one fold whatever the order the files
are found or read in, contested items, personal undo, the reviewer's identity."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest

from store import team
from store.config import Config, ConfigError, parse_config
from store.ledger import Ledger
from store.review.items import decide_keys
from store.search.query import parse_query
from store.tx.transactions import UndoRefused, describe_turn, history, undo, undo_last
from store.workspace import Workspace
from tests.store.team_fixture import team_workspace

KEY = "kpt-20260208-001/try-001"
OTHER = "kpt-20260208-001/keep-001"


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    return team_workspace(tmp_path, monkeypatch)


def as_(ws: Workspace, who: str) -> Ledger:
    return Ledger(ws.state_dir, who=who)


def line(rid: str, at: str, op: str, target: str, who: str, **extra: object) -> str:
    rec = {
        "id": rid,
        "at": at,
        "op": "commit",
        "target": target,
        "tx": rid,
        "action": op,
        "who": who,
        "subjects": [target],
        "effects": [{"op": op, "target": target, **extra}],
    }
    return json.dumps(rec) + "\n"


def test_each_reviewer_writes_only_their_own_file(ws: Workspace) -> None:
    decide_keys(ws, [KEY], "approve", ledger=as_(ws, "Alice@Example.com"))
    decide_keys(ws, [OTHER], "reject", ledger=as_(ws, "bob"))
    names = sorted(p.name for p in (ws.state_dir / "ledger").iterdir())
    assert names == ["alice@example.com.jsonl", "bob.jsonl"]
    assert not (ws.state_dir / "ledger.jsonl").exists()
    led = Ledger(ws.state_dir)
    assert led.state(KEY).state == "approved" and led.state(KEY).who == "Alice@Example.com"
    assert led.state(OTHER).state == "rejected"


def test_without_a_team_the_single_ledger_is_written(tmp_path: Path) -> None:
    w = Workspace(tmp_path / "solo", Config(reviewer="me"))
    decide_keys(w, [KEY], "approve", ledger=Ledger(w.state_dir, who="alice"))
    decide_keys(
        w, [KEY], "reject", ledger=Ledger(w.state_dir, who="bob")
    )  # one file: never contested
    assert (w.state_dir / "ledger.jsonl").is_file()
    assert not (w.state_dir / "ledger").exists()
    assert Ledger(w.state_dir).state(KEY).state == "rejected"


def test_the_fold_is_the_same_in_any_file_order(ws: Workspace, tmp_path: Path) -> None:
    tz = ["+09:00", "+00:00", "-05:00"]
    lines: dict[str, list[str]] = {"alice": [], "bob": [], "carol": []}
    rng = random.Random(7)
    for i in range(60):
        who = rng.choice(list(lines))
        at = f"2026-02-08T1{i // 10}:{i % 10}0:00{rng.choice(tz)}"
        op = rng.choice(["approve", "reject", "reopen"])
        target = f"kpt-20260208-001/try-{rng.randrange(4):03d}"
        lines[who].append(line(f"{who}-{i:03d}", at, op, target, who))
    results = []
    for order in (["alice", "bob", "carol"], ["carol", "alice", "bob"], ["bob", "carol", "alice"]):
        d = tmp_path / f"s-{''.join(o[0] for o in order)}"
        (d / "ledger").mkdir(parents=True)
        led = Ledger(d, who="nobody")
        for who in order:  # one file at a time, read in between: later files hold the past
            (d / "ledger" / f"{who}.jsonl").write_text("".join(lines[who]))
            led.refresh()
        fresh = Ledger(d, who="nobody")
        assert [e.id for e in led.entries] == [e.id for e in fresh.entries]
        results.append(
            (
                [e.id for e in led.entries],
                {k: (s.state, sorted(s.decisions)) for k, s in led.states.items()},
            )
        )
    assert results[0] == results[1] == results[2]


def test_one_reviewers_own_order_holds_when_the_clock_goes_back(ws: Workspace) -> None:
    f = ws.state_dir / "ledger" / "alice.jsonl"
    f.write_text(
        line("a1", "2026-02-08T10:00:00+00:00", "approve", KEY, "alice")
        + line("a2", "2026-02-08T09:00:00+00:00", "reject", KEY, "alice")
    )
    assert Ledger(ws.state_dir, who="me").state(KEY).state == "rejected"


def test_differing_decisions_are_contested_until_decided_again(ws: Workspace) -> None:
    alice, bob = as_(ws, "alice"), as_(ws, "bob")
    decide_keys(ws, [KEY], "approve", "good", ledger=alice)
    decide_keys(ws, [KEY], "reject", "weak evidence", ledger=bob)
    led = Ledger(ws.state_dir, who="me")
    st = led.state(KEY)
    assert st.state == "contested" and st.contested
    assert {(d.who, d.state, d.note) for d in st.decisions.values()} == {
        ("alice", "approved", "good"),
        ("bob", "rejected", "weak evidence"),
    }
    assert parse_query("state:contested").filters[0].values == ("contested",)
    assert parse_query("status:cont").filters[0].values == ("contested",)
    # alice, seeing the disagreement, decides again: that settles it
    alice.refresh()
    r = decide_keys(ws, [KEY], "reject", "agreed", ledger=alice)
    assert len(r.entries[0].data["resolves"]) == 2
    led.refresh()
    assert led.state(KEY).state == "rejected" and len(led.state(KEY).decisions) == 1


def test_agreeing_reviewers_are_not_contested(ws: Workspace) -> None:
    decide_keys(ws, [KEY], "approve", ledger=as_(ws, "alice"))
    decide_keys(ws, [KEY], "approve", ledger=as_(ws, "bob"))
    st = Ledger(ws.state_dir, who="me").state(KEY)
    assert st.state == "approved" and len(st.decisions) == 2


def test_undo_stays_personal(ws: Workspace) -> None:
    mine = Ledger(ws.state_dir)
    assert mine.who == "me@example.com"  # the config's reviewer
    theirs = decide_keys(ws, [KEY], "approve", ledger=as_(ws, "bob"))
    own = decide_keys(ws, [OTHER], "reject", ledger=mine)
    mine.refresh()
    with pytest.raises(UndoRefused, match="bob's; you undo only your own"):
        undo(ws, theirs.id, ledger=mine)
    assert "Cannot undo" in describe_turn(ws, theirs.id, ledger=mine)
    done = undo_last(ws, ledger=mine)
    assert done is not None and done.undoes == own.id
    assert undo_last(ws, ledger=mine) is None  # bob's is not mine to undo
    assert mine.state(KEY).state == "approved"
    views = {v.id: v for v in history(ws, ledger=mine)}
    assert not views[theirs.id].own and not views[theirs.id].undoable
    # a line in bob's file cannot undo mine either
    bad = {
        "id": "x1",
        "at": "2030-01-01T00:00:00+00:00",
        "op": "commit",
        "target": OTHER,
        "tx": "x1",
        "action": "undo",
        "who": "bob",
        "subjects": [OTHER],
        "undoes": done.id,
        "effects": [],
    }
    with open(ws.state_dir / "ledger" / "bob.jsonl", "a") as fh:
        fh.write(json.dumps(bad) + "\n")
    mine.refresh()
    assert done.id not in mine.undone


def test_the_older_single_ledger_is_read_as_the_local_reviewers(ws: Workspace) -> None:
    old = {"id": "o1", "at": "2026-01-01T00:00:00+00:00", "op": "approve", "target": KEY}
    (ws.state_dir / "ledger.jsonl").write_text(json.dumps(old) + "\n")
    decide_keys(ws, [KEY], "reject", ledger=as_(ws, "bob"))
    led = Ledger(ws.state_dir)
    assert led.state(KEY).state == "contested"  # mine (the older file) against bob's
    assert led.path == ws.state_dir / "ledger" / "me@example.com.jsonl"
    decide_keys(ws, [OTHER], "approve", ledger=led)
    assert (ws.state_dir / "ledger" / "me@example.com.jsonl").is_file()
    assert "o1" in (ws.state_dir / "ledger.jsonl").read_text()
    assert led.is_own(next(e for e in led.entries if e.id == "o1").src)


def test_news_names_who_decided_what(ws: Workspace) -> None:
    mine = Ledger(ws.state_dir)
    known = set(mine.txs)
    decide_keys(ws, [KEY], "approve", ledger=as_(ws, "bob@example.com"))
    decide_keys(ws, [OTHER], "reject", ledger=mine)
    mine.refresh()
    assert mine.news(known) == [f"bob@example.com: approve {KEY}"]


def test_a_removed_or_rewritten_ledger_file_is_read_again(ws: Workspace) -> None:
    decide_keys(ws, [KEY], "approve", ledger=as_(ws, "bob"))
    led = Ledger(ws.state_dir, who="me")
    assert led.state(KEY).state == "approved"
    (ws.state_dir / "ledger" / "bob.jsonl").unlink()
    led.refresh()
    assert led.state(KEY).state == "pending"


def test_identity_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(team.REVIEWER_ENV, raising=False)
    w = Workspace(tmp_path / "r", Config(reviewer="cfg@example.com"))
    assert team.reviewer(None, w.state_dir) == "cfg@example.com"
    monkeypatch.setenv(team.REVIEWER_ENV, "env-person")
    assert team.reviewer(None, w.state_dir) == "env-person"
    assert team.reviewer("given", w.state_dir) == "given"
    assert team.file_name("  Ann.Lee+x@Example.COM ") == "ann.lee+x@example.com"
    assert team.file_name("../../etc/passwd") == "etc_passwd"
    assert team.file_name("") == "unknown"
    cfg = parse_config({"reviewer": "a@b"}, tmp_path / "c.toml")
    assert cfg.reviewer == "a@b"
    with pytest.raises(ConfigError, match="reviewer"):
        parse_config({"reviewer": ""}, tmp_path / "c.toml")


def test_locations_take_globs(tmp_path: Path) -> None:
    root = tmp_path / "root"
    for author in ("bob", "alice"):
        (root / "team" / author / "hurikaeri").mkdir(parents=True)
    cfg = Config(paths={"kpt": [Path("hurikaeri"), Path("team/*/hurikaeri")]})
    w = Workspace(root, cfg)
    assert w.locations["kpt"] == [
        root / "hurikaeri",
        root / "team/alice/hurikaeri",
        root / "team/bob/hurikaeri",
    ]
    shutil.rmtree(root / "team")
    assert Workspace(root, cfg).locations["kpt"][1] == root / "team/*/hurikaeri"


def test_lint_reports_two_authors_reports_with_one_id(tmp_path: Path) -> None:
    from store.insight.lint import lint_workspace

    root = tmp_path / "root"
    for author in ("alice", "bob"):
        d = root / "team" / author / "hurikaeri"
        d.mkdir(parents=True)
        (d / "kpt-20260208-001.yaml").write_text(
            f"id: kpt-20260208-001\nsession_id: s-{author}\nsession_summary: x\n"
            "keep: []\nproblem: []\ntry: []\nomission: []\n",
            encoding="utf-8",
        )
    w = Workspace(root, Config(paths={"kpt": [Path("team/*/hurikaeri")]}))
    found = [d for d in lint_workspace(w) if d.code == "duplicate-report-id"]
    assert sorted(d.path for d in found) == [
        "team/alice/hurikaeri/kpt-20260208-001.yaml",
        "team/bob/hurikaeri/kpt-20260208-001.yaml",
    ]


def test_redo_of_another_reviewers_undo_is_described_as_refused(ws: Workspace) -> None:
    from store.tx.transactions import describe_turn, undo

    alice = as_(ws, "alice@example.com")
    done = decide_keys(ws, [KEY], "approve", ledger=alice)
    undo(ws, done.id, ledger=alice)
    bob = as_(ws, "bob@example.com")
    said = describe_turn(ws, done.id, redo=True, ledger=bob)
    assert said.startswith("Cannot redo") and "alice@example.com's" in said


def test_bringing_in_that_fails_leaves_no_own_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found by review: the reviewer's own file was written in place; a failure (or a
    crash) part way left it there, the question never asked again and the lines in both
    files. It is written aside and linked into place only when whole."""
    import os as _os

    from store import team as team_mod

    state = tmp_path / ".hurikaeri"
    state.mkdir()
    (state / "ledger.jsonl").write_text('{"id": "a", "op": "approve"}\n', encoding="utf-8")
    own = state / "ledger" / "me.jsonl"

    def no_fsync(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_os, "fsync", no_fsync)
    with pytest.raises(OSError):
        team_mod.bring_in(state, own)
    assert not own.exists()
    assert (state / "ledger.jsonl").exists()
    assert [p.name for p in own.parent.iterdir()] == []
