"""``--version`` and the demo's temporary copy (issue 17)."""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest

import tui.cli.main as cli
import tui.cli.ui as cli_ui
from store import __version__
from tests.conftest import REPO


def test_version_prints_and_exits_0() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "tui", "--version"], cwd=REPO, capture_output=True, text=True
    )
    assert r.returncode == 0
    assert r.stdout == f"hurikaeri {version('hurikaeri')}\n"


def test_the_version_in_the_code_is_the_projects() -> None:
    """``store.__version__`` (what ``--version`` prints and the index cache is stamped
    with, without asking the package's metadata at every start) is ``pyproject.toml``'s,
    as installed."""
    with (REPO / "pyproject.toml").open("rb") as fh:
        project = tomllib.load(fh)["project"]
    assert __version__ == project["version"] == version("hurikaeri")


@pytest.mark.parametrize("keep", [False, True])
def test_demo_removes_its_copy_unless_kept(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], keep: bool
) -> None:
    seen: list[Path] = []

    def fake_ui(ws: object) -> int:
        root = ws.root  # type: ignore[attr-defined]
        assert (root / "hurikaeri").is_dir()  # the app runs on a full copy
        seen.append(root)
        return 0

    monkeypatch.setattr(cli_ui, "run_ui", fake_ui)
    assert cli.main(["demo", *(["--keep"] if keep else [])]) == 0
    (root,) = seen
    err = capsys.readouterr().err
    assert str(root) in err
    assert root.exists() is keep
    if keep:
        shutil.rmtree(root)


def test_demo_copy_is_removed_when_the_app_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Path] = []

    def failing_ui(ws: object) -> int:
        seen.append(ws.root)  # type: ignore[attr-defined]
        raise RuntimeError("boom")

    monkeypatch.setattr(cli_ui, "run_ui", failing_ui)
    assert cli.main(["demo"]) == 1
    assert not seen[0].exists()


def test_the_demo_copys_history_is_ours_and_can_be_undone(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The demo ships a decision log written before ledger lines were signed: its copy is
    signed for this machine (hurikaeri made the copy itself), so `demo` shows no line as
    "not ours" and its older promotion can be undone; the shipped demo is unchanged."""
    from tests.conftest import DEMO

    shipped = (DEMO / ".hurikaeri" / "ledger.jsonl").read_bytes()
    seen: list[Path] = []

    def fake_ui(ws: object) -> int:
        seen.append(ws.root)  # type: ignore[attr-defined]
        return 0

    monkeypatch.setattr(cli_ui, "run_ui", fake_ui)
    assert cli.main(["demo", "--keep"]) == 0
    (root,) = seen
    try:
        capsys.readouterr()
        assert cli.main(["lint", "--root", str(root)]) == 0
        assert "ledger-not-ours" not in capsys.readouterr().out
        assert cli.main(["history", "--root", str(root)]) == 0
        assert "not ours" not in capsys.readouterr().out
        # its promotion (made before channels were recorded) is undone by its id
        assert cli.main(["undo", "9bfee027583a", "--dry-run", "--root", str(root)]) == 0
        assert capsys.readouterr().out.startswith("Undo:")
    finally:
        shutil.rmtree(root)
    assert (DEMO / ".hurikaeri" / "ledger.jsonl").read_bytes() == shipped


def test_the_demo_copy_leaves_caches_of_a_checkout_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A development checkout's ``assets/demo`` gains an index and a search index when
    someone runs hurikaeri on it; a fresh demo copy starts without them (they name another
    directory and would be rebuilt anyway), the demo's own files all come along."""
    import assets

    fake = tmp_path / "assets"
    shutil.copytree(
        Path(assets.__file__).parent / "demo",
        fake / "demo",
        ignore=shutil.ignore_patterns("index-cache-*", "search-cache-*", "search-v*"),
    )
    (fake / "__init__.py").touch()
    state = fake / "demo" / ".hurikaeri"
    (state / "index-cache-v6.json").write_text("{}")
    (state / "search-v3").mkdir()
    (state / "search-v3" / "meta.json").write_text("{}")
    (fake / "demo" / "knowledge_base" / "search-vs-grep.md").write_text("a demo file\n")
    monkeypatch.setattr(assets, "__file__", str(fake / "__init__.py"))
    copy = cli_ui.copy_demo()
    try:
        kept = {p.relative_to(copy).as_posix() for p in copy.rglob("*") if p.is_file()}
        shipped = {
            p.relative_to(fake / "demo").as_posix()
            for p in (fake / "demo").rglob("*")
            if p.is_file()
        }
        caches = {".hurikaeri/index-cache-v6.json", ".hurikaeri/search-v3/meta.json"}
        assert "knowledge_base/search-vs-grep.md" in kept
        assert kept == shipped - caches
    finally:
        shutil.rmtree(copy)


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGTERM])
def test_demo_removes_its_copy_when_its_terminal_closes(tmp_path: Path, signum: int) -> None:
    """``tmux kill-session`` hangs up the demo's terminal (SIGHUP) before ``q``: the app
    ends as on ``q`` and the copy is removed (so on SIGTERM)."""
    pty = pytest.importorskip("pty")
    master, slave = pty.openpty()
    child = subprocess.Popen(
        [sys.executable, "-m", "tui", "demo"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        cwd=REPO,
        env={**os.environ, "TERM": "xterm-256color", "TMPDIR": str(tmp_path)},
    )
    os.close(slave)
    seen = b""
    try:
        while b"hurikaeri" not in seen:  # the first screen is drawn: the app runs
            ready, _, _ = select.select([master], [], [], 60)
            assert ready, f"the demo drew nothing: {seen[-500:]!r}"
            seen += os.read(master, 65536)
        assert list(tmp_path.glob("hurikaeri-demo-*"))  # its copy
        child.send_signal(signum)
        while child.poll() is None:  # its last output read (a full terminal would block it)
            if select.select([master], [], [], 1)[0]:
                try:
                    seen += os.read(master, 65536)
                except OSError:  # the pty closed with the process
                    break
        child.wait(timeout=120)  # a bound for a failing run only
    finally:
        os.close(master)
        if child.poll() is None:
            child.kill()
            child.wait()
    assert list(tmp_path.glob("hurikaeri-demo-*")) == [], seen[-500:]


@pytest.mark.parametrize("how", ["missing", "broken", "shadowed"])
def test_without_the_c_loader_a_clear_message(
    how: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """ruamel.yaml's C extension not installed, one that does not load (built for another
    Python), or a Python file of its name in its place (ruamel.yaml then reads without C):
    one line saying what to install, exit status 2, for any command."""
    if how == "missing":
        monkeypatch.setitem(sys.modules, "_ruamel_yaml", None)
        monkeypatch.delitem(sys.modules, "ruamel.yaml.cyaml", raising=False)
    else:
        from importlib.machinery import EXTENSION_SUFFIXES

        if how == "shadowed":
            (tmp_path / "_ruamel_yaml.py").write_text("raise ImportError('not C')\n")
        else:
            (tmp_path / f"_ruamel_yaml{EXTENSION_SUFFIXES[0]}").write_bytes(b"not a library")
        monkeypatch.syspath_prepend(str(tmp_path))
        monkeypatch.delitem(sys.modules, "_ruamel_yaml", raising=False)  # looked for again
        monkeypatch.delitem(sys.modules, "ruamel.yaml.cyaml", raising=False)
    assert cli.main(["--root", str(tmp_path), "lint"]) == 2
    err = capsys.readouterr().err
    assert "ruamel.yaml's C loader (ruamel.yaml.clib) is not installed" in err
    assert err.count("\n") == 1
