"""Approval is a person's act (issue 45, part 2): decisions refuse to run inside an agent's
session, ``--yes`` or not, and write nothing; reading commands stay open to agents; only
the person's own config file, at its default place, may allow agents to decide."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from store.config import default_config_path
from store.tx.agents import AGENT_VARIABLES

PROPOSAL = "prop-20261116-001"
ITEM = "kpt-20261028-001/keep-001"


def hurikaeri(
    root: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tui", *args, "--root", str(root)],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
    )


def files(root: Path) -> dict[str, str]:
    """Every file of the workspace (caches and the search index apart) and its hash."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
        and "cache" not in p.name
        and not p.name.startswith("first-page")
        and not any(part.startswith("search-v") for part in p.relative_to(root).parts)
    }


def test_an_agent_cannot_approve_and_nothing_is_written(demo_root: Path) -> None:
    before = files(demo_root)
    done = hurikaeri(demo_root, "approve", PROPOSAL, "--yes", env={"CLAUDECODE": "1"})
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "CLAUDECODE=1" in lines[0] and "person" in lines[0], done.stderr
    assert "Traceback" not in done.stderr
    assert files(demo_root) == before
    # the same command by a person works
    done = hurikaeri(demo_root, "approve", PROPOSAL, "--yes")
    assert done.returncode == 0, done.stderr
    assert files(demo_root) != before


@pytest.mark.parametrize(
    "args",
    [
        ("approve", ITEM),
        ("reject", ITEM, "--note", "no"),
        ("promote", "kpt-20261028-001", "try-001", "--yes"),
        ("retarget", "kpt-20261028-001", "try-001", "--type", "claude_md", "--path", "CLAUDE.md"),
        ("undo",),
        ("redo",),
        ("sync",),
    ],
    ids=lambda a: a[0],
)
@pytest.mark.parametrize("variable", ["CLAUDECODE", "GEMINI_CLI", "CURSOR_AGENT", "AGENT"])
def test_every_decision_is_refused_under_every_agent(
    demo_root: Path, args: tuple[str, ...], variable: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import tui.cli.main as cli

    before = files(demo_root)
    env = {variable: "1"}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        status = cli.main([*args, "--root", str(demo_root)])
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    assert status == 1
    err = capsys.readouterr().err
    assert f"{args[0]} refused" in err and f"{variable}=1" in err, err
    assert files(demo_root) == before


def test_showing_what_would_be_done_and_reading_stay_open_to_agents(demo_root: Path) -> None:
    env = {"CLAUDECODE": "1"}
    before = files(demo_root)
    for args in (
        ("approve", PROPOSAL, "--dry-run"),
        ("promote", "kpt-20261028-001", "try-001", "--dry-run"),
        ("show", ITEM),
        ("search", "migration"),
        ("stats",),
        ("lint",),
    ):
        done = hurikaeri(demo_root, *args, env=env)
        assert "refused" not in done.stderr, (args, done.stderr)
        assert done.returncode in (0, 1), (args, done.stderr)
    assert files(demo_root) == before


def test_only_the_persons_own_config_file_allows_agents(
    demo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    allow = '[review]\nagent_decisions = "allow"\n'
    elsewhere = tmp_path / "agent-written.toml"
    elsewhere.write_text(allow, encoding="utf-8")
    xdg = tmp_path / "agent-xdg"
    (xdg / "hurikaeri").mkdir(parents=True)
    (xdg / "hurikaeri" / "config.toml").write_text(allow, encoding="utf-8")
    agent = {"CLAUDECODE": "1"}
    # a config an agent names itself does not count: by flag, by variable, or by moving
    # the config directory (XDG_CONFIG_HOME, found by review) or the home directory
    for how, env in (
        (["--config", str(elsewhere)], agent),
        ([], {**agent, "HURIKAERI_CONFIG": str(elsewhere)}),
        ([], {**agent, "XDG_CONFIG_HOME": str(xdg)}),
        ([], {**agent, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(xdg)}),
    ):
        done = hurikaeri(demo_root, "approve", PROPOSAL, "--yes", *how, env=env)
        assert done.returncode == 1 and "refused" in done.stderr, (how, env, done.stderr)
    # the file at its default place for the account (its home in the password database,
    # here pointed at the test's config directory) does
    import store.tx.agents as agents
    import tui.cli.main as cli

    own = default_config_path()
    own.parent.mkdir(parents=True, exist_ok=True)
    own.write_text(allow, encoding="utf-8")
    monkeypatch.setattr(agents, "person_config_path", lambda: own)
    monkeypatch.setenv("CLAUDECODE", "1")
    assert cli.main(["approve", PROPOSAL, "--yes", "--root", str(demo_root)]) == 0


def test_a_bad_review_setting_is_one_line(demo_root: Path) -> None:
    own = default_config_path()
    own.parent.mkdir(parents=True, exist_ok=True)
    own.write_text('[review]\nagent_decisions = "yes"\n', encoding="utf-8")
    done = hurikaeri(demo_root, "stats")
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and "agent_decisions" in done.stderr


def test_the_tests_run_as_a_person() -> None:
    assert not [v for v in AGENT_VARIABLES if os.environ.get(v)]


def test_an_agent_cannot_wave_a_secret_through(demo_root: Path, tmp_path: Path) -> None:
    """Found by review: a refused secret names its override, to whoever runs the command;
    import-wrapup stays open to agents, but judging a hit to be no secret is a person's."""
    wrapup = tmp_path / "w.json"
    wrapup.write_text(
        '{"project": "c:/x", "date": "2026-11-20T10:00:00", "session_id": "s-secret", '
        '"summary": {"info": ["i"]}, "user_lessons": [{"type": "user_preference", '
        '"category": "c", "title": "key AKIAIOSFODNN7EXAMPLF in use"}], "ai_lessons": []}',
        encoding="utf-8",
    )
    before = files(demo_root)
    done = hurikaeri(
        demo_root, "import-wrapup", str(wrapup), "--allow-secret", env={"CLAUDECODE": "1"}
    )
    assert done.returncode == 1 and "--allow-secret refused" in done.stderr, done.stderr
    assert files(demo_root) == before


def test_an_item_named_twice_is_decided_once(demo_root: Path) -> None:
    done = hurikaeri(demo_root, "approve", ITEM, ITEM, "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["decided"] == [ITEM]
    (last,) = json.loads(hurikaeri(demo_root, "history", "--limit", "1", "--json").stdout)
    assert last["subjects"] == [ITEM] and len(last["effects"]) == 1
