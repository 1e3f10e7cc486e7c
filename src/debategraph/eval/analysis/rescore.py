"""Re-deciding stored debates with another decision rule, without a model call.

Every result row keeps its debate's trajectory: each agent's answer (``round_answers``) and
confidence (``round_confidences``) in every round, and each agent's model (``agent_models``).
:func:`rescore` applies any decision rule to those trajectories and grades the new answers,
so one set of debates compares majority vote, Free-MAD's score and RECONCILE's weighted vote
(the Free-MAD paper's ablation) at the cost of one. The rows keep their token counts: the
debate is the same, only the decision differs.

Rows of SVR-MAD, whose agents take their stances in pairwise debates rather than answer
turns, hold the initial answers and then each agent's vote after the debates (what a named
rule reads when the debate runs); rows of older versions hold only the initial answers.

Rules that read more than the answers re-decide only rows that hold what they read: a ballot
rule (``approval``, ``cumulative``, ``ranked``) rows whose agents gave that kind of ballot,
the ``judge`` rows with a judge's call. Other rows are refused with the reason, since
re-deciding them would need model calls.

Also here, from :mod:`debategraph.eval.analysis.dynamics`: :func:`vote_at_round` (each debate as
if it had stopped after round ``k`` and voted, e.g. the vote at round 0 that every debate paid for)
and :func:`round_dynamics` (per round: the majority's accuracy, the share of agents right and
the flips since the previous round).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from debategraph.eval.analysis.dynamics import round_dynamics, vote_at_round
from debategraph.eval.log.row import ANSWER_SOURCES
from debategraph.methods.registry import get_rule
from debategraph.policies.accounting import DETAIL_FIELDS, usage_by_source, usage_totals
from debategraph.policies.answers import answers_match
from debategraph.policies.ballots import DEFAULT_POINTS, BallotKind
from debategraph.policies.decisions import apply_rule, rule_options
from debategraph.policies.rule_needs import rule_needs
from debategraph.policies.sid_et import sid_et_at, sid_et_items, sid_et_record, tune_skip_rate
from debategraph.policies.types import TaskKind, Trajectory
from debategraph.policies.voting import derive_seed
from debategraph.state.decision_inputs import ballots_of, judged_of

Row = Mapping[str, Any]

__all__ = [
    "rescore",
    "rescore_all",
    "round_dynamics",
    "sid_et_arm",
    "trajectory_of",
    "vote_at_round",
]


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
            ``credibility``, or a plugin's) or a ``"package.module:ATTR"`` string. A rule
            that takes ``rankings`` (``council-rank``) gets the row's recorded rankings.
        tie_policy: The majority rule's tie policy.
        seed: The run's seed; random tie-breaks use ``derive_seed(seed, row id)``.
        label: The new rows' ``method``: ``"{label}"`` formatted with ``method`` and ``rule``
            (default ``"{method} [{rule}]"``).
        **options: The rule's options (e.g. Free-MAD's ``weights``). A rule that takes
            ``models`` (``credibility``) gets the row's ``agent_models`` unless given.

    Returns:
        New rows: ``method``, ``answer``, ``correct``, ``abstained`` and ``decision`` updated;
        the rest (tokens, calls, trajectory) as stored.

    Raises:
        ValueError: An unknown rule, a bad option, or a row without a stored trajectory.
    """
    fn = get_rule(rule)
    takes = rule_options(fn)
    needs = rule_needs(fn)
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
            if "models" in takes and "models" not in kwargs and "weights" not in kwargs:
                kwargs["models"] = _agent_models(row, rule, len(path.agents))
            inputs: dict[str, int] = {}
            if needs.ballot is not None:
                points = kwargs.get("points", DEFAULT_POINTS)
                kwargs["ballots"], inputs = _row_ballots(row, rule, needs.ballot, points)
            if needs.judge:
                kwargs["judged"] = _row_judged(row, rule)
            if "rankings" in takes and "rankings" not in kwargs:  # council-rank: the row's
                kwargs["rankings"] = (row.get("method_state") or {}).get("rankings")
            decision = apply_rule(
                fn, path, rule_name=rule, seed=derive_seed(seed, str(row["id"])), **kwargs
            )
            task: TaskKind = row.get("task") or "number"
            new.update(
                answer=decision.answer,
                correct=answers_match(decision.answer, row.get("reference"), task),
                abstained=decision.answer is None,
                decision={"rule": decision.rule, "evidence": {**decision.evidence, **inputs}},
            )
            if row.get("accepted"):  # a span answer: graded as its benchmark grades it
                from debategraph.policies.spans import span_grade

                scores = span_grade(decision.answer, row["accepted"])
                new.update(correct=scores["exact_match"] == 1.0, span_scores=scores)
        out.append(new)
    return out


def rescore_all(rows: Sequence[Row], rules: Sequence[str], **options: Any) -> list[dict[str, Any]]:
    """``rescore`` with every rule in turn, rows of all rules together (rule order)."""
    return [r for rule in rules for r in rescore(rows, rule, **options)]


def _row_ballots(
    row: Row, rule: str, kind: BallotKind, points: int
) -> tuple[list[Any], dict[str, int]]:
    """The agents' ballots a row keeps (its turns'), as the debate's decision read them.

    Raises:
        ValueError: The row's debate was not asked for ballots of this kind.
    """
    turns = [t for t in row.get("turns") or () if t.get("kind") == "answer"]
    asked = any((t.get("ballot") or {}).get("kind") == kind for t in turns)
    if not asked and (row.get("decision") or {}).get("rule") != kind:
        raise ValueError(
            f"decision rule {rule!r} reads the agents' {kind} ballots, and the rows of "
            f"{row.get('method')} hold none (agents give ballots only when the debate runs "
            f"with such a rule): run debategraph eval --decision {rule} instead"
        )
    latest = {t["agent"]: t for t in turns}
    agents = row.get("agent_names") or sorted(latest)
    return ballots_of(latest, agents, kind, points)


def _row_judged(row: Row, rule: str) -> dict[str, Any]:
    """The judge's turn a row keeps.

    Raises:
        ValueError: The row's debate made no judge's call.
    """
    judged = judged_of(row.get("turns") or ())
    if judged is None:
        raise ValueError(
            f"decision rule {rule!r} reads a judge's model call, and the rows of "
            f"{row.get('method')} hold none (report --decision makes no model call): run "
            f"debategraph eval --decision {rule} instead"
        )
    return judged


def _agent_models(row: Row, rule: str, n: int) -> list[str]:
    models = row.get("agent_models")
    if not isinstance(models, list) or len(models) != n:
        raise ValueError(
            f"row {row.get('method')}/{row.get('id')} stores no agent_models: the "
            f"{rule} rule needs each agent's model (pass weights=...)"
        )
    return [str(m) for m in models]


def sid_et_arm(
    rows: Sequence[Row],
    skip_rate: float | str,
    *,
    method: str = "sid-et",
    reference: str = "svr",
) -> list[dict[str, Any]]:
    """SID-ET at a dataset-level skip rate, as rows of an arm of their own (no model call).

    SVR-MAD reports SID-ET where the ``X``% of questions whose first answer is most confident
    (highest min-LL) skip the debate. From the rows of a ``sid-et`` run with
    ``mode=record`` (it always debates), a skipped question's row becomes the first agent's
    lone answer, with that call's tokens; the others keep their debate. ``"auto"`` picks
    ``X`` by SVR-MAD's Alg. 2 against the ``reference`` arm's accuracy and tokens on the same
    questions (see :func:`debategraph.policies.sid_et.tune_skip_rate`).

    Args:
        rows: Result rows of any arms; the finished rows labelled ``method`` are used (and,
            for ``"auto"``, those labelled ``reference``).
        skip_rate: ``X`` in [0, 1], or ``"auto"``.
        method: The label of the ``sid-et`` rows.
        reference: The arm Alg. 2 compares with (SVR-MAD's paper: ``svr``).

    Returns:
        The new rows, labelled ``"<method> · skip 60%"`` (``"... (Alg. 2)"`` for ``auto``),
        each with ``sid_et_skip`` saying whether it skipped and at which threshold.

    Raises:
        ValueError: No finished ``method`` rows, a bad rate, rows not recorded with
            ``mode=record``, or ``"auto"`` without ``reference`` rows on those questions.
    """
    finished = [r for r in rows if r.get("method") == method and "error" not in r]
    if not finished:
        raise ValueError(f"no finished {method!r} rows to read SID-ET from")
    items = sid_et_items(finished)
    if skip_rate == "auto":
        ids = {r["id"] for r in finished}
        ref = [r for r in rows if r.get("method") == reference and "error" not in r]
        ref = [r for r in ref if r["id"] in ids]
        if len(ref) != len(finished):
            raise ValueError(
                f"--sid-et-skip-rate auto compares with {reference!r} on the same questions, "
                f"and it finished {len(ref)} of {method}'s {len(finished)}"
            )
        choice = tune_skip_rate(
            items,
            reference_accuracy=sum(bool(r.get("correct")) for r in ref) / len(ref),
            reference_tokens=sum(_tokens(r) for r in ref),
        )
        outcome, suffix = choice.outcome, " (Alg. 2)"
    elif isinstance(skip_rate, int | float):
        outcome, suffix = sid_et_at(items, float(skip_rate)), ""
    else:
        raise ValueError(f"the skip rate is a number in [0, 1] or 'auto', got {skip_rate!r}")
    label = f"{method} · skip {round(100 * outcome.skip_rate)}%{suffix}"
    evidence = {"skip_rate": outcome.skip_rate, "threshold": outcome.threshold}
    out = []
    for row, decision in zip(finished, outcome.items, strict=True):
        new = dict(row, method=label, sid_et_skip={**evidence, "skipped": decision.skipped})
        if decision.skipped:
            new.update(_first_answer_only(row, decision.answer, decision.correct))
        out.append(new)
    return out


def _tokens(row: Row) -> int:
    return int(row.get("input_tokens") or 0) + int(row.get("output_tokens") or 0)


def _first_answer_only(row: Row, answer: Any, correct: bool) -> dict[str, Any]:
    """A row's fields as if only its first agent's first answer had been given."""
    record = sid_et_record(row)
    turns = row.get("turns") or []
    first = [t for t in turns if t.get("round") == 0 and t.get("agent") == record.get("agent")]
    used = {k: int(record.get(k) or 0) for k in ("input_tokens", "output_tokens")}
    attempts = int(first[0].get("attempts") or 1) if first else 1
    confidences = row.get("round_confidences") or [[None]]
    # The bill of the one call kept: replayed or paid, and what the provider billed apart.
    by_source = usage_by_source(first[:1]) if first else {"paid": {"calls": 1, **used}}
    kept = usage_totals(first[:1]) if first else {}
    return {
        "answer": answer,
        "correct": correct,
        "abstained": answer is None,
        **used,
        "calls": 1,
        "ncomm": 0,
        "rounds": 0,
        "agents": 1,
        "round_answers": [[answer]],
        "round_confidences": [confidences[0][:1]],
        "tokens_by_kind": {"answer": used},
        "cached_calls": int(kept.get("cached_calls", 0)),
        "usage_by_source": by_source,
        **{field: kept[field] for field in DETAIL_FIELDS if field in kept},
        "turns": first[:1],
        "answer_sources": {
            src: int(bool(first) and first[0].get("answer_source") == src) for src in ANSWER_SOURCES
        },
        "requests": attempts,
        "failed_requests": attempts - 1,
        "wasted_input_tokens": 0,
        "wasted_output_tokens": 0,
        "decision": {"rule": "sid-et", "evidence": {"skipped": True}},
    }
