"""Where a change is made (its channel), and the time and ids of new ledger lines."""

from __future__ import annotations

import secrets
import sys
from datetime import UTC, datetime

#: Where a change was made (docs/trust-boundary.md "Approval is a person's"; ``script``: input
#: is no terminal); an undo without an id takes back only what its own channel did last.
CHANNELS = ("app", "terminal", "script", "agent")
_channel: list[str] = []


def set_channel(name: str | None) -> None:
    """The channel of this process from now on (the command line sets ``app`` before it
    opens the app; ``None``: told by the input again, see :func:`current_channel`)."""
    if name is not None and name not in CHANNELS:
        raise ValueError(f"unknown channel {name!r}")
    _channel[:] = [name] if name else []


def current_channel() -> str:
    """This process's channel: as set, else ``terminal`` when its input is a terminal,
    else ``script``."""
    if _channel:
        return _channel[0]
    try:
        return "terminal" if sys.stdin is not None and sys.stdin.isatty() else "script"
    except (OSError, ValueError):
        return "script"


def now_iso() -> str:
    return datetime.now(UTC).astimezone().isoformat(timespec="seconds")


def new_id() -> str:
    return secrets.token_hex(6)
