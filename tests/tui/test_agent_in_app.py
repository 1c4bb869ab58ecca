"""A decision in an app started inside an agent's session is refused like one on the
command line (issue 45, part 2): the gate is in the store's one write path, so neither the
app nor any other caller can decide for the person; an allowed one is recorded as made by
an agent."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from screens.session import SessionScreen
from store.config import Config, default_config_path
from store.review.items import decide_keys
from store.tx.transactions import history
from store.workspace import Workspace
from tests.tui.helpers import make_app, ready, until

SESSION = "sid:7d4a9e2c-1b86-4f3d-a5e0-c8b2f6d9e413"
REPORT = "kpt-20261028-001"


def _ledger_hash(root: Path) -> str:
    return hashlib.sha256((root / ".hurikaeri" / "ledger.jsonl").read_bytes()).hexdigest()


async def test_a_decision_in_the_app_inside_an_agents_session_is_refused(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDECODE", "1")
    before = _ledger_hash(demo_root)
    app = make_app(demo_root)
    told: list[str] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        app.push_screen(SessionScreen(app.index, SESSION))
        await until(pilot, lambda: isinstance(app.screen, SessionScreen))
        await ready(pilot)
        notify = app.notify
        monkeypatch.setattr(
            app, "notify", lambda message, **kw: (told.append(str(message)), notify(message, **kw))
        )
        await pilot.press("a")
        await until(pilot, lambda: any("refused" in t and "CLAUDECODE=1" in t for t in told))
    assert _ledger_hash(demo_root) == before  # nothing recorded


def test_an_allowed_agents_decision_is_recorded_as_an_agents(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    own = default_config_path()
    own.parent.mkdir(parents=True, exist_ok=True)
    own.write_text('[review]\nagent_decisions = "allow"\n', encoding="utf-8")
    import store.tx.agents as agents

    monkeypatch.setattr(agents, "person_config_path", lambda: own)
    config = Config(path=own, agent_decisions=True)
    ws = Workspace(demo_root, config)
    monkeypatch.setenv("CLAUDECODE", "1")
    result = decide_keys(ws, [f"{REPORT}/keep-001"], "approve")
    (view,) = [h for h in history(ws) if h.id == result.id]
    assert view.channel == "agent"
    # and a config that is not the person's own file allows nothing
    elsewhere = Workspace(demo_root, Config(path=demo_root / "x.toml", agent_decisions=True))
    with pytest.raises(Exception, match="refused"):
        decide_keys(elsewhere, [f"{REPORT}/keep-002"], "approve")
