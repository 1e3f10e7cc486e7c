"""Everything a report shows, read from the rows in one pass that holds tallies, not rows.

:class:`ReportPass` takes each row once (:func:`~debategraph.eval.analysis.results.stream_rows`
reads them from the files one line at a time) and feeds it to the tallies of every view: per
(dataset, method, source) the method's summary (:class:`~debategraph.eval.analysis.summary_stream.
MethodTally`) and Pareto points (:class:`~debategraph.eval.analysis.pareto.ArmPoints`), the
paired comparisons' per-item correctness (:class:`~debategraph.eval.analysis.comparisons.
ComparisonTally`), the transitions (:class:`~debategraph.eval.analysis.transitions.
TransitionsByArm`) and the few facts the report's text counts (:class:`RowFacts`).

A row's group is the source it is reported under (:func:`~debategraph.eval.analysis.results.
group_sources`), which depends on the other rows of its arm: the pass keeps apart the rows of an
arm by what decides it (the row's own source, and whether it replayed simulated answers), and
resolves each part's source at the end. Where two parts of one arm end up under one source (old
rows that call a replayed simulated debate ``real``, beside its simulated rows), their tallies
cannot be joined in row order: :meth:`GroupTally.groups` says so, and the caller reads the rows
once more, keyed by the resolved sources (:meth:`GroupTally.resolved`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from msgspec import UNSET

from debategraph.eval.analysis.comparisons import ComparisonTally
from debategraph.eval.analysis.dynamics import remember_round_turns
from debategraph.eval.analysis.pareto import ArmPoints, ParetoPoint, mark_front
from debategraph.eval.analysis.results import Group, replayed
from debategraph.eval.analysis.summary_fields import RowLike
from debategraph.eval.analysis.summary_stream import MethodTally
from debategraph.eval.analysis.transitions import TransitionsByArm
from debategraph.eval.log.row import as_row

_PartKey = tuple[str, str, str, bool]
"""(method, dataset, source, replayed): rows of one arm that are reported under one source."""


class _Part:
    """The tallies of one part of an arm, and the number of the first row it took."""

    def __init__(self, method: str, first: int) -> None:
        self.summary = MethodTally(method)
        self.points = ArmPoints()
        self.first = first


class GroupTally:
    """Per-method summaries and Pareto points per (source, dataset) group, row by row.

    Args:
        sources: Each part's resolved source (:meth:`resolved` of an earlier pass over the
            same rows); without, the parts are kept apart by what decides their source.
    """

    def __init__(self, sources: Mapping[_PartKey, str] | None = None) -> None:
        self.parts: dict[_PartKey, _Part] = {}
        self.arm_sources: dict[tuple[str, str], set[str]] = {}
        self.sources = sources
        self.rows = 0

    def add(self, row: RowLike) -> None:
        """Add one row."""
        row = as_row(row)
        method, dataset, source = row.method, row.dataset or "", row.source or ""
        key = (method, dataset, source, source == "real" and replayed(row))
        if self.sources is not None:
            key = (method, dataset, self.sources[key], False)
        part = self.parts.get(key)
        if part is None:
            part = self.parts[key] = _Part(method, self.rows)
        part.summary.add(row)
        part.points.add(row)
        if source:
            self.arm_sources.setdefault((method, dataset), set()).add(source)
        self.rows += 1

    def resolved(self) -> dict[_PartKey, str]:
        """The source each part is reported under (``group_sources``' rule)."""
        if self.sources is not None:
            return {key: key[2] for key in self.parts}
        own: dict[_PartKey, str] = {}
        for key in self.parts:
            method, dataset, source, replays = key
            simulated = "simulated" in self.arm_sources.get((method, dataset), ())
            own[key] = "simulated" if source == "real" and simulated and replays else source
        arms: dict[tuple[str, str], set[str]] = {}
        for key, source in own.items():
            if source:
                arms.setdefault((key[0], key[1]), set()).add(source)
        final = {}
        for key, source in own.items():
            arm = arms.get((key[0], key[1]), set())
            final[key] = source or (next(iter(arm)) if len(arm) == 1 else "")
        return final

    def groups(
        self, prices: Mapping[str, float] | None = None
    ) -> tuple[list[Group], list[list[ParetoPoint]]] | None:
        """The groups and their points, as ``build_groups`` and ``group_points`` give them.

        ``None`` where two parts of an arm share a source (read the rows again, see above).
        """
        final = self.resolved()
        placed: dict[str, dict[str, dict[str, _Part]]] = {}
        for key, part in sorted(self.parts.items(), key=lambda item: item[1].first):
            methods = placed.setdefault(final[key], {}).setdefault(key[1], {})
            if key[0] in methods:
                return None
            methods[key[0]] = part
        groups, points = [], []
        for source, datasets in placed.items():
            for dataset, methods in datasets.items():
                summaries = {m: part.summary.summary(prices) for m, part in methods.items()}
                debated = [
                    p.summary for m, p in methods.items() if len(summaries[m]["round_stats"]) > 1
                ]
                overall = MethodTally.pooled_rounds(debated) if len(debated) > 1 else []
                groups.append(Group(source, dataset, summaries, overall))
                points.append(
                    mark_front([pt for m, p in methods.items() for pt in p.points.points(m)])
                )
        return groups, points


@dataclass
class RowFacts:
    """What the report's text counts over all rows.

    Attributes:
        count: Rows read.
        failed: Rows of failed items.
        budget_links: ``(method, budget_of, budget)`` of the first row of each such pair
            (budget-matched arms), in row order.
    """

    count: int = 0
    failed: int = 0
    budget_links: dict[tuple[str, str], str] = field(default_factory=dict)

    def add(self, row: RowLike) -> None:
        """Add one row."""
        row = as_row(row)
        self.count += 1
        self.failed += row.error is not UNSET
        base = row.budget_of
        if base is not None and base is not UNSET:
            link = (row.method, base)
            self.budget_links.setdefault(link, str(row.budget or "calls"))


class ReportPass:
    """Every tally a report reads, fed one row at a time."""

    def __init__(self) -> None:
        self.groups = GroupTally()
        self.comparisons = ComparisonTally()
        self.transitions = TransitionsByArm()
        self.facts = RowFacts()

    def add(self, row: RowLike) -> None:
        """Add one row."""
        row = as_row(row)
        remember_round_turns(row)
        try:
            self.groups.add(row)
            self.comparisons.add(row)
            self.transitions.add(row)
            self.facts.add(row)
        finally:
            remember_round_turns(None)
