"""Re-deciding stored debates with another decision rule, without a model call.

Every result row keeps its debate's trajectory: each agent's answer (``round_answers``) and
confidence (``round_confidences``) in every round, and each agent's model (``agent_models``).
:func:`rescore` applies any decision rule to those trajectories and grades the new answers,
so one set of debates compares majority vote, Free-MAD's score and RECONCILE's weighted vote
(the Free-MAD paper's ablation) at the cost of one. The rows keep their token counts: the
debate is the same, only the decision differs.

Rows of methods whose stances are not answer turns (SVR-MAD's pairwise debates) hold only
their initial answers in ``round_answers``; re-deciding them votes over those.

Also here, from :mod:`debategraph.eval.dynamics`: :func:`vote_at_round` (each debate as if it
had stopped after round ``k`` and voted, e.g. the vote at round 0 that every debate paid for)
and :func:`round_dynamics` (per round: the majority's accuracy, the share of agents right and
the flips since the previous round).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from debategraph.eval.dynamics import round_dynamics, vote_at_round
from debategraph.methods.registry import get_rule
from debategraph.policies.answers import answers_match
from debategraph.policies.decisions import apply_rule, rule_options
from debategraph.policies.types import TaskKind, Trajectory
from debategraph.policies.voting import derive_seed

Row = Mapping[str, Any]

__all__ = ["rescore", "rescore_all", "round_dynamics", "trajectory_of", "vote_at_round"]


def trajectory_of(row: Row) -> Trajectory:
    """The trajectory a result row stores (``round_answers`` is per round, per agent).

    Raises:
        ValueError: The row holds no trajectory (a failed row, or one written before
            trajectories were stored).
    """
    rounds = row.get("round_answers")
    if not isinstance(rounds, list) or not rounds:
        raise ValueError(f"row {row.get('method')}/{row.get('id')} stores no round_answers")
    agents = [f"a{i}" for i in range(1, len(rounds[0]) + 1)]
    answers = [list(col) for col in zip(*rounds, strict=True)]
    stored = row.get("round_confidences")
    confidences: list[list[float | None]] = (
        [list(col) for col in zip(*stored, strict=True)]
        if isinstance(stored, list) and stored
        else [[None] * len(rounds) for _ in agents]
    )
    return Trajectory(agents, answers, confidences)


def rescore(
    rows: Iterable[Row],
    rule: str,
    *,
    tie_policy: str = "first",
    seed: int = 0,
    label: str | None = None,
    **options: Any,
) -> list[dict[str, Any]]:
    """Re-decide every finished row with ``rule`` and grade the new answers.

    Args:
        rows: Result rows; failed rows are passed through unchanged.
        rule: A registered decision rule (``majority``, ``freemad``, ``reconcile``,
            ``credibility``, or a plugin's) or a ``"package.module:ATTR"`` string.
        tie_policy: The majority rule's tie policy.
        seed: The run's seed; random tie-breaks use ``derive_seed(seed, row id)``.
        label: The new rows' ``method``: ``"{label}"`` formatted with ``method`` and ``rule``
            (default ``"{method} [{rule}]"``).
        **options: The rule's options (e.g. Free-MAD's ``weights``). ``credibility`` takes
            each agent's weight from the row's ``agent_models`` unless ``weights`` is given.

    Returns:
        New rows: ``method``, ``answer``, ``correct``, ``abstained`` and ``decision`` updated;
        the rest (tokens, calls, trajectory) as stored.

    Raises:
        ValueError: An unknown rule, a bad option, or a row without a stored trajectory.
    """
    fn = get_rule(rule)
    takes = rule_options(fn)
    pattern = label or "{method} [{rule}]"
    out: list[dict[str, Any]] = []
    for row in rows:
        new = dict(row)
        new["method"] = pattern.format(method=row.get("method"), rule=rule)
        if "error" not in row:
            path = trajectory_of(row)
            kwargs = dict(options)
            if "tie_policy" in takes:
                kwargs.setdefault("tie_policy", tie_policy)
            if rule == "credibility" and "weights" not in kwargs:
                kwargs["weights"] = _credibilities(row, len(path.agents))
            decision = apply_rule(rule, path, seed=derive_seed(seed, str(row["id"])), **kwargs)
            task: TaskKind = row.get("task") or "number"
            new.update(
                answer=decision.answer,
                correct=answers_match(decision.answer, row.get("reference"), task),
                abstained=decision.answer is None,
                decision={"rule": decision.rule, "evidence": decision.evidence},
            )
        out.append(new)
    return out


def rescore_all(rows: Sequence[Row], rules: Sequence[str], **options: Any) -> list[dict[str, Any]]:
    """``rescore`` with every rule in turn, rows of all rules together (rule order)."""
    return [r for rule in rules for r in rescore(rows, rule, **options)]


def _credibilities(row: Row, n: int) -> list[float]:
    from debategraph.policies.mdm import label_credibility

    models = row.get("agent_models")
    if not isinstance(models, list) or len(models) != n:
        raise ValueError(
            f"row {row.get('method')}/{row.get('id')} stores no agent_models: the "
            "credibility rule needs each agent's model (pass weights=...)"
        )
    return [label_credibility(str(m)) for m in models]
