"""``python -m tui``: the same entry point as the ``hurikaeri`` command."""

from tui.launch import entry

entry()
