"""hurikaeri's store: reading, indexing and writing the workspace (no user interface)."""

#: The version, as ``pyproject.toml`` gives it (a test keeps the two equal): read at every
#: start by the index cache, where asking the installed package's metadata costs 25 ms.
__version__ = "0.1.0"
