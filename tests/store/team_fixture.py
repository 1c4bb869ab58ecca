"""A workspace set up for a team (a ledger directory, the reviewer named in the config):
what the team ledger tests start from."""

from __future__ import annotations

from pathlib import Path

import pytest

from store import team
from store.config import Config
from store.workspace import Workspace


def team_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    monkeypatch.delenv(team.REVIEWER_ENV, raising=False)
    w = Workspace(tmp_path / "root", Config(reviewer="me@example.com"))
    (w.state_dir / "ledger").mkdir(parents=True)
    return w
