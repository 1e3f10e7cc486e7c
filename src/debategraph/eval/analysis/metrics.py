"""Metrics over result rows: accuracy with Wilson intervals, tokens, calls, NComm, rounds.

A result row is one JSON object per (item, method), as the runner writes it::

    {
      "method": "du",                  # method label (rows are grouped by it)
      "id": "gsm8k-test-0000",         # item id
      "answer": "18" | null,           # the method's final canonical answer (null: abstained)
      "reference": "18",               # canonical right answer
      "correct": true,                 # answer == reference (an abstention is never correct)
      "span_scores": {"exact_match": 1.0, "f1": 1.0},  # optional: span answers (SQuAD,
                                       # LongBench), best over the accepted answers;
                                       # correct is the exact match
      "accepted": ["Denver Broncos", "Broncos"],  # optional: those accepted answers
      "abstained": false,              # the method gave no answer
      "input_tokens": 1234,            # prompt tokens, all calls of this item
      "output_tokens": 567,            # completion tokens, all calls of this item
      "calls": 6,                      # model calls (agents, summarisers, evaluators)
      "cached_calls": 0,               # of which replayed from the call cache (--cache)
      "cached_input_tokens": 512,      # optional: of input_tokens, the provider's cache reads
      "reasoning_tokens": 0,           # optional: of output_tokens, hidden reasoning
      "usage_by_source": {"paid": {"calls": 6, ...}},  # optional: paid and cached calls
      "ncomm": 6,                      # pairwise context transfers (SVR-MAD's NComm)
      "rounds": 2,                     # rounds run, in the method's own convention
      "wall_s": 3.2,                   # wall time of the item
      "round_answers": [["18", "17", null], ["18", "18", "18"]],  # per round, per agent
      "tokens_by_kind": {"answer": {"input_tokens": 1000, "output_tokens": 500}},  # optional
      "task": "number",                # optional: answer kind; "math" grades symbolically
      "answer_sources": {"declared": 5, "fallback": 1, "none": 0}  # optional, see below
    }

Optional keys used by the report: ``source`` (``"simulated"`` or ``"real"``) and
``dataset``. A row with an ``error`` key is a failed item: it is counted in ``failed`` and
left out of every other metric. Missing counters count as 0 (a counter is never ``null``:
the row's declaration, :mod:`debategraph.eval.log.row`, refuses it).

``answer_sources`` counts the item's answer turns by how their answer was found
(:class:`debategraph.policies.answers.Extraction`): ``declared``, ``fallback`` (the "last
number" / "last letter" guess) or ``none`` (no answer). A row without the key is *unknown*,
not zero: the rates are computed over the rows that have it, and the summary says how many
rows that is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from msgspec import UNSET

from debategraph.eval.analysis.summary_fields import (
    ANSWER_SOURCES,
    NAN,
    MethodSummary,
    Row,
    RowLike,
    distinct_items,
    is_failed,
    item_wilson_interval,
    wilson_interval,
)
from debategraph.eval.analysis.summary_stream import MethodTally, summarize_stream
from debategraph.eval.log.row import ROW_FIELDS, as_row
from debategraph.policies.types import Answer

__all__ = [
    "ANSWER_SOURCES",
    "NAN",
    "MethodSummary",
    "Row",
    "RowLike",
    "accuracy_by_round",
    "consensus_by_round",
    "distinct_items",
    "group_by",
    "harness_metrics",
    "initial_vote_size",
    "is_failed",
    "item_wilson_interval",
    "round_answers_at",
    "summarize",
    "summarize_method",
    "wilson_interval",
]


def group_by(
    rows: Iterable[RowLike], key: str = "method", default: str = ""
) -> dict[str, list[Row]]:
    """Rows grouped by ``key`` (``default`` when missing), in first-seen order.

    Args:
        rows: Result rows.
        key: The grouping field: a field of the row's declaration, or any key of rows
            given as JSON objects (``"model"``, a key a script added), read before the
            object is checked into a :class:`Row` (which keeps declared fields only).
        default: Group of rows without the field.

    Returns:
        Group label -> rows.

    Raises:
        ValueError: ``key`` is no field of a row, and a row is a typed :class:`Row`.
    """
    declared = key in ROW_FIELDS
    groups: dict[str, list[Row]] = {}
    for given in rows:
        if declared:
            row = as_row(given)
            value = getattr(row, key)
        elif isinstance(given, Mapping):
            value, row = given.get(key, UNSET), as_row(given)
        else:
            raise ValueError(f"a row has no field {key!r}: group by one of {sorted(ROW_FIELDS)}")
        groups.setdefault(default if value is UNSET else str(value), []).append(row)
    return groups


def round_answers_at(row: RowLike, k: int) -> list[Answer] | None:
    """The agents' answers of round ``k``; past a row's last round, its last round.

    Args:
        row: A result row.
        k: Round index (0 is the initial round).

    Returns:
        The answers, or ``None`` when the row records no rounds.
    """
    rounds = as_row(row).round_answers or []
    if not rounds:
        return None
    return list(rounds[min(k, len(rounds) - 1)])


def consensus_by_round(rows: Sequence[RowLike]) -> list[float]:
    """Per round, the fraction of items whose agents all agree (non-abstaining, equal).

    Items that stopped early count with their last round carried forward; rows without
    ``round_answers`` and rows of a single agent (nobody to agree with) are left out. The
    figure of :func:`summarize_method` (``consensus_by_round``), for one method's rows.

    Args:
        rows: Scored rows of one method.

    Returns:
        One fraction per round, up to the longest debate; NaN where no row has two agents.
    """
    return summarize_method("", rows)["consensus_by_round"]


def accuracy_by_round(rows: Sequence[RowLike]) -> list[float]:
    """Per round, the accuracy of that round's majority vote (first-seen tie-break).

    Items that stopped early count with their last round carried forward; rows without
    ``round_answers`` are left out. A vote with every agent abstaining is wrong. The vote is
    graded like the final answer (:func:`debategraph.policies.answers.answers_match`, with the
    row's ``task``, default ``number``): symbolically for ``math``. The figure of
    :func:`summarize_method` (``accuracy_by_round``).

    Args:
        rows: Scored rows of one method.

    Returns:
        One accuracy per round, up to the longest debate.
    """
    return summarize_method("", rows)["accuracy_by_round"]


def initial_vote_size(rows: Sequence[RowLike]) -> int | None:
    """The number of answers in the initial round, when every row that records one agrees.

    The figure of :func:`summarize_method` (``vote_k``).

    Args:
        rows: Scored rows of one method.

    Returns:
        ``k``, or ``None`` when rows differ (``sc@du``'s budgets) or none records rounds.
    """
    return summarize_method("", rows)["vote_k"]


def harness_metrics(summary: MethodSummary) -> dict[str, float]:
    """A method's figures under the names evaluation harnesses use (``{"maj@5": 0.62}``).

    Args:
        summary: The method's summary.

    Returns:
        Name -> value; empty when no name applies.
    """
    k = summary["vote_k"]
    return {} if k is None else {f"maj@{k}": summary["maj_at_k"]}


def summarize_method(
    method: str, rows: Iterable[RowLike], prices: Mapping[str, float] | None = None
) -> MethodSummary:
    """Aggregate one method's rows (failed rows are counted, then left out).

    Args:
        method: The method label.
        rows: That method's rows.
        prices: ``{"input": $ per token, "output": $ per token}`` (and optionally
            ``"cached_input"``), or ``None``.

    Returns:
        The summary.
    """
    tally = MethodTally(method)
    for row in rows:
        tally.add(as_row(row))
    return tally.summary(prices)


def summarize(
    rows: Iterable[RowLike], prices: Mapping[str, float] | None = None
) -> dict[str, MethodSummary]:
    """Aggregate result rows per method.

    Args:
        rows: Result rows of any number of methods (see the module docstring).
        prices: ``{"input": $ per token, "output": $ per token}`` (and optionally
            ``"cached_input"``, the provider's cached-input price) to compute costs.

    Returns:
        Method -> summary, methods in first-seen order.
    """
    return summarize_stream(rows, prices)
