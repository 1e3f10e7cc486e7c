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

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec
import msgspec.structs
from msgspec import UNSET

from debategraph.eval.analysis.dynamics import round_dynamics, vote_at_round
from debategraph.eval.log.row import (
    ANSWER_SOURCES,
    Row,
    Turn,
    TurnFigures,
    as_row,
    figures,
    opt,
    row_dict,
)
from debategraph.methods.registry import get_rule
from debategraph.policies.accounting import usage_by_source, usage_totals
from debategraph.policies.answers import answers_match
from debategraph.policies.ballots import DEFAULT_POINTS, BallotKind
from debategraph.policies.decisions import apply_rule, rule_options
from debategraph.policies.rule_needs import rule_needs
from debategraph.policies.sid_et import (
    SidEtItem,
    SidEtOutcome,
    sid_et_at,
    sid_et_item,
    tune_skip_rate,
)
from debategraph.policies.types import TaskKind, Trajectory
from debategraph.policies.voting import derive_seed
from debategraph.state.decision_inputs import ballots_of, judged_of

RowLike = Row[Any] | Mapping[str, Any]
"""A result row, or its JSON object (checked into a :class:`Row` on the way in)."""

Rows = Callable[[], Iterable[RowLike]]
"""A fresh pass over a results directory's rows, each call (turns with their texts)."""

__all__ = [
    "rescore",
    "rescore_all",
    "rescored_rows",
    "round_dynamics",
    "sid_et_arm",
    "trajectory_of",
    "vote_at_round",
]


def trajectory_of(row: RowLike) -> Trajectory:
    """The trajectory a result row stores (``round_answers`` is per round, per agent).

    Raises:
        ValueError: The row holds no trajectory (a failed row, or one written before
            trajectories were stored).
    """
    row = as_row(row)
    rounds = row.round_answers
    if not rounds:
        raise ValueError(f"row {row.method}/{row.id} stores no round_answers")
    agents = [f"a{i}" for i in range(1, len(rounds[0]) + 1)]
    answers = [list(col) for col in zip(*rounds, strict=True)]
    stored = row.round_confidences
    confidences: list[list[float | None]] = (
        [list(col) for col in zip(*stored, strict=True)]
        if stored
        else [[None] * len(rounds) for _ in agents]
    )
    return Trajectory(agents, answers, confidences)


def _failed(row: Row[Any]) -> bool:
    return opt(row.error) is not None


def _turn_record(turn: Turn) -> dict[str, Any]:
    """A stored turn as the debate's turn record (the mapping policies read)."""
    record: dict[str, Any] = msgspec.to_builtins(turn)
    return record


class _Rule:
    """One decision rule, ready to re-decide rows."""

    def __init__(
        self, rule: str, tie_policy: str, seed: int, label: str | None, options: dict[str, Any]
    ) -> None:
        self.rule = rule
        self.fn = get_rule(rule)
        self.takes = rule_options(self.fn)
        self.needs = rule_needs(self.fn)
        self.tie_policy = tie_policy
        self.seed = seed
        self.pattern = label or "{method} [{rule}]"
        self.options = options

    def redecide(self, row: Row[Any]) -> Row[Any]:
        """``row`` re-decided (a failed row only relabelled), graded again."""
        method = self.pattern.format(method=row.method, rule=self.rule)
        if _failed(row):
            return msgspec.structs.replace(row, method=method)
        path = trajectory_of(row)
        kwargs = dict(self.options)
        if "tie_policy" in self.takes:
            kwargs.setdefault("tie_policy", self.tie_policy)
        if "models" in self.takes and "models" not in kwargs and "weights" not in kwargs:
            kwargs["models"] = _agent_models(row, self.rule, len(path.agents))
        inputs: dict[str, int] = {}
        if self.needs.ballot is not None:
            points = kwargs.get("points", DEFAULT_POINTS)
            kwargs["ballots"], inputs = _row_ballots(row, self.rule, self.needs.ballot, points)
        if self.needs.judge:
            kwargs["judged"] = _row_judged(row, self.rule)
        if "rankings" in self.takes and "rankings" not in kwargs:  # council-rank: the row's
            kwargs["rankings"] = (row.method_state or {}).get("rankings")
        decision = apply_rule(
            self.fn, path, rule_name=self.rule, seed=derive_seed(self.seed, str(row.id)), **kwargs
        )
        task: TaskKind = row.task or "number"  # type: ignore[assignment]
        correct = answers_match(decision.answer, opt(row.reference), task)
        span_scores = row.span_scores
        if row.accepted:  # a span answer: graded as its benchmark grades it
            from debategraph.policies.spans import span_grade

            span_scores = span_grade(decision.answer, row.accepted)
            correct = span_scores["exact_match"] == 1.0
        return msgspec.structs.replace(
            row,
            method=method,
            answer=decision.answer,
            correct=correct,
            span_scores=span_scores,
            abstained=decision.answer is None,
            decision={"rule": decision.rule, "evidence": {**decision.evidence, **inputs}},
        )


def rescore(
    rows: Iterable[RowLike],
    rule: str,
    *,
    tie_policy: str = "first",
    seed: int = 0,
    label: str | None = None,
    **options: Any,
) -> list[dict[str, Any]]:
    """Re-decide every finished row with ``rule`` and grade the new answers.

    Args:
        rows: Result rows (or their JSON objects); failed rows are passed through unchanged.
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
        New rows, as JSON objects: ``method``, ``answer``, ``correct``, ``abstained`` and
        ``decision`` updated; the rest (tokens, calls, trajectory) as stored.

    Raises:
        ValueError: An unknown rule, a bad option, or a row without a stored trajectory.
    """
    redecide = _Rule(rule, tie_policy, seed, label, options).redecide
    return [row_dict(redecide(as_row(row))) for row in rows]


def rescore_all(
    rows: Sequence[RowLike], rules: Sequence[str], **options: Any
) -> list[dict[str, Any]]:
    """``rescore`` with every rule in turn, rows of all rules together (rule order)."""
    return [r for rule in rules for r in rescore(rows, rule, **options)]


def _row_ballots(
    row: Row[Any], rule: str, kind: BallotKind, points: int
) -> tuple[list[Any], dict[str, int]]:
    """The agents' ballots a row keeps (its turns'), as the debate's decision read them.

    Raises:
        ValueError: The row's debate was not asked for ballots of this kind.
    """
    turns = [t for t in row.turns or () if t.kind == "answer"]
    asked = any((t.ballot or {}).get("kind") == kind for t in turns)
    if not asked and (row.decision or {}).get("rule") != kind:
        raise ValueError(
            f"decision rule {rule!r} reads the agents' {kind} ballots, and the rows of "
            f"{row.method} hold none (agents give ballots only when the debate runs "
            f"with such a rule): run debategraph eval --decision {rule} instead"
        )
    latest = {t.agent: _turn_record(t) for t in turns}
    agents = row.agent_names or sorted(latest)
    return ballots_of(latest, agents, kind, points)


def _row_judged(row: Row[Any], rule: str) -> dict[str, Any]:
    """The judge's turn a row keeps.

    Raises:
        ValueError: The row's debate made no judge's call.
    """
    judged = judged_of([_turn_record(t) for t in row.turns or ()])
    if judged is None:
        raise ValueError(
            f"decision rule {rule!r} reads a judge's model call, and the rows of "
            f"{row.method} hold none (report --decision makes no model call): run "
            f"debategraph eval --decision {rule} instead"
        )
    return judged


def _agent_models(row: Row[Any], rule: str, n: int) -> list[str]:
    models = row.agent_models
    if not models or len(models) != n:
        raise ValueError(
            f"row {row.method}/{row.id} stores no agent_models: the "
            f"{rule} rule needs each agent's model (pass weights=...)"
        )
    return [str(m) for m in models]


@dataclass
class _SidEtPass:
    """What SID-ET at a skip rate needs of the rows, gathered as they stream by.

    Holds one :class:`SidEtItem` per finished ``method`` row, and the id, correctness and
    tokens of each finished ``reference`` row: not the rows.
    """

    method: str
    reference: str
    items: list[SidEtItem] = field(default_factory=list)
    ids: set[str | int] = field(default_factory=set)
    references: list[tuple[str | int, bool, int]] = field(default_factory=list)

    def add(self, row: Row[Any]) -> None:
        """Take one row (rows of other arms, and failed rows, are passed over)."""
        if _failed(row):
            return
        if row.method == self.method:
            self.items.append(
                sid_et_item(
                    _sid_et_record(row),
                    item_id=row.id,
                    reference=opt(row.reference),
                    task=row.task or "number",
                    answer=opt(row.answer),
                    correct=bool(row.correct),
                    tokens=lambda: (row.input_tokens or 0) + (row.output_tokens or 0),
                )
            )
            self.ids.add(row.id)
        elif row.method == self.reference:
            self.references.append((row.id, bool(row.correct), _tokens(row)))

    def outcome(self, skip_rate: float | str) -> tuple[SidEtOutcome, str]:
        """SID-ET at ``skip_rate`` over the rows taken, and the label's suffix.

        Raises:
            ValueError: See :func:`sid_et_arm`.
        """
        if not self.items:
            raise ValueError(f"no finished {self.method!r} rows to read SID-ET from")
        if skip_rate == "auto":
            ref = [r for r in self.references if r[0] in self.ids]
            if len(ref) != len(self.items):
                raise ValueError(
                    f"--sid-et-skip-rate auto compares with {self.reference!r} on the same "
                    f"questions, and it finished {len(ref)} of {self.method}'s "
                    f"{len(self.items)}"
                )
            choice = tune_skip_rate(
                self.items,
                reference_accuracy=sum(correct for _, correct, _ in ref) / len(ref),
                reference_tokens=sum(tokens for _, _, tokens in ref),
            )
            return choice.outcome, " (Alg. 2)"
        if isinstance(skip_rate, int | float):
            return sid_et_at(self.items, float(skip_rate)), ""
        raise ValueError(f"the skip rate is a number in [0, 1] or 'auto', got {skip_rate!r}")

    def rows(
        self, rows: Iterable[Row[Any]], outcome: SidEtOutcome, suffix: str
    ) -> Iterator[tuple[Row[Any], dict[str, Any]]]:
        """The arm's rows made from the ``method`` rows of ``rows`` (the rows taken, again).

        Each comes with its ``sid_et_skip`` note: whether it skipped, at which threshold.
        """
        label = f"{self.method} · skip {round(100 * outcome.skip_rate)}%{suffix}"
        evidence = {"skip_rate": outcome.skip_rate, "threshold": outcome.threshold}
        finished = (r for r in rows if r.method == self.method and not _failed(r))
        for row, decision in zip(finished, outcome.items, strict=True):
            new = msgspec.structs.replace(row, method=label)
            if decision.skipped:
                new = _first_answer_only(new, decision.answer, decision.correct)
            yield new, {**evidence, "skipped": decision.skipped}


def sid_et_arm(
    rows: Sequence[RowLike],
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
        rows: Result rows (or their JSON objects) of any arms; the finished rows labelled
            ``method`` are used (and, for ``"auto"``, those labelled ``reference``).
        skip_rate: ``X`` in [0, 1], or ``"auto"``.
        method: The label of the ``sid-et`` rows.
        reference: The arm Alg. 2 compares with (SVR-MAD's paper: ``svr``).

    Returns:
        The new rows as JSON objects, labelled ``"<method> · skip 60%"`` (``"... (Alg. 2)"``
        for ``auto``), each with ``sid_et_skip`` saying whether it skipped and at which
        threshold.

    Raises:
        ValueError: No finished ``method`` rows, a bad rate, rows not recorded with
            ``mode=record``, or ``"auto"`` without ``reference`` rows on those questions.
    """
    typed = [as_row(row) for row in rows]
    gathered = _SidEtPass(method, reference)
    for row in typed:
        gathered.add(row)
    outcome, suffix = gathered.outcome(skip_rate)
    return [
        row_dict(new) | {"sid_et_skip": note} for new, note in gathered.rows(typed, outcome, suffix)
    ]


def rescored_rows(
    rows: Rows, decisions: Sequence[str], skip_rates: Sequence[float | str]
) -> Iterator[Row[Any]]:
    """What ``report --decision``/``--sid-et-skip-rate`` reports on, streamed, without texts.

    The rows re-decided with each rule in turn (rule order; the rows themselves where no
    rule is given), then the rows of SID-ET at each skip rate, read from those (as
    :func:`rescore_all` and :func:`sid_et_arm` give them, in that order). ``rows`` is called
    for each pass over the files: once per rule (once without), and once more per skip
    rate. No row is held: each comes out as its figures alone (turns as
    :class:`~debategraph.eval.log.row.TurnFigures`, no texts or record fields).

    Raises:
        ValueError: As :func:`rescore` and :func:`sid_et_arm` raise.
    """
    rules = [_Rule(rule, "first", 0, None, {}) for rule in decisions]

    def held() -> Iterator[Row[Any]]:
        if not rules:
            yield from (as_row(row) for row in rows())
        for rule in rules:
            yield from (rule.redecide(as_row(row)) for row in rows())

    gathered = _SidEtPass("sid-et", "svr")
    for row in held():
        if skip_rates:
            gathered.add(row)
        yield _figures(row)
    for rate in skip_rates:
        outcome, suffix = gathered.outcome(rate)
        yield from (_figures(new) for new, _ in gathered.rows(held(), outcome, suffix))


def _figures(row: Row[Any]) -> Row[Any]:
    """A row as a report reads it: without texts and record fields (see ``row.figures``)."""
    turns = row.turns
    kept = msgspec.structs.replace(
        row,
        turns=UNSET if turns is UNSET else [_turn_figures(t) for t in turns],
    )
    figures(kept)
    return kept


_TURN_FIGURES = TurnFigures.__struct_fields__


def _turn_figures(turn: Turn | TurnFigures) -> TurnFigures:
    """What a report reads of a turn (its text, reasoning and prompt left behind)."""
    if isinstance(turn, TurnFigures):
        return turn
    return TurnFigures(**{name: getattr(turn, name) for name in _TURN_FIGURES})


def _sid_et_record(row: Row[Any]) -> dict[str, Any]:
    """The ``sid-et`` record a row's method state keeps.

    Raises:
        ValueError: A row without one (not a ``sid-et`` row, or a row format that does not
            keep the method state).
    """
    record = (row.method_state or {}).get("sid_et")
    if not isinstance(record, dict) or not record:
        raise ValueError(
            f"row {row.id!r} has no sid-et record (a 'sid_et' field or "
            "method_state['sid_et']): it is not a row of a sid-et run, or its rows do not "
            "keep the method state"
        )
    return record


def _tokens(row: Row[Any]) -> int:
    return (row.input_tokens or 0) + (row.output_tokens or 0)


def _first_answer_only(row: Row[Any], answer: Any, correct: bool) -> Row[Any]:
    """``row`` as if only its first agent's first answer had been given."""
    record = _sid_et_record(row)
    turns: list[Turn] = row.turns or []
    first = [t for t in turns if t.round == 0 and t.agent == record.get("agent")][:1]
    records = [_turn_record(t) for t in first]
    used = {"input_tokens": int(record.get("input_tokens") or 0),
            "output_tokens": int(record.get("output_tokens") or 0)}  # fmt: skip
    confidences = row.round_confidences or [[None]]
    # The bill of the one call kept: replayed or paid, and what the provider billed apart.
    by_source = usage_by_source(records) if records else {"paid": {"calls": 1, **used}}
    kept = usage_totals(records) if records else {}
    source = first[0].answer_source if first else None
    attempts = (first[0].attempts or 1) if first else 1
    return msgspec.structs.replace(
        row,
        answer=answer,
        correct=correct,
        abstained=answer is None,
        input_tokens=used["input_tokens"],
        output_tokens=used["output_tokens"],
        calls=1,
        ncomm=0,
        rounds=0,
        agents=1,
        round_answers=[[answer]],
        round_confidences=[confidences[0][:1]],
        tokens_by_kind={"answer": used},
        cached_calls=int(kept.get("cached_calls", 0)),
        usage_by_source=by_source,
        cached_input_tokens=kept.get("cached_input_tokens", UNSET),
        reasoning_tokens=kept.get("reasoning_tokens", UNSET),
        turns=first,
        answer_sources={src: int(source == src) for src in ANSWER_SOURCES},
        requests=attempts,
        failed_requests=attempts - 1,
        wasted_input_tokens=0,
        wasted_output_tokens=0,
        decision={"rule": "sid-et", "evidence": {"skipped": True}},
    )
