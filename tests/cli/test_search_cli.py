"""``hurikaeri search``: through the subcommand's own parser and as a separate process."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from store.search.index import DIR_NAME
from store.workspace import Workspace
from tests.conftest import REPO
from tui.cli.search import add_search_parser, cmd_search


def run(root: Path, *argv: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--root", type=Path)
    common.add_argument("--config", type=Path)
    parser = argparse.ArgumentParser(prog="hurikaeri")
    add_search_parser(parser.add_subparsers(dest="command"), common)
    args = parser.parse_args(["search", *argv, "--root", str(root)])
    status = cmd_search(args, Workspace(root))
    out = capsys.readouterr()
    return status, out.out, out.err


def test_json_is_a_list_of_hits_best_first(
    demo_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _err = run(demo_root, "jwt", "rotation", "--json", "--limit", "4", capsys=capsys)
    assert status == 0
    hits = json.loads(out)
    assert 0 < len(hits) <= 4
    assert {"kind", "id", "path", "line", "score", "title"} <= set(hits[0])
    assert [h["score"] for h in hits] == sorted((h["score"] for h in hits), reverse=True)
    for h in hits:
        assert Path(h["path"]).is_file() and h["line"] >= 1


def test_json_lines_point_at_the_record(
    demo_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _err = run(demo_root, "kind:try", "kid", "JWKS", "--json", capsys=capsys)
    assert status == 0
    (hit,) = json.loads(out)
    assert (hit["kind"], hit["id"]) == ("try", "kpt-20261118-001/try-001")
    text = Path(hit["path"]).read_text(encoding="utf-8").splitlines()
    assert text[hit["line"] - 1].strip() == "- id: try-001"


def test_text_output_and_exit_codes(demo_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(demo_root, "認証", "--limit", "2", capsys=capsys)
    assert status == 0 and out.count("\n    ") == 4 and "match" in err
    status, out, err = run(demo_root, "zzzqqqxxx", capsys=capsys)
    assert status == 1 and out == "" and "0 of 0" in err
    status, out, err = run(demo_root, "jwt", "colour:red", capsys=capsys)
    assert status == 2 and "unknown filter 'colour:'" in err and "Traceback" not in err


def test_a_separate_process_reuses_the_cache(demo_root: Path) -> None:
    cmd = [
        sys.executable,
        "-m",
        "tui.cli.search",
        "--root",
        str(demo_root),
        "--json",
        "--",
        "-kind:lesson",
        "jwt",
    ]
    first = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    assert (demo_root / ".hurikaeri" / DIR_NAME / "meta.json").is_file()
    second = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert second.returncode == 0 and second.stdout == first.stdout
    assert all(h["kind"] != "lesson" for h in json.loads(second.stdout))
    # the process's own exit (no teardown) keeps what it wrote (buffered) and its status
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    for query, status, out in (("jwt", 0, second.stdout), ("zzzqqqxxx", 1, "[]\n"), ("x:", 2, "")):
        got = subprocess.run(
            [*cmd[:-2], "-kind:lesson", query], cwd=REPO, capture_output=True, text=True, env=env
        )
        assert (got.returncode, got.stdout) == (status, out), got.stderr


def test_a_warm_search_imports_no_worker_pool(demo_root: Path) -> None:
    """The parsing workers' machinery (multiprocessing, concurrent.futures: ~20 ms), hashlib
    (~3 ms: a session's hash, a shared id's tag), the vocabulary (~1 ms: the typing path's),
    platformdirs (~4 ms: the config's place is read without it on Linux) and dataclasses
    (~6 ms, with inspect: the config, hits and results are plain classes and named tuples)
    are for a build, rare, the app or another system; a fresh interpreter's ``sys.modules``
    start empty."""
    cmd = [sys.executable, "-m", "tui.cli.search", "--root", str(demo_root), "--", "jwt"]
    subprocess.run(cmd, cwd=REPO, capture_output=True, check=True, timeout=120)  # built
    modules = ["multiprocessing", "concurrent.futures", "hashlib", "store.search.vocab"]
    modules += ["dataclasses", "inspect"]
    modules += ["platformdirs"] if sys.platform == "linux" else []
    code = (
        f"import sys\nfrom tui.cli.search import main\nMODULES = {modules!r}\n"
        f"main(['--root', {str(demo_root)!r}, '--', 'jwt'])\n"
        "print(*(m in sys.modules for m in MODULES))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert set(out.stdout.splitlines()[-1].split()) == {"False"}


def test_the_fast_entry_says_a_usage_error_in_one_line_as_every_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``hurikaeri search`` starts without the rest of the command line (tui.cli.search's
    own parser), and still says a malformed command line as the others do: one line."""
    from tui.cli.search import main

    for argv in (["--limit", "x", "jwt"], []):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("hurikaeri: error: ") and err.count("\n") == 1, err
        assert "(see 'hurikaeri search --help')" in err


def test_a_lesson_with_a_lone_surrogate_is_found_and_printed(demo_root: Path) -> None:
    """JSON lets an agent escape half a surrogate pair: the lesson is indexed, found, and its
    title printed with the character spelled out; the other lessons stay searchable."""
    rec = {"id": "ll-ai-20990101-001", "type": "ai_trial_error", "title": "zap \ud800 title"}
    with open(demo_root / "lessons" / "ai" / "lessons.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps(rec) + "\n")  # "\ud800", ASCII on disk
    for query, want in [("zap", "zap \u27e8U+D800\u27e9 title"), ("jwt", "jwt")]:
        cmd = [sys.executable, "-m", "tui", "search", "--root", str(demo_root), query]
        out = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=120)
        assert out.returncode == 0 and want.lower() in out.stdout.lower(), out.stderr
