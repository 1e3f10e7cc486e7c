"""The built-in decision rules, and how any rule is applied with its options.

A decision rule is a function ``rule(trajectory, **options) -> Decision``. The built-ins are
registered by name in the ``debategraph.rules`` entry-point group, as any plugin's rules are;
names are resolved above this floor (:mod:`debategraph.methods.rules`), so everything here
takes the rule function itself:

* ``majority`` (:func:`majority_rule`, ``Decision.rule`` ``"majority"``): ``tie_policy``,
  ``seed``, ``no_answer_if_all_differ``;
* ``freemad`` (:func:`freemad_rule`, ``"freemad_score"``): ``weights`` (W), ``decay``,
  ``seed``;
* ``reconcile`` (:func:`reconcile_rule`, ``"reconcile_weighted"``): ``recalibrate``;
* ``credibility`` (:func:`credibility_rule`, ``"weighted_vote"``): ``weights`` (one per agent)
  or ``models`` (each agent's model label, which the engine supplies to any rule that takes
  it), ``no_answer_if_all_differ``.

The decision protocols (``supermajority``, ``unanimity``, the ballot rules ``approval``,
``cumulative``, ``ranked``, and ``judge``) are in :mod:`debategraph.policies.protocols`.

:func:`apply_rule` passes a rule the options it takes: an option that the rule does not take
is an error, never silently dropped. The one exception is ``seed``: every run has one, so
deterministic rules accept it and do not use it.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Sequence
from numbers import Real
from typing import Any, get_args

from debategraph.policies.freemad import DEFAULT_WEIGHTS, freemad_decision, inverse_round
from debategraph.policies.mdm_scalar import label_credibility
from debategraph.policies.reconcile import reconcile_decision
from debategraph.policies.ties import best_scored
from debategraph.policies.types import Answer, Decision, Trajectory
from debategraph.policies.voting import TiePolicy, majority_vote


def credibility_vote(
    answers: Sequence[Answer],
    weights: Sequence[float],
    *,
    no_answer_if_all_differ: bool = False,
) -> Decision:
    """Vote weighted by a fixed per-agent weight (e.g. CortexDebate's credibility ``1/L(N, M)``).

    ``score(a)`` is the sum of the weights of the agents holding ``a``. Abstentions are
    excluded and counted. Ties (up to floating-point rounding) go to the answer seen first in
    agent order.

    Args:
        answers: One canonical answer (or ``None``) per agent, in agent order.
        weights: One finite, non-negative weight per agent.
        no_answer_if_all_differ: CortexDebate's rule: with two or more answers that all
            differ, return "no answer" whatever the weights.

    Returns:
        The decision (rule ``"weighted_vote"``) with evidence ``scores``, ``weights``,
        ``abstentions``, ``tie`` and ``tied``.

    Raises:
        ValueError: ``weights`` is not one finite, non-negative number per agent.
    """
    values = list(weights)
    if len(values) != len(answers):
        raise ValueError(
            f"one weight per agent is needed: {len(answers)} agents, {len(values)} weights"
        )
    for w in values:
        if not isinstance(w, Real) or isinstance(w, bool) or not math.isfinite(w) or w < 0:
            raise ValueError(f"weights must be finite numbers >= 0, got {weights!r}")
    scores: dict[str, float] = {}
    holders: dict[str, int] = {}
    for answer, w in zip(answers, values, strict=True):
        if answer is not None:
            scores[answer] = scores.get(answer, 0.0) + float(w)
            holders[answer] = holders.get(answer, 0) + 1
    evidence: dict[str, object] = {
        "scores": dict(scores),
        "weights": [float(w) for w in values],
        "abstentions": sum(a is None for a in answers),
        "tie": False,
        "tied": [],
    }
    if not scores:
        return Decision(None, "weighted_vote", {**evidence, "reason": "every agent abstained"})
    if no_answer_if_all_differ and len(holders) >= 2 and max(holders.values()) == 1:
        return Decision(None, "weighted_vote", {**evidence, "reason": "all answers differ"})
    tied = best_scored(scores)
    return Decision(tied[0], "weighted_vote", {**evidence, "tie": len(tied) > 1, "tied": tied})


RuleFn = Callable[..., Decision]
"""A decision rule: ``rule(trajectory, **options) -> Decision``."""


def majority_rule(
    trajectory: Trajectory,
    *,
    tie_policy: TiePolicy = "first",
    seed: int = 0,
    no_answer_if_all_differ: bool = False,
) -> Decision:
    """Plurality vote over the final answers, final confidences for the confidence policy."""
    if tie_policy not in get_args(TiePolicy):
        raise ValueError(
            f"unknown tie_policy {tie_policy!r}; valid: {', '.join(get_args(TiePolicy))}"
        )
    return majority_vote(
        trajectory.final_answers(),
        tie_policy=tie_policy,
        confidences=trajectory.final_confidences(),
        seed=seed,
        no_answer_if_all_differ=no_answer_if_all_differ,
    )


def freemad_rule(
    trajectory: Trajectory,
    *,
    weights: Sequence[float] | None = None,
    decay: Callable[[int], float] = inverse_round,
    seed: int = 0,
) -> Decision:
    """Free-MAD's trajectory score; ``weights`` is ``W = (w1, w2, w3, w4)``."""
    return freemad_decision(
        trajectory,
        weights=DEFAULT_WEIGHTS if weights is None else weights,
        decay=decay,
        seed=seed,
    )


def reconcile_rule(trajectory: Trajectory, *, recalibrate: bool = True) -> Decision:
    """RECONCILE's recalibrated-confidence vote over the final round."""
    return reconcile_decision(trajectory, recalibrate=recalibrate)


def credibility_rule(
    trajectory: Trajectory,
    *,
    weights: Sequence[float] | None = None,
    models: Sequence[str] | None = None,
    no_answer_if_all_differ: bool = False,
) -> Decision:
    """Per-agent weighted vote over the final answers.

    The weights are ``weights`` when given, else each agent's credibility ``1/L(N, M)`` from
    the label of its model (``models``, one per agent), as CortexDebate weighs its agents.
    """
    if weights is None:
        if models is None:
            raise ValueError(
                "the 'credibility' rule needs weights (one float per agent) or each agent's model"
            )
        weights = [label_credibility(str(m)) for m in models]
    return credibility_vote(
        trajectory.final_answers(), weights, no_answer_if_all_differ=no_answer_if_all_differ
    )


def rule_options(rule: RuleFn) -> frozenset[str]:
    """Names of the keyword options that a rule function takes.

    Args:
        rule: The rule function.

    Returns:
        The option names (``seed`` included only where the rule uses it).
    """
    return frozenset(_accepted(rule))


def _accepted(fn: RuleFn) -> set[str]:
    """Keyword options of ``fn`` (everything after the trajectory)."""
    params = list(inspect.signature(fn).parameters.values())[1:]
    return {
        p.name
        for p in params
        if p.kind in (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    }


def apply_rule(
    rule: RuleFn,
    trajectory: Trajectory,
    *,
    rule_name: str | None = None,
    tie_policy: TiePolicy = "first",
    seed: int = 0,
    no_answer_if_all_differ: bool = False,
    weights: Sequence[float] | None = None,
    **options: Any,
) -> Decision:
    """Decide a debate's answer with a rule, passing it the options it takes.

    The common options are passed to the rules that take them. Giving a rule a common
    option it does not take, with a value other than the default, is an error; so is any
    extra option it does not take. ``seed`` is passed only to rules that use it and is
    otherwise accepted without effect.

    Args:
        rule: The rule function (a name is looked up by
            :func:`debategraph.methods.rules.apply_rule`).
        trajectory: Every agent's answer (and confidence) in every round.
        rule_name: The rule's name in error messages (default: the function's name).
        tie_policy: ``majority``: ``first``, ``random`` or ``confidence``.
        seed: Seed of randomised tie-breaks (``majority`` with ``random``, ``freemad``).
        no_answer_if_all_differ: ``majority`` and ``credibility``: "no answer" when two or
            more final answers all differ.
        weights: ``freemad``: ``W = (w1, w2, w3, w4)`` (default ``(20, 25, 30, 20)``);
            ``credibility``: one weight per agent (required).
        **options: Rule-specific options: ``decay`` (``freemad``), ``recalibrate``
            (``reconcile``), or a plugin rule's own.

    Returns:
        The rule's decision.

    Raises:
        ValueError: An option the rule does not take, or an invalid option value.
    """
    fn = rule
    accepted = _accepted(fn)
    name = rule_name or getattr(fn, "__name__", "this rule")
    common: dict[str, tuple[object, object]] = {
        "tie_policy": (tie_policy, "first"),
        "no_answer_if_all_differ": (no_answer_if_all_differ, False),
        "weights": (weights, None),
    }
    kwargs: dict[str, Any] = {}
    for key, (value, default) in common.items():
        if key in accepted:
            kwargs[key] = value
        elif (value is not None) if default is None else (value != default):
            raise ValueError(
                f"decision rule {name!r} does not take {key!r}; it takes: "
                f"{', '.join(sorted(accepted)) or 'no options'}"
            )
    if "seed" in accepted:
        kwargs["seed"] = seed
    unknown = sorted(set(options) - accepted)
    if unknown:
        raise ValueError(
            f"decision rule {name!r} does not take {', '.join(map(repr, unknown))}; it takes: "
            f"{', '.join(sorted(accepted)) or 'no options'}"
        )
    kwargs.update(options)
    decision = fn(trajectory, **kwargs)
    if not isinstance(decision, Decision):
        raise TypeError(f"decision rule {name!r} returned {decision!r}, not a Decision")
    return decision
