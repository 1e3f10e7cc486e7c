"""Moved: methods are registered plugins (:mod:`debategraph.methods`); removed in 0.3.

``METHODS`` is a read-only view of the registered methods and ``get_method`` the registry's.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from debategraph._compat import moved

_forward = moved(__name__, "debategraph.methods")


def __getattr__(name: str) -> Any:
    if name == "METHODS":
        from debategraph.methods import list_methods

        return MappingProxyType({m.name: m for m in list_methods()})
    if name in {"COT", "SC", "MAV", "DU", "RING"}:
        from debategraph.methods import basic

        return getattr(basic, name)
    if name in {"FREEMAD_N", "FREEMAD_C"}:
        from debategraph.methods import freemad

        return getattr(freemad, name)
    if name in {"RECONCILE", "plan_reconcile"}:
        from debategraph.methods import reconcile

        return getattr(reconcile, name)
    return _forward(name)
