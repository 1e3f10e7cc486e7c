"""Paired comparisons of arms over stored rows: which pairs, matched items, and their statistics.

Two arms are compared on the items both finished: rows are paired by ``(id, seed)`` (a row
without ``seed`` is one seed), an abstention counts as wrong (as in accuracy) and a pair where
either row failed (``error``) is left out of both arms and counted. The report compares every
debate with the vote of its own round 0 (graded as
:func:`debategraph.eval.analysis.dynamics.vote_at_round` grades it),
every budget-matched voting arm with the debate whose budget it spent, and any pair the user
names. The statistics are :mod:`debategraph.eval.analysis.stats`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, TypedDict

from msgspec import UNSET

from debategraph.eval.analysis.dynamics import reading_of
from debategraph.eval.analysis.metrics import Row, RowLike, group_by
from debategraph.eval.analysis.stats import (
    DEFAULT_RESAMPLES,
    holm,
    mcnemar_exact,
    paired_bootstrap,
    paired_score_interval,
    sign_flip_test,
)
from debategraph.eval.log.row import Row as RowStruct
from debategraph.eval.log.row import as_row, opt

Kind = Literal["vote", "budget", "user"]
"""Why a pair is compared: a debate and its round-0 vote, budget matching, or the user."""

VOTE_LABEL = "{method} · vote@r0"
"""The label of a debate's round-0 vote, as :func:`vote_at_round` names it."""

VOTE_ASCII = "{method}@r0"
"""What a user may type for :data:`VOTE_LABEL` (``du@r0`` for ``du · vote@r0``)."""

_Key = tuple[str, Any]


class Comparison(TypedDict):
    """Two arms on the items both finished. Accuracies and differences are fractions.

    Attributes:
        a: The first arm (the difference is ``a`` minus ``b``).
        b: The second arm.
        kind: ``vote`` (a debate and its round-0 vote), ``budget`` (a debate and a voting arm
            matched to its budget) or ``user`` (``--compare`` / ``--baseline``).
        dataset: The rows' ``dataset`` (``""`` when not recorded).
        n: Items with at least one pair of rows both arms finished.
        pairs: ``(item, seed)`` pairs both arms finished (``n`` with one seed).
        seeds: The most seeds any item was paired on.
        accuracy_a: Mean over items of ``a``'s accuracy on that item's seeds.
        accuracy_b: The same for ``b``.
        difference: ``accuracy_a - accuracy_b``.
        ci_low: Lower end of the 95% interval of the difference named in ``interval``.
        ci_high: Upper end.
        interval: ``tango score`` (one seed: Tango's score interval for paired proportions)
            or ``bootstrap percentile`` (several seeds: a paired bootstrap over items).
        a_only: Pairs ``a`` got right and ``b`` wrong.
        b_only: Pairs ``a`` got wrong and ``b`` right.
        p_value: Two-sided p-value of the test named in ``test``.
        test: ``mcnemar exact`` (one seed), ``sign-flip exact`` or ``sign-flip monte carlo``
            (several seeds: a randomisation test over items).
        p_holm: The p-value after Holm's correction over every comparison of the report, when
            it was asked for; ``None`` otherwise.
        failed: Pairs left out because either row failed.
        unpaired: Rows of one arm without a row of the other for the same item and seed.
        resamples: Bootstrap resamples and Monte Carlo sign flips (several seeds only).
        bootstrap_seed: Seed of the bootstrap and the Monte Carlo test (several seeds only).
    """

    a: str
    b: str
    kind: Kind
    dataset: str
    n: int
    pairs: int
    seeds: int
    accuracy_a: float
    accuracy_b: float
    difference: float
    ci_low: float
    ci_high: float
    interval: str
    a_only: int
    b_only: int
    p_value: float
    test: str
    p_holm: float | None
    failed: int
    unpaired: int
    resamples: int
    bootstrap_seed: int


def _key(row: Row) -> _Key:
    return (str(row.id), opt(row.seed))


class _Index:
    """Correctness per (id, seed) of scored rows, and the keys of failed rows (first wins)."""

    def __init__(self) -> None:
        self.scored: dict[_Key, bool] = {}
        self.failed: set[_Key] = set()

    def add(self, key: _Key, failed: bool, right: bool) -> None:
        if key in self.scored or key in self.failed:
            return
        if failed:
            self.failed.add(key)
        else:
            self.scored[key] = right


def _index(rows: Iterable[RowLike]) -> _Index:
    index = _Index()
    for row in map(as_row, rows):
        index.add(_key(row), row.error is not UNSET, bool(row.correct))
    return index


def compare_rows(
    rows_a: Iterable[RowLike],
    rows_b: Iterable[RowLike],
    a: str,
    b: str,
    *,
    kind: Kind = "user",
    dataset: str = "",
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> Comparison:
    """Compare two arms given their rows (each arm's rows only).

    Args:
        rows_a: Rows of the first arm.
        rows_b: Rows of the second arm.
        a: Name of the first arm.
        b: Name of the second arm.
        kind: Why they are compared (see :class:`Comparison`).
        dataset: The rows' dataset, for the record.
        resamples: Bootstrap resamples and Monte Carlo sign flips (several seeds only).
        seed: Seed of the bootstrap and the Monte Carlo test (several seeds only).

    Returns:
        The comparison; its figures are NaN when no item was finished by both.
    """
    return _compare(
        _index(rows_a), _index(rows_b), a, b, kind=kind, dataset=dataset, resamples=resamples,
        seed=seed,
    )  # fmt: skip


def _compare(
    index_a: _Index,
    index_b: _Index,
    a: str,
    b: str,
    *,
    kind: Kind,
    dataset: str,
    resamples: int,
    seed: int,
) -> Comparison:
    """:func:`compare_rows` over the two arms' indexes."""
    scored_a, scored_b = index_a.scored, index_b.scored
    failed = index_a.failed | index_b.failed
    shared = [k for k in scored_a if k in scored_b]
    unpaired = sum(k not in scored_b and k not in failed for k in scored_a)
    unpaired += sum(k not in scored_a and k not in failed for k in scored_b)
    by_item: dict[str, list[tuple[bool, bool]]] = {}
    for key in shared:
        by_item.setdefault(key[0], []).append((scored_a[key], scored_b[key]))
    a_only = sum(x and not y for x, y in (p for ps in by_item.values() for p in ps))
    b_only = sum(y and not x for x, y in (p for ps in by_item.values() for p in ps))
    n = len(by_item)
    mean_a = [sum(x for x, _ in ps) / len(ps) for ps in by_item.values()]
    mean_b = [sum(y for _, y in ps) / len(ps) for ps in by_item.values()]
    differences = [x - y for x, y in zip(mean_a, mean_b, strict=True)]
    seeds = max((len(ps) for ps in by_item.values()), default=0)
    nan = float("nan")
    if seeds <= 1:
        p_value, test = (mcnemar_exact(a_only, b_only) if n else nan), "mcnemar exact"
        low, high = paired_score_interval(a_only, b_only, n)
        interval = "tango score"
    else:
        p_value, test = sign_flip_test(differences, resamples=resamples, seed=seed)
        low, high = paired_bootstrap(differences, resamples=resamples, seed=seed)
        interval = "bootstrap percentile"
    accuracy_a = sum(mean_a) / n if n else nan
    accuracy_b = sum(mean_b) / n if n else nan
    return Comparison(
        a=a,
        b=b,
        kind=kind,
        dataset=dataset,
        n=n,
        pairs=len(shared),
        seeds=seeds,
        accuracy_a=accuracy_a,
        accuracy_b=accuracy_b,
        difference=sum(differences) / n if n else nan,
        ci_low=low,
        ci_high=high,
        interval=interval,
        a_only=a_only,
        b_only=b_only,
        p_value=p_value,
        test=test,
        p_holm=None,
        failed=len(failed),
        unpaired=unpaired,
        resamples=resamples,
        bootstrap_seed=seed,
    )


def _debates(rows: Sequence[Row]) -> bool:
    return any(len(r.round_answers or ()) > 1 for r in rows if r.error is UNSET)


def default_pairs(rows: Sequence[RowLike]) -> list[tuple[str, str, Kind]]:
    """The pairs a report compares unasked, in the rows' method order.

    Every method whose rows debated (more than one round recorded) against the majority vote
    of its own round-0 answers (labelled :data:`VOTE_LABEL`), and every budget-matched arm
    (rows with ``budget_of``) against the arm whose budget it spent, the debate first.

    Args:
        rows: Result rows of any number of methods.

    Returns:
        ``(a, b, kind)`` triples.
    """
    return _default_pairs(group_by(rows, "method"))


def _default_pairs(by_method: Mapping[str, list[Row]]) -> list[tuple[str, str, Kind]]:
    pairs: list[tuple[str, str, Kind]] = [
        (m, VOTE_LABEL.format(method=m), "vote") for m, rs in by_method.items() if _debates(rs)
    ]
    for method, method_rows in by_method.items():
        base = next((r.budget_of for r in method_rows if r.budget_of), None)
        if base is not None and str(base) in by_method:
            pairs.append((str(base), method, "budget"))
    return pairs


def split_pair(text: str, arms: Sequence[str]) -> tuple[str, str]:
    """``"A:B"`` as ``(A, B)``; where names hold a colon, the split that names two arms.

    Raises:
        ValueError: ``text`` has no colon.
    """
    cuts = [i for i, char in enumerate(text) if char == ":"]
    if not cuts:
        raise ValueError(f"--compare takes two arm names joined by ':' (A:B), got {text!r}")
    for i in cuts:
        if text[:i] in arms and text[i + 1 :] in arms:
            return (text[:i], text[i + 1 :])
    return (text[: cuts[0]], text[cuts[0] + 1 :])


def user_pairs(
    rows: Sequence[RowLike],
    compare: Sequence[str | tuple[str, str]] = (),
    baseline: str | None = None,
) -> list[tuple[str, str, Kind]]:
    """The pairs the user names: ``compare`` as given, then every other arm vs ``baseline``.

    Args:
        rows: Result rows.
        compare: ``(a, b)`` pairs, or ``"a:b"`` strings (see :func:`split_pair`).
        baseline: An arm to compare every other arm with.

    Raises:
        ValueError: A name that is no arm of the rows (one line listing the arms present),
            a pair naming one arm twice, or a string without a colon.
    """
    by_method = group_by(rows, "method")
    debated = [m for m, rs in by_method.items() if _debates(rs)]
    return _user_pairs(list(by_method), debated, compare, baseline)


def _user_pairs(
    arms: list[str],
    debated: Sequence[str],
    compare: Sequence[str | tuple[str, str]],
    baseline: str | None,
) -> list[tuple[str, str, Kind]]:
    """:func:`user_pairs` given the arms, in first-seen order, and those that debated."""
    votes = [VOTE_LABEL.format(method=m) for m in debated]
    typed = [VOTE_ASCII.format(method=m) for m in debated]
    known = [*arms, *votes, *typed]
    split = [split_pair(p, known) if isinstance(p, str) else p for p in compare]
    split = [(vote_label(a, arms), vote_label(b, arms)) for a, b in split]
    baseline = vote_label(baseline, arms) if baseline else baseline
    named = [name for pair in split for name in pair] + ([baseline] if baseline else [])
    unknown = [name for name in dict.fromkeys(named) if name not in (*arms, *votes)]
    if unknown:
        spelt = [f"{v} ({t})" for v, t in zip(votes, typed, strict=True)]
        raise ValueError(
            f"no arm named {', '.join(map(repr, unknown))} in these rows; arms present: "
            + ", ".join(arms)
            + (f"; round-0 votes: {', '.join(spelt)}" if spelt else "")
        )
    same = [a for a, b in split if a == b]
    if same:
        raise ValueError(
            f"--compare {same[0]}:{same[0]} names one arm twice; name two different arms (A:B)"
        )
    pairs: list[tuple[str, str, Kind]] = [(a, b, "user") for a, b in split]
    if baseline:
        pairs += [(arm, baseline, "user") for arm in arms if arm != baseline]
    return pairs


def vote_label(name: str, arms: Sequence[str]) -> str:
    """``name``, or :data:`VOTE_LABEL` of ``M`` where ``name`` is ``M@r0`` for an arm ``M``.

    An arm that is itself named ``M@r0`` keeps its name.
    """
    if name in arms or not name.endswith("@r0"):
        return name
    method = name.removesuffix("@r0")
    return VOTE_LABEL.format(method=method) if method in arms else name


def compare_arms(
    rows: Sequence[RowLike],
    a: str,
    b: str,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> Comparison:
    """Compare two arms of stored rows (one dataset; see :func:`paired_comparisons` for several).

    Args:
        rows: Result rows, e.g. :func:`debategraph.eval.analysis.results.load_rows`'s.
        a: An arm (a ``method`` of the rows), or ``"M · vote@r0"`` (or ``"M@r0"``) for the
            round-0 vote of a debate ``M``.
        b: The arm it is compared with; the difference is ``a`` minus ``b``.
        resamples: Bootstrap resamples (and Monte Carlo sign flips).
        seed: Seed of the bootstrap and the Monte Carlo test.

    Returns:
        The comparison.

    Raises:
        ValueError: ``a`` or ``b`` names no arm of the rows.
    """
    by_method = group_by(rows, "method")
    a, b = vote_label(a, list(by_method)), vote_label(b, list(by_method))
    resolved = [_arm_rows(by_method, name) for name in (a, b)]
    missing = [name for name, found in zip((a, b), resolved, strict=True) if found is None]
    if missing:
        raise ValueError(
            f"no arm named {', '.join(map(repr, missing))} in these rows; arms present: "
            + ", ".join(by_method)
        )
    rows_a, rows_b = (found or [] for found in resolved)
    datasets = {r.dataset or "" for r in (*rows_a, *rows_b)}
    kind: Kind = "vote" if b == VOTE_LABEL.format(method=a) else "user"
    return compare_rows(
        rows_a,
        rows_b,
        a,
        b,
        kind=kind,
        dataset=datasets.pop() if len(datasets) == 1 else "",
        resamples=resamples,
        seed=seed,
    )


def _vote_row(row: Row) -> Row:
    """What pairing reads of the row :func:`vote_at_round` makes at round 0 (failed: kept)."""
    if row.error is not UNSET:
        return RowStruct(method=row.method, id=row.id, seed=row.seed, error=row.error)
    right = reading_of(row).majorities[0]
    return RowStruct(method=row.method, id=row.id, seed=row.seed, correct=right)


def _arm_rows(by_method: Mapping[str, list[Row]], name: str) -> list[Row] | None:
    if name in by_method:
        return by_method[name]
    for method, rows in by_method.items():
        if name == VOTE_LABEL.format(method=method):
            return [_vote_row(r) for r in rows if r.error is not UNSET or r.round_answers]
    return None


def paired_comparisons(
    rows: Iterable[RowLike],
    *,
    compare: Sequence[str | tuple[str, str]] = (),
    baseline: str | None = None,
    defaults: bool = True,
    holm_correction: bool = False,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> list[Comparison]:
    """Every comparison a report makes, per dataset: the default pairs, then the user's.

    Args:
        rows: Result rows.
        compare: ``(a, b)`` pairs (or ``"a:b"`` strings) to compare as well.
        baseline: Compare every other arm with this one as well.
        defaults: Include :func:`default_pairs`.
        holm_correction: Fill ``p_holm`` with Holm's correction over all the comparisons.
        resamples: Bootstrap resamples (and Monte Carlo sign flips).
        seed: Seed of the bootstrap and the Monte Carlo test (the same for every pair, so a
            comparison does not depend on which others are made).

    Returns:
        The comparisons; a pair is made once (in the order first asked), and only in the
        datasets where both arms have rows.

    Raises:
        ValueError: ``compare`` or ``baseline`` names no arm of the rows, ``compare`` names
            one arm twice, or a ``compare`` pair has no item both arms finished.
    """
    tally = ComparisonTally()
    for row in rows:
        tally.add(as_row(row))
    return tally.comparisons(
        compare=compare, baseline=baseline, defaults=defaults, holm_correction=holm_correction,
        resamples=resamples, seed=seed,
    )  # fmt: skip


class _ArmIndex:
    """One arm's rows of one dataset as pairing reads them: its own and its round-0 vote's."""

    def __init__(self) -> None:
        self.own, self.vote = _Index(), _Index()
        self.debates = False
        self.budget_of: str | None = None

    def add(self, row: Row) -> None:
        key, failed = _key(row), row.error is not UNSET
        self.own.add(key, failed, bool(row.correct))
        answers = row.round_answers
        if failed or answers:  # what :func:`vote_at_round` makes of the row at round 0
            self.vote.add(key, failed, not failed and reading_of(row).majorities[0])
        self.debates = self.debates or (not failed and len(answers or ()) > 1)
        if self.budget_of is None and row.budget_of:
            self.budget_of = str(row.budget_of)


class ComparisonTally:
    """What :func:`paired_comparisons` needs, read one row at a time.

    Per dataset and arm, each (id, seed)'s correctness and its round-0 vote's, not the rows.
    """

    def __init__(self) -> None:
        self.datasets: dict[str, dict[str, _ArmIndex]] = {}
        self.arms: dict[str, bool] = {}

    def add(self, row: Row) -> None:
        """Add one row."""
        method = row.method
        by_method = self.datasets.setdefault(row.dataset or "", {})
        arm = by_method.get(method)
        if arm is None:
            arm = by_method[method] = _ArmIndex()
        arm.add(row)
        self.arms[method] = self.arms.get(method, False) or arm.debates

    def comparisons(
        self,
        *,
        compare: Sequence[str | tuple[str, str]] = (),
        baseline: str | None = None,
        defaults: bool = True,
        holm_correction: bool = False,
        resamples: int = DEFAULT_RESAMPLES,
        seed: int = 0,
    ) -> list[Comparison]:
        """The comparisons of :func:`paired_comparisons` over the rows added."""
        debated = [m for m, debates in self.arms.items() if debates]
        asked = _user_pairs(list(self.arms), debated, compare, baseline)
        out: list[Comparison] = []
        for dataset, by_method in self.datasets.items():
            pairs = (_tallied_pairs(by_method) if defaults else []) + asked
            done: set[frozenset[str]] = set()
            for a, b, kind in pairs:
                index_a, index_b = _arm_index(by_method, a), _arm_index(by_method, b)
                if a == b or frozenset((a, b)) in done or index_a is None or index_b is None:
                    continue
                done.add(frozenset((a, b)))
                out.append(
                    _compare(
                        index_a,
                        index_b,
                        a,
                        b,
                        kind=kind,
                        dataset=dataset,
                        resamples=resamples,
                        seed=seed,
                    )
                )
        _refuse_empty_pairs(out, [(a, b) for a, b, _ in asked[: len(compare)]])
        if holm_correction:
            for comparison, adjusted in zip(out, holm([c["p_value"] for c in out]), strict=True):
                comparison["p_holm"] = adjusted
        return out


def _tallied_pairs(by_method: Mapping[str, _ArmIndex]) -> list[tuple[str, str, Kind]]:
    """:func:`default_pairs` of one dataset's arms."""
    pairs: list[tuple[str, str, Kind]] = [
        (m, VOTE_LABEL.format(method=m), "vote") for m, arm in by_method.items() if arm.debates
    ]
    for method, arm in by_method.items():
        if arm.budget_of is not None and arm.budget_of in by_method:
            pairs.append((arm.budget_of, method, "budget"))
    return pairs


def _arm_index(by_method: Mapping[str, _ArmIndex], name: str) -> _Index | None:
    if name in by_method:
        return by_method[name].own
    for method, arm in by_method.items():
        if name == VOTE_LABEL.format(method=method):
            return arm.vote
    return None


def _refuse_empty_pairs(made: Sequence[Comparison], asked: Sequence[tuple[str, str]]) -> None:
    """Refuse, in one line, the first asked pair with no item both arms finished."""
    for a, b in asked:
        shared = sum(c["n"] for c in made if {c["a"], c["b"]} == {a, b})
        if not shared:
            raise ValueError(
                f"--compare {a}:{b}: no item was finished by both arms (no shared item id and "
                "seed without an error); compare arms run on the same items"
            )
