"""One exit-status rule for every command (issue 17): 2 when the command line itself is
wrong (an unknown command or option, a missing argument, a value an option does not take),
1 when what it names has problems (an unknown id, a path that is not there, lint errors, a
refused write), 0 otherwise; the error is one line on standard error."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import DEMO, SEEDS
from tui.cli.main import main
from tui.cli.parser import build_parser

MISSING = "/no/such/dir"
DISCUSSION = "discussions/auth-token-strategy/2026-11-03-codex-round2.md"

#: (command line, exit status): per command a usage error, a subject with problems and a
#: success (demo and serve only as usage errors: they would start the UI or a server; sync's
#: success needs a git repository: see its own tests).
CASES: list[tuple[str, list[str], int]] = [
    ("demo", ["demo", "--bogus"], 2),
    ("lint", ["lint", "--bogus"], 2),
    ("lint", ["lint", "{root}/hurikaeri/no-such.yaml"], 1),
    ("lint", ["lint", "{root}/hurikaeri"], 0),
    ("show", ["show"], 2),
    ("show", ["show", "ll-ai-29990101-001", "--root", "{root}"], 1),
    ("show", ["show", "kpt-20261028-001/no-such", "--root", "{root}"], 1),
    ("show", ["show", "ll-ai-20261028-001", "--root", "{root}"], 0),
    ("show", ["show", "kpt-20261028-001", "--root", "{root}", "--json"], 0),
    ("import-wrapup", ["import-wrapup", "--root", "{root}"], 2),
    ("import-wrapup", ["import-wrapup", "{tmp}/no-such.json", "--root", "{root}"], 1),
    ("import-wrapup", ["import-wrapup", "{tmp}/wrapup.json", "--root", "{root}"], 0),
    ("export-feedback", ["export-feedback", "--root", "{root}"], 2),
    ("export-feedback", ["export-feedback", "kpt-29990101-001", "--root", "{root}"], 1),
    (
        "export-feedback",
        ["export-feedback", "kpt-20261120-001", "--dry-run", "--root", "{root}"],
        0,
    ),
    ("approve", ["approve", "--root", "{root}"], 2),
    ("approve", ["approve", "kpt-20261120-001/no-such", "--root", "{root}"], 1),
    ("approve", ["approve", "prop-20261118-001", "--root", "{root}"], 1),  # no --yes, no tty
    ("approve", ["approve", "kpt-20261120-001", "prop-20261118-001", "--root", "{root}"], 2),
    ("approve", ["approve", "kpt-20261120-001/keep-001", "--root", "{root}"], 0),
    ("reject", ["reject", "--note"], 2),
    ("reject", ["reject", "kpt-29990101-001/keep-001", "--root", "{root}"], 1),
    ("reject", ["reject", "kpt-20261120-001/keep-002", "--root", "{root}"], 0),
    ("history", ["history", "--limit", "x"], 2),
    ("history", ["history", "--limit", "-5", "--root", "{root}"], 2),  # not "no transactions"
    ("history", ["history", "--diff", "nosuchtx", "--root", "{root}"], 1),
    ("history", ["history", "--root", "{root}"], 0),
    ("undo", ["undo", "--bogus"], 2),
    ("undo", ["undo", "nosuchtx", "--root", "{root}"], 1),
    ("redo", ["redo", "a", "b"], 2),
    ("redo", ["redo", "nosuchtx", "--root", "{root}"], 1),
    ("promote", ["promote", "--root", "{root}"], 2),
    ("promote", ["promote", "kpt-20261120-001", "--root", "{root}"], 2),  # no item named
    ("promote", ["promote", "kpt-20261120-001/try-001", "try-001", "--root", "{root}"], 2),
    ("promote", ["promote", "kpt-20261120-001", "--near", "bogus", "--root", "{root}"], 2),
    ("promote", ["promote", "kpt-29990101-001/try-001", "--dry-run", "--root", "{root}"], 1),
    ("promote", ["promote", "kpt-20261120-001/try-001", "--root", "{root}"], 1),  # no tty
    ("promote", ["promote", "kpt-20261120-001/try-001", "--dry-run", "--root", "{root}"], 0),
    ("retarget", ["retarget", "kpt-20261120-001/try-001", "--type", "bogus", "--path", "x"], 2),
    ("retarget", ["retarget", "kpt-20261120-001/try-001", "--path", "x"], 2),
    (
        "retarget",
        [
            "retarget",
            "kpt-20261120-001/keep-001",
            "--type",
            "skill",
            "--path",
            "x",
            "--root",
            "{root}",
        ],
        1,
    ),
    (
        "retarget",
        [
            "retarget",
            "kpt-20261120-001/try-001",
            "--type",
            "claude_md",
            "--path",
            "CLAUDE.md",
            "--section",
            "TAKT",
            "--root",
            "{root}",
        ],
        0,
    ),
    ("match", ["match"], 2),
    ("match", ["match", "jwt", "--root", MISSING], 1),
    ("match", ["match", "jwt", "--root", "{root}"], 0),
    ("stats", ["stats", "--bogus"], 2),
    ("stats", ["stats", "--root", MISSING], 1),
    ("stats", ["stats", "--root", "{root}"], 0),
    ("meta", ["meta", "--kind", "bogus", "x.md"], 2),
    ("meta", ["meta", "{tmp}/no-such.md"], 1),
    ("meta", ["meta", f"{{root}}/{DISCUSSION}"], 0),
    ("search", ["search"], 2),
    ("search", ["search", "colour:red", "--root", "{root}"], 2),  # a malformed query
    ("search", ["search", "jwt", "--limit", "0", "--root", "{root}"], 2),  # not one hit
    ("search", ["search", "zzqqxxnothing", "--root", "{root}"], 1),  # no hits, as grep
    ("search", ["search", "jwt", "--root", "{root}"], 0),
    ("targets", ["targets", "--bogus"], 2),
    ("targets", ["targets", "--root", MISSING], 1),
    ("targets", ["targets", "--stale", "--root", "{root}"], 0),
    ("evidence", ["evidence"], 2),
    ("evidence", ["evidence", "kpt-29990101-001", "--root", "{root}"], 1),
    ("evidence", ["evidence", "kpt-20261028-001", "--root", "{root}"], 0),
    # no transcript: nothing could be checked, which is no pass
    ("evidence", ["evidence", "kpt-20261120-001", "--root", "{root}"], 1),
    ("usage", ["usage", "--bogus"], 2),
    ("usage", ["usage", "no/such/target.md", "--root", "{root}"], 1),
    ("usage", ["usage", "--root", "{root}"], 0),
    ("changes", ["changes", "--bogus"], 2),
    ("changes", ["changes", "--root", MISSING], 1),
    ("keep", ["keep", "--root", "{root}"], 2),  # neither a file nor --all
    ("keep", ["keep", "a.md", "--all", "--root", "{root}"], 2),  # both
    ("keep", ["keep", "--all", "--root", "{root}"], 0),  # nothing changed: nothing to keep
    ("revert", ["revert"], 2),
    ("revert", ["revert", "CLAUDE.md", "--hunk", "x"], 2),
    ("revert", ["revert", "CLAUDE.md", "--hunk", "0", "--root", "{root}"], 2),  # from 1
    ("revert", ["revert", "CLAUDE.md", "--hunk", "-1", "--root", "{root}"], 2),
    ("revert", ["revert", "CLAUDE.md", "--root", "{tmp}"], 0),  # a first start: nothing yet
    ("serve", ["serve", "--port", "x"], 2),
    ("sync", ["sync", "--bogus"], 2),
    ("sync", ["sync", "--dry-run", "--root", "{root}"], 1),  # not in a git repository
    ("completion", ["completion"], 2),
    ("completion", ["completion", "tcsh"], 2),
    ("completion", ["completion", "bash"], 0),
    (None, ["frobnicate"], 2),  # an unknown command
    (None, ["--bogus"], 2),
]


@pytest.fixture(scope="module")
def places(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """One demo copy for the whole table (the writes touch different items)."""
    tmp = tmp_path_factory.mktemp("exit")
    root = tmp / "demo"
    shutil.copytree(
        DEMO, root, ignore=shutil.ignore_patterns("index-cache-*", "search-cache-*", "search-v*")
    )
    wrapup = json.loads((SEEDS / "wrapup-input-v1.4.json").read_text(encoding="utf-8"))
    wrapup["session_id"] = "exit-codes-1"
    (tmp / "wrapup.json").write_text(json.dumps(wrapup), encoding="utf-8")
    return {"root": str(root), "tmp": str(tmp)}


@pytest.mark.parametrize(
    ("argv", "status"),
    [pytest.param(argv, status, id=" ".join(argv)) for _c, argv, status in CASES],
)
def test_exit_status(
    argv: list[str],
    status: int,
    places: dict[str, str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    code = main([a.format(**places) for a in argv])
    err = capsys.readouterr().err
    assert code == status, err
    assert "Traceback" not in err
    if status == 2:
        assert err.count("\n") == 1 and err.startswith("hurikaeri: error:"), err
    elif status == 1 and argv[0] not in ("lint", "search"):
        assert err.strip() and err.strip().splitlines()[-1].startswith("hurikaeri: "), err


#: run in this order on a copy of their own: a revert needs the first start recorded, undo
#: and redo a decision made on this machine (the demo's own lines were not written here),
#: which the table's cases, spread over test workers, cannot promise
IN_ORDER: list[tuple[str, list[str], int]] = [
    ("changes", ["changes", "--root", "{root}"], 0),  # the first start: recorded
    ("revert", ["revert", "CLAUDE.md", "--root", "{root}"], 1),  # no change to revert
    ("keep", ["keep", "no-such.md", "--root", "{root}"], 1),  # not a file under review
    ("reject", ["reject", "kpt-20261120-001/keep-002", "--root", "{root}"], 0),
    ("undo", ["undo", "--dry-run", "--root", "{root}"], 0),
    ("undo", ["undo", "--root", "{root}"], 0),
    ("redo", ["redo", "--dry-run", "--root", "{root}"], 0),
    ("redo", ["redo", "--root", "{root}"], 0),
]


def test_exit_statuses_that_need_an_earlier_write_in_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    root = tmp_path / "demo"
    shutil.copytree(
        DEMO, root, ignore=shutil.ignore_patterns("index-cache-*", "search-cache-*", "search-v*")
    )
    for _command, argv, status in IN_ORDER:
        code = main([a.format(root=root) for a in argv])
        err = capsys.readouterr().err
        assert code == status, (argv, err)
        assert "Traceback" not in err


def test_every_command_has_its_cases() -> None:
    """A new command comes with its exit statuses in CASES (at least a usage error)."""
    usage = re.search(r"\{([^}]*)\}", build_parser().format_usage())
    assert usage is not None
    commands = set(usage.group(1).split(","))
    covered = {c for c, _argv, _status in CASES + IN_ORDER}
    assert commands <= covered, f"add exit-status cases for {sorted(commands - covered)}"
    for command in commands - {"demo", "serve", "sync", "completion"}:
        statuses = {s for c, _a, s in CASES + IN_ORDER if c == command}
        assert statuses == {0, 1, 2}, (command, statuses)


def test_promote_and_retarget_take_either_form(
    demo_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ["--root", str(demo_root)]
    assert main(["promote", "kpt-20261120-001/try-001", "--dry-run", *root]) == 0
    slash = capsys.readouterr().out
    assert main(["promote", "kpt-20261120-001", "try-001", "--dry-run", *root]) == 0
    assert capsys.readouterr().out == slash and "+" in slash
    assert (
        main(
            [
                "retarget",
                "kpt-20261120-001/try-001",
                "--type",
                "memory",
                "--path",
                "memory/demo/project_memory.yaml",
                "--json",
                *root,
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["item"] == "kpt-20261120-001/try-001"
