"""The ``hurikaeri`` command line (:func:`tui.cli.main.main`), one module per group of
commands. Nothing is imported here: ``hurikaeri search`` starts with :mod:`tui.cli.search`
alone (see :mod:`tui.launch`)."""
