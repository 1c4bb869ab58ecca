"""What a start imports before the sessions list is complete: nothing of the document models
(pydantic and the models cost tens of milliseconds of every start, and the list needs only
heads). Checked in fresh interpreters, whose ``sys.modules`` start empty."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from store.index.workspace_index import WorkspaceIndex
from store.workspace import Workspace

REPO = Path(__file__).resolve().parents[2]


def _run(code: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def test_the_app_module_imports_no_model() -> None:
    code = (
        "import sys, tui.app\nprint('pydantic' in sys.modules, 'store.models.base' in sys.modules)"
    )
    assert _run(code) == "False False"


def test_the_app_module_imports_nothing_the_first_list_does_without() -> None:
    """The keys panel's widget (Textual's Markdown: markdown-it and Pygments, ~0.1 s of
    every start, #47) is imported when the panel is first opened, and the transcript
    evidence (with search's query code) with the list's first filter, not at start."""
    mods = ("markdown_it", "pygments", "store.insight.evidence_cache")
    code = f"import sys, tui.app\nprint(*(m in sys.modules for m in {mods!r}))"
    assert _run(code) == "False False False"


def test_a_warm_start_lists_every_session_before_any_model_is_imported(demo_root: Path) -> None:
    WorkspaceIndex(Workspace(demo_root)).load_all(parallel=False)  # the cache, written
    code = f"""
import json, sys
from store.index.workspace_index import WorkspaceIndex
from store.workspace import Workspace
ix = WorkspaceIndex(Workspace({str(demo_root)!r}))
seen = []
def publish():
    if not seen:  # what the list and the header ask for as it fills, then the check
        asked = [ix.inbox_pending(), sorted({{s.project for s in ix.sessions.values()}})]
        seen.append(['pydantic' in sys.modules, len(ix.sessions), len(asked)])
ix.load_all(publish=publish, parallel=False)
print(json.dumps([seen[0], ix.stats['parsed'], len(ix.sessions), ix.inbox_pending(),
                  'store.tx.transactions' in sys.modules]))
"""
    (pydantic_then, listed, _asked), parsed, sessions, inbox, tx_code = json.loads(_run(code))
    assert parsed == 0 and listed == sessions > 20  # every session listed from the cache
    assert pydantic_then is False
    assert tx_code is False  # no transaction left open: recovery's code is not imported
    assert inbox >= 1  # the proposals are read after, with their model


def test_the_command_line_imports_no_event_loop() -> None:
    """``asyncio`` (~40 ms of CPU) serves ``serve`` alone: ``show``, ``approve`` and
    ``import-wrapup`` start without it (#47)."""
    assert _run("import sys, tui.cli.main\nprint('asyncio' in sys.modules)") == "False"
