"""Decision rules by name: registering, looking up, and applying them.

This is the one place rule names are resolved (the pure rules and :func:`apply_rule`'s
option handling live in :mod:`debategraph.policies.decisions`, which knows no names).
"""

from __future__ import annotations

from typing import Any

from debategraph.methods.plugins import (
    RULE_GROUP,
    Plugin,
    PluginError,
    Registry,
    caller,
    load_object,
)
from debategraph.policies import decisions
from debategraph.policies.decisions import RuleFn
from debategraph.policies.types import Decision, Trajectory


def _check_rule(value: object, where: str) -> RuleFn:
    if not callable(value):
        raise PluginError(
            f"{where} is {type(value).__name__}, not a decision rule "
            "(a function rule(trajectory, **options) -> Decision)"
        )
    return value


_RULES: Registry[RuleFn] = Registry("decision rule", RULE_GROUP, _check_rule)


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
    return _RULES.register(name, rule, f"register_rule() in {caller()}", replace=replace)


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


def rule_options(rule: str | RuleFn) -> frozenset[str]:
    """Names of the keyword options that a rule takes (a function, a name or ``module:ATTR``).

    Raises:
        PluginError: ``rule`` is not registered.
    """
    return decisions.rule_options(get_rule(rule))


def apply_rule(rule: str | RuleFn, trajectory: Trajectory, **options: Any) -> Decision:
    """:func:`debategraph.policies.decisions.apply_rule` with the rule given by name or function.

    Args:
        rule: A rule function, a registered rule name (``majority``, ``freemad``,
            ``reconcile``, ``credibility``, the protocols, or a plugin's) or a
            ``module:ATTR`` string.
        trajectory: Every agent's answer (and confidence) in every round.
        **options: The rule's options, checked as the pure ``apply_rule`` checks them.

    Returns:
        The rule's decision.

    Raises:
        PluginError: An unknown rule (the message lists the valid names).
        ValueError: An option the rule does not take, or an invalid option value.
    """
    name = rule if isinstance(rule, str) else None
    return decisions.apply_rule(get_rule(rule), trajectory, rule_name=name, **options)
