"""The UI: ``hurikaeri`` alone opens it on the workspace, ``hurikaeri demo`` on a fresh
temporary copy of the demo workspace."""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from store.workspace import Workspace
from tui.cli.errors import flags


def add_demo_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    demo = sub.add_parser(
        "demo", parents=[common], help="open the UI on a fresh temporary copy of the demo workspace"
    )
    flags(demo, keep="keep the copy after the app closes (removed otherwise)")


def copy_demo() -> Path:
    import assets

    target = Path(tempfile.mkdtemp(prefix="hurikaeri-demo-"))
    demo = Path(assets.__file__).parent / "demo"
    shutil.copytree(demo, target, dirs_exist_ok=True, symlinks=True, ignore=_caches)
    _sign_demo_ledger(target / ".hurikaeri" / "ledger.jsonl")
    return target


def _caches(directory: str, names: list[str]) -> set[str]:
    """What a checkout's state directory gained when hurikaeri ran on the demo itself."""
    if Path(directory).name != ".hurikaeri":
        return set()
    return {n for n in names if n.startswith(("index-cache-", "search-cache-", "search-v"))}


def _sign_demo_ledger(path: Path) -> None:
    """The shipped demo ledger signed with this machine's key, so that its history can be
    undone like the person's own (only lines signed here are acted on). Only the copy
    ``demo`` has just made is signed; nothing else ever is."""
    from store import machine_key
    from store.read.jsonl import encode_record

    try:
        lines = path.read_bytes().splitlines(keepends=True)
    except OSError:
        return
    out = []
    for raw in lines:
        try:
            record = json.loads(raw)
        except ValueError:
            out.append(raw)
            continue
        if isinstance(record, dict):
            sig = machine_key.sign(path.parent, record)
            if sig is not None:
                record["sig"] = sig
                raw = encode_record(record)
        out.append(raw)
    path.write_bytes(b"".join(out))


def run_ui(workspace: Workspace) -> int:
    from store.ledger import set_channel
    from tui.app import create_app

    set_channel("app")  # what the app records, and what its undo takes back
    app = create_app(workspace)
    before = {s: signal.signal(s, _ender(app)) for s in _ENDING}
    try:
        app.run()
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)
    return 0


#: the terminal closed (tmux kill-session), or asked to end
_ENDING = [s for s in (getattr(signal, "SIGHUP", None), signal.SIGTERM) if s is not None]


def _ender(app: Any) -> Callable[[int, Any], None]:
    """A signal handler ending the app as ``q`` does (the demo's copy removed, the index
    cache saved); a second signal ends it at once."""

    def end(signum: int, _frame: Any) -> None:
        import asyncio  # here: a small command does not import it

        signal.signal(signum, signal.SIG_DFL)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # the app is not running: end here, through the finally clauses
            raise SystemExit(128 + signum) from None
        loop.call_soon_threadsafe(app.exit)

    return end


def run_demo(config: Any, keep: bool) -> int:
    """The UI on a fresh copy of the demo workspace, removed afterwards unless ``keep``."""
    root = copy_demo()  # the app's header shows where it is while it runs
    try:
        return run_ui(Workspace(root, config))
    finally:
        if keep:
            print(f"The demo workspace is kept at {root}", file=sys.stderr)
        else:
            shutil.rmtree(root, ignore_errors=True)
            print(f"Removed the demo copy {root} (--keep keeps it)", file=sys.stderr)
