"""Approval is a person's act (docs/trust-boundary.md#approval-is-a-persons): a decision
made under an agent's environment variable is refused unless the person's own config file
allows it. A guard against an agent acting on its own, not a sandbox."""

from __future__ import annotations

import os
import pwd
import sys
from collections.abc import Mapping
from pathlib import Path

from store.config import Config
from store.errors import ReviewError

#: The variables agents set in the environment of the commands they run, in the order
#: they are looked at.
AGENT_VARIABLES: tuple[str, ...] = (
    "CLAUDECODE",
    "CLAUDE_CODE_ENTRYPOINT",
    "GEMINI_CLI",
    "CURSOR_AGENT",
    "GOOSE_TERMINAL",
    "CODEX_SANDBOX",
    "CODEX_THREAD_ID",
    "AI_AGENT",
    "AGENT",
)


#: The transactions only a person makes (``TxPlan.action``): decisions, promotions and
#: their undoing. Importing a wrap-up, exporting feedback and editing are not decisions.
PERSON_ACTIONS = frozenset(
    {
        "approve",
        "approve-section",
        "reject",
        "reopen",
        "decide",
        "archive",
        "restore",
        "promote",
        "retarget",
        "merge-duplicates",
        "undo",
        "redo",
        "keep",
        "revert",
    }
)


class AgentRefused(ReviewError):
    """A person's decision asked for from inside an agent's session."""


def agent_session(environ: Mapping[str, str]) -> str | None:
    """``NAME=value`` of the first agent variable set in ``environ``, else ``None``."""
    for name in AGENT_VARIABLES:
        value = environ.get(name, "")
        if value.strip():
            return f"{name}={value.strip()[:40]}"
    return None


def person_config_path() -> Path:
    """The config file at its default place for this user account, found from the
    account's home directory in the password database: not from ``HOME`` or
    ``XDG_CONFIG_HOME``, which an agent can set for the commands it runs."""
    try:
        home = Path(pwd.getpwuid(os.getuid()).pw_dir)
    except (KeyError, OSError):  # no entry for this account: no place to allow from
        return Path("/nonexistent/hurikaeri/config.toml")
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "hurikaeri" / "config.toml"
    return home / ".config" / "hurikaeri" / "config.toml"


def agents_allowed(config: Config) -> bool:
    """Whether the person's own config file (at its default place) lets agents decide."""
    if not config.agent_decisions or config.path is None:
        return False
    return os.path.realpath(config.path) == os.path.realpath(person_config_path())


def check_person(action: str, config: Config, environ: Mapping[str, str]) -> str | None:
    """Refuse ``action`` (one line, naming why) when it is asked for inside an agent's
    session the config does not allow; returns the agent's marker when it is allowed
    (the channel is then an allowed agent), ``None`` outside agents."""
    marker = agent_session(environ)
    if marker is None:
        return None
    if agents_allowed(config):
        return marker
    raise AgentRefused(
        f"{action} refused: this runs inside an agent's session ({marker}), and decisions "
        "are a person's; ask the person to run it in their own terminal"
    )
