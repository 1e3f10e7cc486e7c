"""The plugin machinery behind the registry: entry points, loading, and where each came from.

Methods and decision rules are kept by the same machinery (:class:`Registry`): names
registered at run time, and the entry points in the ``debategraph.methods`` and
``debategraph.rules`` groups of installed packages, each loaded when its name is first asked
for. Method authors need none of this: :func:`~debategraph.methods.register_method` and an
entry point are enough (``docs/writing-a-method.md``). The listings (``method_plugins``,
``rule_plugins``) and ``unregister_*`` live in :mod:`debategraph.methods.registry` and
:mod:`debategraph.methods.rules`.
"""

from __future__ import annotations

import importlib
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Generic, TypeVar

from debategraph.state.context import DebateConfigError

METHOD_GROUP = "debategraph.methods"
"""Entry-point group of methods: each entry point names a ``Method``."""

RULE_GROUP = "debategraph.rules"
"""Entry-point group of decision rules: each entry point names a rule function."""

BUILTIN_DIST = "debategraph"

T = TypeVar("T")


class PluginError(DebateConfigError):
    """An unknown, conflicting or broken method or rule; the message says which and why."""


@dataclass(frozen=True)
class Plugin(Generic[T]):
    """A registered method or rule and where it came from.

    Attributes:
        name: The name it is registered under.
        value: The ``Method``, or the rule function.
        source: Where it came from: ``entry point my-method = pkg.mod:ATTR (dist 1.0)``,
            ``register_method() in pkg.mod`` or ``pkg.mod:ATTR``.
        builtin: It ships with debategraph.
    """

    name: str
    value: T
    source: str
    builtin: bool = False


def _dist_of(ep: EntryPoint) -> tuple[str, str]:
    dist = getattr(ep, "dist", None)
    if dist is None:
        return "?", "?"
    return dist.metadata["Name"] or "?", dist.version or "?"


class Registry(Generic[T]):
    """Named objects of one kind: registered ones, and the entry points that declare more."""

    def __init__(self, kind: str, group: str, check: Callable[[object, str], T]) -> None:
        self.kind = kind
        self.group = group
        self.check = check
        self.entries: dict[str, Plugin[T]] = {}
        self.declared: dict[str, list[EntryPoint]] | None = None
        self.loaded: set[str] = set()
        self.order: list[str] = []
        self.broken: dict[str, str] = {}
        self.lock = threading.RLock()

    def _scan(self) -> dict[str, list[EntryPoint]]:
        if self.declared is not None:
            return self.declared
        found = list(entry_points(group=self.group))
        if not any(_dist_of(ep)[0] == BUILTIN_DIST for ep in found):
            raise PluginError(
                f"debategraph's built-in {self.kind}s are declared as entry points, and none "
                "were found: install the package (pip install -e . in a checkout) rather than "
                "importing it from a source tree"
            )
        found.sort(key=lambda ep: _dist_of(ep)[0] != BUILTIN_DIST)  # stable: built-ins first
        declared: dict[str, list[EntryPoint]] = {}
        for ep in found:
            declared.setdefault(ep.name, []).append(ep)
        builtin = [n for n, eps in declared.items() if _dist_of(eps[0])[0] == BUILTIN_DIST]
        runtime = [n for n in self.order if n not in declared]
        self.order = builtin + sorted(n for n in declared if n not in builtin) + runtime
        self.declared = declared
        return declared

    def _load(self, name: str) -> None:
        """Load the entry points that declare ``name``, once."""
        eps = self._scan().get(name)
        if not eps or name in self.loaded:
            return
        self.loaded.add(name)
        if len({ep.value for ep in eps}) > 1:
            listed = "; ".join(f"{ep.value} ({_dist_of(ep)[0]})" for ep in eps)
            self.broken[name] = f"two packages declare {self.kind} {name!r}: {listed}"
            raise PluginError(self.broken[name] + "; uninstall one of them")
        ep = eps[0]
        dist, version = _dist_of(ep)
        source = f"entry point {ep.name} = {ep.value} ({dist} {version})"
        try:
            value = self.check(ep.load(), ep.value)
        except PluginError as exc:
            self.broken[name] = str(exc)
            raise
        except Exception as exc:
            self.broken[name] = f"{self.kind} {name!r} from {dist} failed to load: {exc!r}"
            raise PluginError(self.broken[name]) from exc
        self.register(name, value, source, builtin=dist == BUILTIN_DIST)

    def register(
        self, name: str, value: T, source: str, *, replace: bool = False, builtin: bool = False
    ) -> T:
        """Register ``value`` under ``name``; a different object under the name is refused."""
        with self.lock:
            if not replace:
                self._load(name)  # a declared plugin of the same name must not be shadowed
            known = self.entries.get(name)
            if known is not None and known.value is not value and not replace:
                raise PluginError(
                    f"{self.kind} {name!r} is already registered (from {known.source}); "
                    f"{source} registers another. Rename one, or pass replace=True"
                )
            if known is None or known.value is not value:
                self.entries[name] = Plugin(name, value, source, builtin)
            if name not in self.order:
                self.order.append(name)
            return value

    def unregister(self, name: str) -> None:
        """Forget ``name`` (a declared plugin loads again on its next lookup)."""
        with self.lock:
            self.entries.pop(name, None)
            self.loaded.discard(name)  # a declared one loads again on the next lookup
            self.broken.pop(name, None)
            if name not in (self.declared or {}) and name in self.order:
                self.order.remove(name)

    def get(self, name: str) -> T:
        """The object registered or declared under ``name``."""
        with self.lock:
            if name not in self.entries:
                if name in self.broken:
                    raise PluginError(self.broken[name])
                self._load(name)
            plugin = self.entries.get(name)
            if plugin is None:
                raise PluginError(
                    f"unknown {self.kind} {name!r}; choose one of: {', '.join(self.names())} "
                    "(or give a 'package.module:ATTR' string)"
                )
            return plugin.value

    def names(self) -> list[str]:
        """Every known name, without importing any plugin."""
        with self.lock:
            declared = self._scan()
            return [n for n in self.order if n in self.entries or n in declared]

    def all(self, *, errors: list[str] | None = None) -> list[Plugin[T]]:
        """Every plugin, loading those not yet loaded; broken ones go to ``errors``."""
        with self.lock:
            for name in list(self._scan()):
                try:
                    self._load(name)
                except PluginError:
                    if errors is None:
                        raise
            if errors is not None:
                errors.extend(self.broken.values())
            return [self.entries[n] for n in self.order if n in self.entries]


def load_object(spec: str) -> Any:
    """The object a ``"package.module:ATTR"`` string names (``ATTR`` may be dotted).

    Raises:
        PluginError: A malformed string, a module that cannot be imported or a missing name.
    """
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name.strip() or not attr.strip():
        raise PluginError(f"expected 'package.module:ATTR', got {spec!r}")
    try:
        value: Any = importlib.import_module(module_name.strip())
    except Exception as exc:
        raise PluginError(f"cannot import {module_name!r} for {spec!r}: {exc!r}") from exc
    for part in attr.strip().split("."):
        try:
            value = getattr(value, part)
        except AttributeError:
            raise PluginError(f"{module_name!r} has no attribute {attr!r} ({spec!r})") from None
    return value


def caller() -> str:
    """The module that called the registering function (for a plugin's source)."""
    frame = sys._getframe(2)
    return str(frame.f_globals.get("__name__", "?"))
