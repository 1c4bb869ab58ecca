"""The ``hurikaeri`` command line (:func:`tui.cli.main.main`), one module per group of
commands; nothing is imported here (``hurikaeri search`` starts with :mod:`tui.cli.search`
alone)."""
