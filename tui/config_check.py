"""The config checks only the app can make, before it starts: ``theme`` names a theme and
every ``[keys]`` id a binding (a typo would be ignored silently); a
:class:`~store.config.ConfigError` names the file and the nearest name."""

from __future__ import annotations

import difflib
import importlib
import inspect
import pkgutil
from collections.abc import Iterable

from textual.binding import Binding, BindingType
from textual.dom import DOMNode

import screens
from store.config import Config, ConfigError


def binding_ids(app_bindings: Iterable[BindingType]) -> set[str]:
    """Every binding id: the app's and those of every screen, dialog and widget."""
    found = [app_bindings]
    for info in pkgutil.walk_packages(screens.__path__, "screens."):
        module = importlib.import_module(info.name)
        found += [
            obj.BINDINGS
            for obj in vars(module).values()
            if inspect.isclass(obj) and issubclass(obj, DOMNode)
        ]
    return {b.id for bindings in found for b in bindings if isinstance(b, Binding) and b.id}


def nearest(name: str, names: Iterable[str]) -> str:
    """`` (did you mean 'x'?)``, or nothing when no name is near."""
    close = difflib.get_close_matches(name, list(names), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def check_config(
    config: Config, themes: Iterable[str], app_bindings: Iterable[BindingType]
) -> None:
    where = config.path or "config"
    if config.theme is not None and config.theme not in themes:
        hint = nearest(config.theme, themes) or f" (one of: {', '.join(sorted(themes))})"
        raise ConfigError(f"{where}: theme {config.theme!r} is not a theme{hint}")
    if config.keys:
        ids = binding_ids(app_bindings)
        for key_id in config.keys:
            if key_id not in ids:
                raise ConfigError(
                    f"{where}: [keys] {key_id!r} is not a binding id{nearest(key_id, ids)}; "
                    "the ids are listed in docs/configuration.md"
                )
