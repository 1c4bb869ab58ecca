"""End-to-end command line: exit codes, one-line errors, JSON output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, SEEDS, TAKT
from tui.cli.main import main


def run(
    *args: str, cwd: Path = REPO, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tui", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=120,
    )


def test_lint_demo_has_no_errors(demo_root: Path) -> None:
    r = run("lint", "--root", str(demo_root), "--json")
    assert r.returncode == 0, r.stderr
    diags = json.loads(r.stdout)
    assert diags and all(d["severity"] == "warning" for d in diags)
    assert set(diags[0]) == {"path", "line", "severity", "code", "message"}


def test_lint_errors_exit_1_with_path_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "kpt-20260101-001.yaml"
    bad.write_text("id: kpt-20260101-001\nkeep: [\n")
    r = run("lint", str(bad))
    assert r.returncode == 1
    assert f"{bad}:2: error: invalid YAML" in r.stdout
    assert "Traceback" not in r.stderr


def test_broken_piece_json(tmp_path: Path) -> None:
    r = run("lint", "--json", str(TAKT / "e2e/fixtures/pieces/broken.yaml"))
    assert r.returncode == 1
    (d,) = json.loads(r.stdout)
    assert (d["line"], d["severity"], d["code"]) == (3, "error", "yaml-syntax")


def test_lint_paths_and_directories() -> None:
    r = run("lint", str(SEEDS), str(TAKT / "builtins"))
    assert r.returncode == 0, r.stdout


@pytest.mark.parametrize(
    "args",
    [["lint", "--bogus"], ["frobnicate"], ["retarget", "k/t", "--type", "x", "--path", "p"]],
)
def test_usage_errors_exit_2_with_one_line(args: list[str]) -> None:
    r = run(*args)
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1
    assert r.stderr.startswith("hurikaeri: error:")


def test_missing_path_is_an_error() -> None:
    r = run("lint", "/no/such/file.yaml")
    assert r.returncode == 1 and "no such file" in r.stdout


def test_a_root_that_is_not_there_exits_1_with_one_line() -> None:
    r = run("lint", "--root", "/no/such/dir")
    assert (
        r.returncode == 1 and r.stderr == "hurikaeri: error: --root /no/such/dir: not a directory\n"
    )


def test_broken_config_exits_1(tmp_path: Path) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text("[paths]\nkpt = \n")
    r = run("lint", "--config", str(cfg))
    assert r.returncode == 1 and str(cfg) in r.stderr and "line 2" in r.stderr


def test_config_moves_a_location(tmp_path: Path, demo_root: Path) -> None:
    elsewhere = tmp_path / "drive" / "lessons.jsonl"
    elsewhere.parent.mkdir()
    elsewhere.write_text('{"id": "ll-user-20260101-001", "date": "2026-01-01", "title": "t"}\n')
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'[paths]\nlessons_user = "{elsewhere}"\n')
    r = run("lint", "--root", str(demo_root), "--json", env={"HURIKAERI_CONFIG": str(cfg)})
    diags = json.loads(r.stdout)
    assert any(d["path"] == str(elsewhere) and d["code"] == "missing-field" for d in diags)
    assert r.returncode == 1


def test_internal_errors_are_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import tui.cli.reports

    def boom(*_a: object, **_k: object) -> int:
        raise RuntimeError("kaboom")

    monkeypatch.setattr(tui.cli.reports, "cmd_lint", boom)
    assert main(["lint", "--root", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err == "hurikaeri: error: RuntimeError: kaboom\n"


def test_review_commands_share_the_ledger(demo_root: Path) -> None:
    root = ["--root", str(demo_root)]
    r = run("approve", "kpt-20261120-001/keep-001", "kpt-20261120-001/try-001", *root)
    assert r.returncode == 0, r.stderr
    r = run("reject", "kpt-20261120-001/prob-001", "--note", "근거 부족 [bold]x[/]", *root)
    assert r.returncode == 0
    r = run("show", "kpt-20261120-001", "--json", *root)
    data = json.loads(r.stdout)
    states = {i["ref"]: (i["state"], i["note"]) for i in data["items"]}
    assert states["kpt-20261120-001/keep-001"] == ("approved", None)
    assert states["kpt-20261120-001/prob-001"] == ("rejected", "근거 부족 [bold]x[/]")
    r = run("show", "kpt-20261120-001/prob-001", *root)
    assert "근거 부족 [bold]x[/]" in r.stdout
    r = run("undo", *root)
    assert r.returncode == 0 and "reject" in r.stdout
    data = json.loads(run("show", "kpt-20261120-001/prob-001", "--json", *root).stdout)
    assert data["state"] == "pending"


def test_review_errors_exit_1(demo_root: Path, tmp_path: Path) -> None:
    r = run("approve", "kpt-20261120-001/nope", "--root", str(demo_root))
    assert r.returncode == 1 and "has no item 'nope'" in r.stderr
    r = run("approve", "kpt-29990101-001/keep-001", "--root", str(demo_root))
    assert r.returncode == 1 and "no KPT report" in r.stderr
    r = run("undo", "--root", str(tmp_path))
    assert r.returncode == 1 and "nothing to undo" in r.stderr


def test_show_makes_escape_sequences_visible(tmp_path: Path) -> None:
    (tmp_path / "hurikaeri").mkdir()
    (tmp_path / "hurikaeri" / "kpt-20260101-001.yaml").write_text(
        'id: kpt-20260101-001\nsession_summary: "\\e[31mred\\e[0m \\u202e"\n'
    )
    r = run("show", "kpt-20260101-001", "--root", str(tmp_path))
    assert "\x1b" not in r.stdout and "\u202e" not in r.stdout and "␛[31mred" in r.stdout


def test_promote_dry_run_yes_and_undo(demo_root: Path) -> None:
    root = ["--root", str(demo_root)]
    claude = demo_root / "CLAUDE.md"
    original = claude.read_bytes()
    r = run("promote", "kpt-20261028-001", "try-001", "--dry-run", *root)
    assert (
        r.returncode == 0 and "+- 新パッケージ追加前にpackage.jsonの既存依存を確認する" in r.stdout
    )
    assert str(claude) in r.stdout and claude.read_bytes() == original
    r = run("promote", "kpt-20261028-001", "try-001", *root)  # no terminal to ask on
    assert r.returncode == 1 and "--yes" in r.stderr and claude.read_bytes() == original
    r = run("promote", "kpt-20261028-001", "try-001", "--yes", *root)
    assert r.returncode == 0 and "promoted kpt-20261028-001/try-001" in r.stdout
    assert claude.read_bytes() != original
    r = run("promote", "kpt-20261028-001", "try-001", "--yes", *root)
    assert r.returncode == 0 and "identical" in r.stderr
    r = run("undo", *root)
    assert r.returncode == 0 and claude.read_bytes() == original


def test_undo_refuses_when_the_promoted_file_changed(demo_root: Path) -> None:
    root = ["--root", str(demo_root)]
    claude = demo_root / "CLAUDE.md"
    assert run("promote", "kpt-20261028-001", "try-001", "--yes", *root).returncode == 0
    claude.write_bytes(claude.read_bytes() + b"- added by hand\n")
    r = run("undo", *root)
    assert r.returncode == 1 and "changed since hurikaeri wrote it" in r.stderr
    assert "+- added by hand" in r.stdout
    assert claude.read_bytes().endswith(b"- added by hand\n")


def test_promote_refusals_exit_1(demo_root: Path) -> None:
    root = ["--root", str(demo_root)]
    r = run("promote", "kpt-20261028-001", "keep-001", "--yes", *root)
    assert r.returncode == 1 and "only try-items" in r.stderr
    r = run(
        "retarget",
        "kpt-20261028-001",
        "try-001",
        "--type",
        "claude_md",
        "--path",
        "../../etc/x.md",
        *root,
    )
    assert r.returncode == 1 and "outside the workspace" in r.stderr
    r = run(
        "retarget",
        "kpt-20261028-001",
        "try-001",
        "--type",
        "claude_md",
        "--path",
        "notes/NEW.md",
        "--section",
        "## New",
        *root,
    )
    assert r.returncode == 0
    r = run("promote", "kpt-20261028-001", "try-001", "--yes", *root)
    assert r.returncode == 0 and (demo_root / "notes" / "NEW.md").read_text(
        encoding="utf-8"
    ).startswith("## New\n")


def test_import_wrapup_from_stdin_and_markdown_export(demo_root: Path) -> None:
    example = (SEEDS / "wrapup-input-v1.4.json").read_text(encoding="utf-8")
    r = subprocess.run(
        [sys.executable, "-m", "tui", "import-wrapup", "-", "--json", "--root", str(demo_root)],
        input=example,
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    ids = json.loads(r.stdout)
    assert ids["summary"] == "ws-20260223-001" and ids["ai_lessons"] == ["ll-ai-20260223-001"]
    r = subprocess.run(
        [sys.executable, "-m", "tui", "import-wrapup", "-", "--root", str(demo_root)],
        input="{}",
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert r.returncode == 1 and "nothing written" in r.stderr
    r = run("show", "kpt-20261118-001", "--markdown", "--root", str(demo_root))
    assert r.returncode == 0 and r.stdout.startswith("# harbor-api")
    assert (
        "## KPT report" in r.stdout
        and "## Session summary" in r.stdout
        and "## Lessons" in r.stdout
    )
    out = demo_root / "export.md"
    assert (
        run(
            "show", "kpt-20261118-001", "--markdown", "-o", str(out), "--root", str(demo_root)
        ).returncode
        == 0
    )
    assert out.read_text(encoding="utf-8") == r.stdout


def test_export_feedback_cli(demo_root: Path) -> None:
    r = run("export-feedback", "kpt-20261028-001", "--dry-run", "--root", str(demo_root))
    assert r.returncode == 0 and "task_summary:" in r.stdout
    r = run("export-feedback", "kpt-20261028-001", "--root", str(demo_root))
    assert r.returncode == 0 and "wrote" in r.stdout
    r = run("export-feedback", "kpt-20261028-001", "--root", str(demo_root))
    assert r.returncode == 1 and "already exported" in r.stderr
    r = run("stats", "--json", "--root", str(demo_root))
    data = json.loads(r.stdout)
    assert {"counts", "outcomes_per_week", "recurring_problems", "effect"} <= set(data)


def test_stats_prints_each_metric_as_the_stats_screen_shows_it(demo_root: Path) -> None:
    from store.insight.effect import effect_metrics
    from store.workspace import Workspace

    r = run("stats", "--root", str(demo_root))
    assert r.returncode == 0, r.stderr
    for m in effect_metrics(Workspace(demo_root)):
        assert f"  {m.name:<40} {m.shown:>10}  " in r.stdout


def test_no_escape_sequence_from_a_file_reaches_the_terminal(tmp_path: Path) -> None:
    """Whatever a command prints from agents' files (diagnostics, titles, ids, diffs) has its
    control characters shown as symbols; JSON stays valid."""
    kpt = tmp_path / "hurikaeri"
    kpt.mkdir()
    (kpt / "kpt-20260101-001.yaml").write_text(
        'id: kpt-20260101-001\noutcome: "\\e]0;pwned\\a\\e[31mwin"\n'
        'session_summary: "summary \\e[2J cleared"\nkeep: []\nproblem: []\ntry: []\n'
    )
    for args in (
        ("lint", "--root", str(tmp_path)),
        ("show", "kpt-20260101-001", "--root", str(tmp_path)),
        ("search", "summary", "--root", str(tmp_path)),
    ):
        r = run(*args)
        assert "\x1b" not in r.stdout + r.stderr and "\x07" not in r.stdout + r.stderr, args
        assert "␛" in r.stdout + r.stderr, args
    r = run("lint", "--root", str(tmp_path), "--json")
    assert any("\x1b" in d["message"] for d in json.loads(r.stdout))
