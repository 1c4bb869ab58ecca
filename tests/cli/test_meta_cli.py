"""``hurikaeri meta``: the metadata block as JSON, through a parser built like the CLI's."""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import DEMO, REPO, SEEDS
from tui.cli.meta import add_meta_parser, cmd_meta


def parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--root", type=Path)
    p = argparse.ArgumentParser(prog="hurikaeri")
    sub = p.add_subparsers(dest="command")
    add_meta_parser(sub, common)
    return p


def run(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    *argv: str,
    stdin: str | bytes | None = None,
) -> tuple[int, str, str]:
    if stdin is not None:
        data = stdin.encode() if isinstance(stdin, str) else stdin
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    args = parser().parse_args(["meta", *argv])
    code = cmd_meta(args, None)
    out, err = capsys.readouterr()
    return code, out, err


def as_json(out: str) -> dict[str, Any]:
    data = json.loads(out)
    assert isinstance(data, dict)
    return data


def test_seed_review_as_json(capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run(capsys, monkeypatch, str(SEEDS / "reply-review.md"))
    assert code == 0
    data = as_json(out)
    assert {k: data[k] for k in ("status", "verdict", "source", "kind")} == {
        "status": "stop",
        "verdict": "conditional",
        "source": "block",
        "kind": "review",
    }
    assert data["findings"][1] == {
        "severity": "low",
        "message": "エラーメッセージのハードコード",
        "suggestion": "定数ファイルに移動",
    }
    assert set(data) >= {"open_questions", "decisions", "blockers", "next_steps", "extra"}
    assert data["diagnostics"][0]["code"] == "yaml-colon-in-value"
    assert "yaml-colon-in-value" in err  # diagnostics also on standard error


def test_reads_standard_input(capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    text = (SEEDS / "reply-discussion-stop.md").read_text()
    code, out, _ = run(capsys, monkeypatch, "-", stdin=text)
    data = as_json(out)
    assert code == 0 and data["status"] == "stop"
    assert data["next_steps"] == ["認証ミドルウェアの実装", "トークン発行エンドポイントの作成"]
    code, out, _ = run(capsys, monkeypatch, stdin=text)  # no FILE: standard input too
    assert as_json(out)["decisions"][0] == "JWT ベースの認証を採用"


def test_fallback_and_kind(capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(capsys, monkeypatch, "-", stdin="I think we should discuss more.\n")
    data = as_json(out)
    assert (code, data["status"], data["source"], data["from_fallback"]) == (
        0,
        "continue",
        "fallback",
        ["status"],
    )
    code, out, _ = run(capsys, monkeypatch, "-", "--kind", "review", stdin="Looks fine.\n")
    assert as_json(out)["status"] == "stop"
    demo = DEMO / "discussions/etl-dedup-review/2026-10-30-codex-review.md"
    code, out, _ = run(capsys, monkeypatch, str(demo))
    data = as_json(out)
    assert (data["status"], data["verdict"], data["source"]) == ("stop", "pass", "fallback")


def test_broken_block_exits_1_with_json_all_the_same(capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    text = "FAIL: no down migration.\n\n---\nstatus: stop\nfindings: [unclosed\n---\n"
    code, out, err = run(capsys, monkeypatch, "-", stdin=text)
    data = as_json(out)
    assert code == 1
    assert (data["source"], data["status"], data["verdict"]) == ("fallback", "stop", "fail")
    assert data["diagnostics"][0]["severity"] == "error"
    assert data["block_line"] == 3
    line = err.strip().splitlines()[0]
    assert line.startswith("<stdin>:") and "error" in line


def test_field_prints_one_value(capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(capsys, monkeypatch, str(SEEDS / "reply-review.md"), "--field", "status")
    assert (code, out) == (0, "stop\n")
    _, out, _ = run(
        capsys,
        monkeypatch,
        str(SEEDS / "reply-discussion-continue.md"),
        "--field",
        "open_questions",
    )
    assert out.splitlines() == ["ユーザー規模の想定", "モバイルアプリ対応の有無"]
    _, out, _ = run(capsys, monkeypatch, str(SEEDS / "reply-review.md"), "--field", "findings")
    assert json.loads(out.splitlines()[0])["severity"] == "medium"
    _, out, _ = run(capsys, monkeypatch, "-", "--field", "verdict", stdin="no verdict here")
    assert out == ""


def test_control_characters_never_reach_the_terminal(capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    text = 'x\n---\nstatus: stop\nnext_steps:\n  - "evil \\e[31mred"\n---\n'
    _, out, _ = run(capsys, monkeypatch, "-", "--field", "next_steps", stdin=text)
    assert "\x1b" not in out and "␛" in out
    _, out, _ = run(capsys, monkeypatch, "-", stdin=text)
    assert "\x1b" not in out and as_json(out)["next_steps"] == ["evil \x1b[31mred"]


def test_missing_file_exits_1(capsys, monkeypatch, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run(capsys, monkeypatch, str(tmp_path / "nope.md"))
    assert (code, out) == (1, "")
    assert err.count("\n") == 1 and "no such file" in err


def test_binary_input_is_refused(capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run(capsys, monkeypatch, "-", stdin=b"\x00\x01\x02")
    assert (code, out) == (1, "")
    assert "binary" in err


def test_bad_kind_is_rejected_by_the_parser() -> None:
    with pytest.raises(SystemExit):
        parser().parse_args(["meta", "-", "--kind", "chat"])


def test_building_the_parser_loads_no_model() -> None:
    """The choices it offers (reply kinds, target types, sections) come from the store's
    terms modules, which do without pydantic (a fresh interpreter: its modules start empty)."""
    code = "import sys\nfrom tui.cli.parser import build_parser\nbuild_parser()\n"
    code += "print('pydantic' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"
