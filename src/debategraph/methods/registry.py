"""One registry of debate methods and decision rules: the built-ins and every plugin's.

A method or rule becomes usable by name (in ``run``, ``build_debate_graph``, ``evaluate``,
``debategraph run/eval``, sweep files, Studio and ``report --decision``) in one of three ways,
all of which end in the same registration:

* an **entry point** in the ``debategraph.methods`` (a ``Method``) or ``debategraph.rules``
  (a rule function) group of an installed package. debategraph's own methods and rules are
  declared exactly so, in its ``pyproject.toml``::

      [project.entry-points."debategraph.methods"]
      my-method = "my_package.methods:MY_METHOD"

* :func:`register_method` / :func:`register_rule`, called by your code at run time;
* a ``"package.module:ATTR"`` string wherever a name is taken: the object is imported and
  registered under its name (a method's ``name``; a rule's string itself).

Entry points are read once, and an entry point's module is imported only when its name is
asked for (or every method is listed). Two different objects under one name are refused
with both sources named; a plugin that fails to import is reported with its error.
"""

from __future__ import annotations

import importlib
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Generic, TypeVar

from debategraph.methods.contract import Method
from debategraph.policies.decisions import RuleFn
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


class _Registry(Generic[T]):
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
        with self.lock:
            self.entries.pop(name, None)
            self.loaded.discard(name)  # a declared one loads again on the next lookup
            self.broken.pop(name, None)
            if name not in (self.declared or {}) and name in self.order:
                self.order.remove(name)

    def get(self, name: str) -> T:
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


def _check_method(value: object, where: str) -> Method[Any]:
    if not isinstance(value, Method):
        raise PluginError(
            f"{where} is {type(value).__name__}, not a debategraph Method "
            "(build one with debategraph.methods.Method(...))"
        )
    return value


def _check_rule(value: object, where: str) -> RuleFn:
    if not callable(value):
        raise PluginError(
            f"{where} is {type(value).__name__}, not a decision rule "
            "(a function rule(trajectory, **options) -> Decision)"
        )
    return value


_METHODS: _Registry[Method[Any]] = _Registry("method", METHOD_GROUP, _check_method)
_RULES: _Registry[RuleFn] = _Registry("decision rule", RULE_GROUP, _check_rule)


def _caller() -> str:
    frame = sys._getframe(2)
    return str(frame.f_globals.get("__name__", "?"))


def register_method(method: Method[Any], *, replace: bool = False) -> Method[Any]:
    """Register a method under its name, for every place that takes a method name.

    Args:
        method: The method.
        replace: Replace a different method already registered under the name.

    Returns:
        The method (so a module may write ``MINE = register_method(Method(...))``).

    Raises:
        PluginError: Another method has the name (built-in or plugin) and ``replace`` is off.
    """
    _check_method(method, "register_method's argument")
    return _METHODS.register(
        method.name, method, f"register_method() in {_caller()}", replace=replace
    )


GATE_MARK = "+gate-"
"""What names a gated method: ``<method>+gate-<rule slug>`` (``du+gate-entropy-0.5``)."""


def get_method(spec: str | Method[Any]) -> Method[Any]:
    """A method by registered name or ``"package.module:ATTR"``; a ``Method`` as it is.

    A name ``<method>+gate-<rule>`` (``du+gate-unanimous``, ``du+gate-entropy-0.5``,
    ``du+gate-confidence-0.8``) is the method behind that gate
    (:func:`debategraph.methods.gate.gated`).

    Raises:
        PluginError: An unknown name (the message lists the valid ones), a broken plugin, or
            two different methods under one name.
    """
    if isinstance(spec, Method):
        return spec
    if not isinstance(spec, str):
        raise PluginError(f"a method is a name or a Method, got {spec!r}")
    if ":" not in spec:
        name = spec.strip()
        inner, gate, rule = name.partition(GATE_MARK)
        if gate and name not in _METHODS.names():
            from debategraph.methods.gate import gated, rule_from_slug

            try:  # "du+gate-entropy-0.5": du behind that gate, made on demand
                return gated(get_method(inner), rule_from_slug(rule))
            except ValueError as exc:
                raise PluginError(f"method {name!r}: {exc}") from None
        return _METHODS.get(name)
    method = _check_method(load_object(spec), spec)
    return _METHODS.register(method.name, method, spec)


def list_methods() -> list[Method[Any]]:
    """Every registered method: the built-ins in their order, then plugins by name.

    A plugin that fails to load is left out (``method_plugins`` reports it).
    """
    return [p.value for p in _METHODS.all(errors=[])]


def method_names() -> list[str]:
    """The names of every known method, without importing any plugin."""
    return _METHODS.names()


def method_plugins() -> tuple[list[Plugin[Method[Any]]], list[str]]:
    """Every method with where it comes from, and a line per plugin that failed to load."""
    errors: list[str] = []
    return _METHODS.all(errors=errors), errors


def unregister_method(name: str) -> None:
    """Forget a method registered at run time (tests; a built-in comes back on next lookup)."""
    _METHODS.unregister(name)


def register_rule(name: str, rule: RuleFn, *, replace: bool = False) -> RuleFn:
    """Register a decision rule ``rule(trajectory, **options) -> Decision`` under ``name``.

    Args:
        name: The rule's name (``--decision NAME``, ``decision="NAME"``).
        rule: The rule; its keyword parameters are its options.
        replace: Replace a different rule already registered under the name.

    Returns:
        The rule.

    Raises:
        PluginError: A bad name, or another rule has the name and ``replace`` is off.
    """
    if not isinstance(name, str) or not name.strip() or ":" in name:
        raise PluginError(f"a rule name is a non-empty string without ':', got {name!r}")
    _check_rule(rule, f"rule {name!r}")
    return _RULES.register(name, rule, f"register_rule() in {_caller()}", replace=replace)


def get_rule(spec: str | RuleFn) -> RuleFn:
    """A decision rule by registered name or ``"package.module:ATTR"``; a function as it is.

    Raises:
        PluginError: An unknown name (the message lists the valid ones) or a broken plugin.
    """
    if callable(spec):
        return spec
    if not isinstance(spec, str):
        raise PluginError(f"a decision rule is a name or a function, got {spec!r}")
    if ":" not in spec:
        return _RULES.get(spec.strip())
    return _RULES.register(spec, _check_rule(load_object(spec), spec), spec)


def list_rules() -> list[str]:
    """The names of every registered decision rule."""
    return _RULES.names()


def rule_plugins() -> tuple[list[Plugin[RuleFn]], list[str]]:
    """Every decision rule with where it comes from, and a line per broken plugin."""
    errors: list[str] = []
    return _RULES.all(errors=errors), errors


def unregister_rule(name: str) -> None:
    """Forget a rule registered at run time."""
    _RULES.unregister(name)
