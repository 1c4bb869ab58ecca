"""The store's logged warnings, shown in the app as notifications (inside the app standard
error is Textual's, and nobody would read it there). Records come from any thread."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from functools import partial
from typing import Any

from textual.app import App
from textual.notifications import SeverityLevel


class NoticeHandler(logging.Handler):
    """Shows warnings (and worse) of the ``store`` loggers as the app's notifications."""

    def __init__(self, app: App[Any], loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(logging.WARNING)
        self.app = app
        self.loop = loop

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
        except (TypeError, ValueError):  # a bad format string: its text as it is
            text = str(record.msg)
        severity: SeverityLevel = "error" if record.levelno >= logging.ERROR else "warning"
        notify = partial(self.app.notify, text, severity=severity, timeout=30, markup=False)
        with contextlib.suppress(RuntimeError):  # the loop is closed: the app has ended
            self.loop.call_soon_threadsafe(notify)


def attach(app: App[Any]) -> NoticeHandler:
    """Route the store's warnings to ``app`` from now on (call on mount, in its loop)."""
    handler = NoticeHandler(app, asyncio.get_running_loop())
    logging.getLogger("store").addHandler(handler)
    return handler


def detach(handler: NoticeHandler) -> None:
    logging.getLogger("store").removeHandler(handler)
