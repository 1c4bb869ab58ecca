"""A default root that holds nothing of ours (``~/.claude`` absent, or a Claude Code
directory without any of our folders): ``lint``, ``stats`` and the app say so and point at
``hurikaeri demo``, ``--root`` and the config, instead of an empty list and "no problems
found" (issue 17)."""

from __future__ import annotations

from pathlib import Path

import pytest

from store.config import Config
from tests.tui.helpers import ready, telling, told
from tui.app import create_app
from tui.cli.main import main


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    fake = tmp_path / "home"
    fake.mkdir()
    monkeypatch.setenv("HOME", str(fake))
    return fake


def claude_code_only(home: Path) -> None:
    """What Claude Code alone leaves: transcripts and settings, none of our folders."""
    (home / ".claude" / "projects" / "-x").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text("{}")


def hints(err: str) -> None:
    assert err.count("\n") == 1 and "nothing to review" in err
    assert "hurikaeri demo" in err and "--root DIR" in err and "config.toml" in err


@pytest.mark.parametrize("command", [["lint"], ["lint", "--json"], ["stats"], ["stats", "--json"]])
def test_a_missing_default_root(
    home: Path, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(command) == 1
    out, err = capsys.readouterr()
    assert out == "" and f"{home / '.claude'} does not exist" in err
    hints(err)


@pytest.mark.parametrize("command", [["lint"], ["stats"]])
def test_a_default_root_without_our_folders(
    home: Path, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    claude_code_only(home)
    assert main(command) == 1
    out, err = capsys.readouterr()
    assert out == "" and "holds none of hurikaeri's folders" in err and "no problems" not in err
    hints(err)


def test_one_of_our_folders_is_enough(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    claude_code_only(home)
    (home / ".claude" / "hurikaeri").mkdir()
    assert main(["lint"]) == 0
    assert "no problems found" in capsys.readouterr().err


def test_a_root_given_is_taken_as_given(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = home / "fresh"
    empty.mkdir()
    assert main(["stats", "--root", str(empty), "--json"]) == 0
    assert main(["lint", "--root", str(empty)]) == 0
    capsys.readouterr()


async def test_the_app_says_so_at_start(home: Path) -> None:
    claude_code_only(home)
    app = telling(create_app(None, Config(), watch=False))
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        (note,) = [n for n in told(app) if "nothing to review" in n.message]
        assert "hurikaeri demo" in note.message and "--root" in note.message
        assert note.severity == "warning"


async def test_the_app_on_a_workspace_says_nothing(demo_root: Path) -> None:
    app = telling(create_app(demo_root, watch=False))
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        assert not [n for n in told(app) if "nothing to review" in n.message]
