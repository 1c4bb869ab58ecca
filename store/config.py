"""The user's TOML config (docs/configuration.md): where the workspace is and where each
location may be moved. A missing default file is fine; a broken one is an error naming the
file and line."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from store.errors import cannot_read

ENV_CONFIG = "HURIKAERI_CONFIG"

#: Every location of the workspace and its default, relative to the root.
LOCATIONS: dict[str, str] = {
    "kpt": "hurikaeri",
    "feedback": "feedback",
    "summaries": "session-summaries",
    "lessons_user": "lessons/user/lessons.jsonl",
    "lessons_ai": "lessons/ai/lessons.jsonl",
    "knowledge_base": "knowledge_base",
    "memory": "memory",
    "discussions": "discussions",
    "pieces": "pieces",
    "state": ".hurikaeri",
    # Claude Code's session transcripts: read (never written) to check a report's evidence
    "transcripts": "projects",
}


class ConfigError(Exception):
    """The config file cannot be used; the message names the file (and line)."""


class Config:
    """The settings (a plain class: a dataclass's module cost a search ~6 ms to import)."""

    def __init__(
        self,
        *,
        path: Path | None = None,
        root: Path | None = None,
        paths: dict[str, list[Path]] | None = None,
        allowed_dirs: list[Path] | None = None,
        keys: dict[str, str] | None = None,
        theme: str | None = None,
        projects: list[Path] | None = None,
        budgets: dict[str, int] | None = None,
        stale_days: int | None = None,
        reviewer: str | None = None,
        agent_decisions: bool = False,
        save_to: Path | None = None,
    ) -> None:
        self.path = path
        self.root = root
        self.paths = paths or {}
        self.allowed_dirs = allowed_dirs or []
        self.keys = keys or {}
        self.theme = theme
        #: project directories whose CLAUDE.md, rules, AGENTS.md and skills are targets
        self.projects = projects or []
        #: ``[budgets]``: a target kind's budget, in its unit (see ``BUDGET_KINDS``)
        self.budgets = budgets or {}
        #: ``[targets] stale_days``: a rule untouched this long is flagged (``None``: default)
        self.stale_days = stale_days
        #: ``reviewer``: who this person is in a team's ledgers (else git's user.email)
        self.reviewer = reviewer
        #: ``[review] agent_decisions = "allow"``: decisions may run inside an agent's session
        #: (honoured only from the config file at its default place: see store.tx.agents)
        self.agent_decisions = agent_decisions
        #: the file a theme chosen in the app is remembered in (the file read, or the default
        #: one when there was none; ``None``: nowhere, e.g. a config built in code)
        self.save_to = save_to


#: The target kinds a ``[budgets]`` entry may name, and the unit of each.
BUDGET_KINDS: dict[str, str] = {
    "memory_md": "lines",
    "claude_md": "tokens",
    "rules": "tokens",
    "agents_md": "tokens",
    "skill_md": "tokens",
    "skill_yaml": "tokens",
    "project_memory": "tokens",
}


def default_config_path() -> Path:
    """``config.toml`` in platformdirs' user config directory. On Linux with an absolute
    ``$HOME``, its XDG rule read here: every command asks, and importing platformdirs cost
    a search ~4 ms (a test holds the two to the same answers)."""
    home, xdg = os.environ.get("HOME", ""), os.environ.get("XDG_CONFIG_HOME", "")
    android = hasattr(sys, "getandroidapilevel") or "ANDROID_DATA" in os.environ
    if sys.platform == "linux" and os.path.isabs(home) and not android:
        return Path(
            xdg if os.path.isabs(xdg) else os.path.join(home, ".config"), "hurikaeri", "config.toml"
        )
    import platformdirs

    return Path(platformdirs.user_config_dir("hurikaeri")) / "config.toml"


def _expand(value: str) -> Path:
    return Path(os.path.expandvars(os.path.expanduser(value)))


def _strings(value: Any, where: str, path: Path) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise ConfigError(f"{path}: {where} must be a string or a list of strings")


def check_allowed_dir(directory: Path, path: Path | str) -> None:
    """An allowed directory that holds the whole machine or the home directory would let
    agent text reach every start-up file and key: refused, naming it. (Relative ones are
    checked by the workspace, against its root.)"""
    if not directory.is_absolute():
        return
    real = Path(os.path.realpath(directory))
    home = Path(os.path.realpath(os.path.expanduser("~")))
    if real == Path(real.anchor) or real == home or real in home.parents:
        raise ConfigError(
            f"{path}: [write] allowed_dirs includes {directory}"
            + (f" ({real})" if str(real) != str(directory) else "")
            + ", which is the whole file system or your home directory; name the "
            "directories hurikaeri may write instead (e.g. a project's folder)"
        )


def load_config(explicit: Path | None = None) -> Config:
    """Read the config; ``explicit`` (``--config``) and the environment must exist."""
    env = os.environ.get(ENV_CONFIG)
    path = explicit or (Path(env) if env else None)
    must_exist = path is not None
    path = path or default_config_path()
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        if must_exist:
            raise ConfigError(f"{path}: config file not found") from None
        return Config(save_to=path)
    except OSError as exc:
        raise ConfigError(cannot_read(path, exc)) from None
    import tomllib  # with a file to read: a command without one starts ~5 ms sooner

    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: the config file is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    config = parse_config(data, path)
    config.save_to = path
    return config


def parse_config(data: dict[str, Any], path: Path) -> Config:
    cfg = Config(path=path)
    known = {"root", "paths", "write", "keys", "theme", "projects", "budgets", "targets"}
    known |= {"reviewer", "review"}
    unknown = set(data) - known
    if unknown:
        raise ConfigError(f"{path}: unknown setting(s): {', '.join(sorted(unknown))}")
    if "root" in data:
        if not isinstance(data["root"], str):
            raise ConfigError(f"{path}: root must be a string (a directory)")
        cfg.root = _expand(data["root"])
    paths = data.get("paths", {})
    if not isinstance(paths, dict):
        raise ConfigError(f"{path}: [paths] must be a table")
    for key, value in paths.items():
        if key not in LOCATIONS:
            raise ConfigError(
                f"{path}: [paths] {key} is not a location (expected one of {', '.join(LOCATIONS)})"
            )
        cfg.paths[key] = [_expand(v) for v in _strings(value, f"[paths] {key}", path)]
    write = data.get("write", {})
    if not isinstance(write, dict):
        raise ConfigError(f"{path}: [write] must be a table")
    cfg.allowed_dirs = [
        _expand(v) for v in _strings(write.get("allowed_dirs", []), "allowed_dirs", path)
    ]
    for d in cfg.allowed_dirs:
        check_allowed_dir(d, path)
    keys = data.get("keys", {})
    if not isinstance(keys, dict) or not all(isinstance(v, str) for v in keys.values()):
        raise ConfigError(f"{path}: [keys] must map binding ids to key names")
    cfg.keys = dict(keys)
    theme = data.get("theme")
    if theme is not None and not isinstance(theme, str):
        raise ConfigError(f"{path}: theme must be a string")
    cfg.theme = theme
    who = data.get("reviewer")
    if who is not None and (not isinstance(who, str) or not who.strip()):
        raise ConfigError(f"{path}: reviewer must be a non-empty string (e.g. your e-mail)")
    cfg.reviewer = who.strip() if isinstance(who, str) else None
    review = data.get("review", {})
    if not isinstance(review, dict) or set(review) - {"agent_decisions"}:
        raise ConfigError(f"{path}: [review] takes only agent_decisions")
    decisions = review.get("agent_decisions", "refuse")
    if decisions not in ("allow", "refuse"):
        raise ConfigError(f'{path}: [review] agent_decisions must be "allow" or "refuse"')
    cfg.agent_decisions = decisions == "allow"
    _parse_targets(data, cfg, path)
    return cfg


def _positive(value: Any, where: str, path: Path) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ConfigError(f"{path}: {where} must be a positive whole number")
    return value


def _parse_targets(data: dict[str, Any], cfg: Config, path: Path) -> None:
    """``projects = [...]`` (or ``[projects] dirs = [...]``), ``[budgets]`` and
    ``[targets] stale_days``: what the targets view looks at and measures against."""
    projects = data.get("projects", [])
    if isinstance(projects, dict):
        extra = set(projects) - {"dirs"}
        if extra:
            raise ConfigError(
                f"{path}: [projects] takes only dirs (not {', '.join(sorted(extra))})"
            )
        projects = projects.get("dirs", [])
    cfg.projects = [_expand(v) for v in _strings(projects, "projects", path)]
    budgets = data.get("budgets", {})
    if not isinstance(budgets, dict):
        raise ConfigError(f"{path}: [budgets] must be a table")
    for key, value in budgets.items():
        if key not in BUDGET_KINDS:
            raise ConfigError(
                f"{path}: [budgets] {key} is not a target kind "
                f"(expected one of {', '.join(BUDGET_KINDS)})"
            )
        cfg.budgets[key] = _positive(value, f"[budgets] {key} ({BUDGET_KINDS[key]})", path)
    targets = data.get("targets", {})
    if not isinstance(targets, dict) or set(targets) - {"stale_days"}:
        raise ConfigError(f"{path}: [targets] takes only stale_days")
    if "stale_days" in targets:
        cfg.stale_days = _positive(targets["stale_days"], "[targets] stale_days", path)
