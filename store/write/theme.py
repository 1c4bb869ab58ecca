"""Remembering the theme in the config file: its one ``theme = …`` line changed in place,
every other byte kept (the config itself is read by :mod:`store.config`)."""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path

from store.config import ConfigError
from store.write.atomic import atomic_write, current_stamp

#: A top-level ``theme = …`` line: what precedes the value, the value, what follows it.
_THEME_LINE = re.compile(
    rb"""^(?P<head>[ \t]*(?:theme|"theme"|'theme')[ \t]*=[ \t]*)"""
    rb"""(?P<value>"(?:[^"\\\n]|\\.)*"|'[^'\n]*')(?P<tail>[^\n]*)$""",
    re.MULTILINE,
)
_TABLE = re.compile(rb"^[ \t]*\[", re.MULTILINE)
#: A line that sets something (not blank, not a comment), up to its line break.
_SETTING = re.compile(rb"^[ \t]*[^#\s\[][^\n]*\n?", re.MULTILINE)


def save_theme(path: Path, name: str) -> None:
    """Set ``theme`` in the config file, changing only that line (or adding it), atomically;
    nothing is written that would parse as anything else."""
    stamp = current_stamp(path)
    old = path.read_bytes() if stamp is not None else b""
    try:
        before = tomllib.loads(old.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: the theme was not remembered: {exc}") from None
    for new in _with_theme(old, json.dumps(name).encode("utf-8")):
        try:
            if tomllib.loads(new.decode("utf-8")) == {**before, "theme": name}:
                atomic_write(path, new, stamp, guard=lambda _p: None, create=True)
                return
        except tomllib.TOMLDecodeError:
            continue
    raise ConfigError(f"{path}: the theme was not remembered: its line is not a plain value")


def _with_theme(old: bytes, value: bytes) -> Iterator[bytes]:
    """``old`` with ``theme = value`` (a TOML string), the likeliest edit first."""
    first_table = _TABLE.search(old)
    top_end = first_table.start() if first_table else len(old)
    line = _THEME_LINE.search(old, 0, top_end)
    if line is not None:
        yield old[: line.start("value")] + value + old[line.end("value") :]
        return
    added = b"theme = " + value + b"\n"
    settings = [m.end() for m in _SETTING.finditer(old, 0, top_end)]
    if settings:  # after the last top-level setting's line
        at = settings[-1]
        yield old[:at] + (b"" if old[:at].endswith(b"\n") else b"\n") + added + old[at:]
    yield added + old  # the top of the file always holds top-level settings
