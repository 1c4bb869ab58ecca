"""Standard output and error with every control character made visible: the commands
print text agents wrote, so no escape sequence in it reaches the terminal (JSON escapes
controls itself)."""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Iterator
from typing import TextIO

from store.read.textsafe import printable


class _Visible(io.TextIOBase):
    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(printable(text))
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def fileno(self) -> int:
        return self.stream.fileno()

    def isatty(self) -> bool:
        return self.stream.isatty()


@contextlib.contextmanager
def visible_output() -> Iterator[None]:
    """Within: ``print`` and ``sys.stdout``/``sys.stderr`` writes show controls visibly."""
    with (
        contextlib.redirect_stdout(_Visible(sys.stdout)),
        contextlib.redirect_stderr(_Visible(sys.stderr)),
    ):
        yield
