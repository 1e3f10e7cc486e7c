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

from typing import Any

from debategraph.methods.contract import Method
from debategraph.methods.gate import GateRule, gate_method, rule_from_slug
from debategraph.methods.plugins import (
    METHOD_GROUP,
    RULE_GROUP,
    Plugin,
    PluginError,
    Registry,
    caller,
    load_object,
)
from debategraph.methods.rules import (
    get_rule,
    list_rules,
    register_rule,
    rule_plugins,
    unregister_rule,
)

__all__ = [
    "GATE_MARK",
    "METHOD_GROUP",
    "RULE_GROUP",
    "Plugin",
    "PluginError",
    "gated",
    "get_method",
    "get_rule",
    "list_methods",
    "list_rules",
    "load_object",
    "method_names",
    "method_plugins",
    "register_method",
    "register_rule",
    "rule_plugins",
    "unregister_method",
    "unregister_rule",
]


def _check_method(value: object, where: str) -> Method[Any]:
    if not isinstance(value, Method):
        raise PluginError(
            f"{where} is {type(value).__name__}, not a debategraph Method "
            "(build one with debategraph.methods.Method(...))"
        )
    return value


_METHODS: Registry[Method[Any]] = Registry("method", METHOD_GROUP, _check_method)


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
        method.name, method, f"register_method() in {caller()}", replace=replace
    )


GATE_MARK = "+gate-"
"""What names a gated method: ``<method>+gate-<rule slug>`` (``du+gate-entropy-0.5``)."""


def get_method(spec: str | Method[Any]) -> Method[Any]:
    """A method by registered name or ``"package.module:ATTR"``; a ``Method`` as it is.

    A name ``<method>+gate-<rule>`` (``du+gate-unanimous``, ``du+gate-entropy-0.5``,
    ``du+gate-confidence-0.8``) is the method behind that gate
    (:func:`gated`).

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
            try:  # "du+gate-entropy-0.5": du behind that gate, made on demand
                return gate_method(get_method(inner), rule_from_slug(rule))
            except ValueError as exc:
                raise PluginError(f"method {name!r}: {exc}") from None
        return _METHODS.get(name)
    method = _check_method(load_object(spec), spec)
    return _METHODS.register(method.name, method, spec)


def gated(
    method: str | Method[Any], rule: str | GateRule = "unanimous", *, name: str | None = None
) -> Method[Any]:
    """``method`` behind a gate: debate only when round 0's vote is not settled.

    Args:
        method: A method or its registered name (or ``"package.module:ATTR"``).
        rule: A :class:`~debategraph.methods.gate.GateRule` or its text: ``unanimous``,
            ``entropy<H``, ``confidence>C``.
        name: The gated method's name (default ``"<method>+gate-<rule>"``, e.g.
            ``du+gate-entropy-0.5``); register it to use it by name.

    Returns:
        A new method; the wrapped one is unchanged
        (:func:`~debategraph.methods.gate.gate_method`).

    Raises:
        PluginError: An unknown method name.
        ValueError: Bad rule text.
        DebateConfigError: A method that does not debate, or one that is gated already.
    """
    return gate_method(get_method(method), rule, name=name)


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
