"""Old import paths that still work for one release, with a warning."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from importlib import import_module
from typing import Any

REMOVED_IN = "0.3"


def moved(old: str, new: str) -> Callable[[str], Any]:
    """Warn that module ``old`` moved to ``new``; return a ``__getattr__`` forwarding to it."""
    warnings.warn(
        f"{old} moved to {new}; the old path is removed in {REMOVED_IN}",
        DeprecationWarning,
        stacklevel=3,
    )

    def forward(name: str) -> Any:
        return getattr(import_module(new), name)

    return forward
