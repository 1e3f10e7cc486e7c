"""Names a package exports but loads on first use (PEP 562), so importing it stays cheap."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_getattr(namespace: dict[str, Any], homes: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports each name from its home module on first use.

    Args:
        namespace: The package's ``globals()``; a loaded name is kept there, so the next
            lookup does not come back here.
        homes: The module each lazily exported name is imported from.

    Returns:
        The ``__getattr__``; for a name not in ``homes`` it raises ``AttributeError``.
    """

    def load(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        value = getattr(import_module(home), name)
        namespace[name] = value
        return value

    return load


def lazy_dir(namespace: dict[str, Any]) -> Callable[[], list[str]]:
    """A module ``__dir__`` listing what is loaded and everything in ``__all__``."""

    def listing() -> list[str]:
        return sorted({*namespace, *namespace["__all__"]})

    return listing
