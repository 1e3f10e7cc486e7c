"""The report's Markdown: tables in the papers' shape, and the whole ``report.md``.

The results table per (source, dataset) group, the per-round table, the answer-extraction
table and the spending table.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from debategraph.eval.analysis.dynamics import RoundStats
from debategraph.eval.analysis.metrics import MethodSummary, Row
from debategraph.eval.analysis.report_pass import RowFacts
from debategraph.eval.analysis.results import SIMULATED_NOTE, SOURCE_TITLES, Group
from debategraph.eval.report.bill_table import bill_section
from debategraph.eval.report.cells import number_cell
from debategraph.eval.report.seeds_table import seeds_section

_COLUMNS = (
    ("Method", "left"),
    ("n", "right"),
    ("Accuracy % (95% CI)", "right"),
    ("maj@k %", "right"),
    ("Abstain %", "right"),
    ("Tokens/item", "right"),
    ("Reasoning tok/item", "right"),
    ("Input tok/call", "right"),
    ("Calls/item", "right"),
    ("NComm/item", "right"),
    ("Rounds", "right"),
    ("Wall s/item", "right"),
    ("Failed", "right"),
)


def _accuracy_cell(s: MethodSummary) -> str:
    if s["n"] == 0:
        return "—"
    low, high = number_cell(s["ci_low"], ".1f", 100), number_cell(s["ci_high"], ".1f", 100)
    return f"{number_cell(s['accuracy'], '.1f', 100)} ({low}–{high})"


def _maj_cell(s: MethodSummary) -> str:
    if s["vote_k"] is None or math.isnan(s["maj_at_k"]):
        return "—"
    return f"{number_cell(s['maj_at_k'], '.1f', 100)} (k={s['vote_k']})"


def _reasoning_cell(s: MethodSummary) -> str:
    """Reasoning tokens per item; blank where no provider stated any."""
    reasoning = s.get("reasoning_tokens")
    if reasoning is None or s["n"] == 0:
        return ""
    return number_cell(reasoning / s["n"], ",.0f")


def table_row(s: MethodSummary, *, with_cost: bool = False) -> list[str]:
    """The cells of one method's line of the results table.

    Args:
        s: The method's summary.
        with_cost: Whether to append the cost per item column.

    Returns:
        Cells in the order of the table header.
    """
    cells = [
        s["method"],
        str(s["n"]),
        _accuracy_cell(s),
        _maj_cell(s),
        number_cell(s["abstention_rate"], ".1f", 100),
        number_cell(s["total_tokens_per_item"], ",.0f"),
        _reasoning_cell(s),
        number_cell(s["input_tokens_per_call"], ",.1f"),
        number_cell(s["calls_per_item"], ".1f"),
        number_cell(s["ncomm_per_item"], ".1f"),
        number_cell(s["rounds_mean"], ".2f"),
        number_cell(s["wall_s_mean"], ".2f"),
        str(s["failed"]),
    ]
    if with_cost:
        cells.append(number_cell(s["cost_per_item"], ".5f"))
    return cells


def _markdown_table(header: Sequence[str], aligns: Sequence[str], body: list[list[str]]) -> str:
    rule = ["---:" if align == "right" else "---" for align in aligns]
    lines = [header, rule, *body]
    return "\n".join("| " + " | ".join(cells) + " |" for cells in lines)


def results_table(summaries: Mapping[str, MethodSummary], *, with_cost: bool = False) -> str:
    """The Markdown table comparing methods (one line per method).

    Args:
        summaries: Method -> summary.
        with_cost: Whether to add a ``Cost $/item`` column.

    Returns:
        The table.
    """
    header = [name for name, _ in _COLUMNS]
    aligns = [align for _, align in _COLUMNS]
    if with_cost:
        header.append("Cost $/item")
        aligns.append("right")
    body = [table_row(s, with_cost=with_cost) for s in summaries.values()]
    return _markdown_table(header, aligns, body)


def per_round_table(
    summaries: Mapping[str, MethodSummary], overall: Sequence[RoundStats] = ()
) -> str:
    """Markdown table of what each round did, per method that debated, and over them all.

    Rows per method: the round's majority accuracy, consensus (with two agents or more), the
    share of the agents' answers that are right, and the flips since the previous round
    (right to wrong, wrong to right, wrong to another wrong answer, and to or from abstaining).
    ``overall`` (the methods' debates pooled, see ``Group.overall_rounds``) adds the same
    rows, consensus aside, as "all debates".

    Args:
        summaries: Method -> summary.
        overall: The pooled rounds, or nothing.

    Returns:
        The table, or ``""`` when no method recorded more than one round.
    """
    debated = [s for s in summaries.values() if len(s["round_stats"]) > 1]
    width = max((len(s["round_stats"]) for s in debated), default=0)
    if width == 0:
        return ""
    header = ["Method", "Per round", *(f"Round {k}" for k in range(width))]
    body = []
    tables: list[tuple[str, list[RoundStats], list[float] | None]] = [
        (s["method"], s["round_stats"], s["consensus_by_round"]) for s in debated
    ]
    if overall:
        tables.append(("all debates", list(overall), None))
    for method, stats, consensus in tables:
        lines: list[tuple[str, list[str]]] = [
            (
                "majority accuracy %",
                [number_cell(r["majority_accuracy"], ".1f", 100) for r in stats],
            ),
        ]
        if consensus is not None:
            lines.append(("consensus %", [number_cell(v, ".1f", 100) for v in consensus]))
        lines.append(
            ("agents right %", [number_cell(r["agents_right"], ".1f", 100) for r in stats])
        )
        for label, kinds in _FLIP_ROWS:
            lines.append(
                (label, ["—"] + [str(sum(r["flips"][k] for k in kinds)) for r in stats[1:]])
            )
        for label, cells in lines:
            body.append([method, label, *cells, *["—"] * (width - len(cells))])
    return _markdown_table(header, ["left", "left", *["right"] * width], body)


_FLIP_ROWS = (
    ("right → wrong", ("right_to_wrong",)),
    ("wrong → right", ("wrong_to_right",)),
    ("wrong → other wrong", ("wrong_to_other_wrong",)),
    ("→ abstain", ("right_to_abstain", "wrong_to_abstain")),
    ("abstain →", ("abstain_to_right", "abstain_to_wrong")),
)


def debate_vs_vote_table(summaries: Mapping[str, MethodSummary]) -> str:
    """Markdown table: each debate's final answer beside the vote of its own round 0.

    The vote at round 0 is the majority of the same agents' initial answers, which the debate
    paid for anyway: the difference is what debating added (or cost) on these items.

    Args:
        summaries: Method -> summary.

    Returns:
        The table, or ``""`` when no method debated.
    """
    debated = [s for s in summaries.values() if len(s["round_stats"]) > 1]
    if not debated:
        return ""
    header = ["Method", "n", "Final %", "Vote at round 0 %", "Δ points", "Right → wrong",
              "Wrong → right", "Tokens/item", "Round-0 tokens/item"]  # fmt: skip
    body = []
    for s in debated:
        vote = s["vote_at_round0"]
        delta = vote["final_accuracy"] - vote["accuracy"]
        body.append(
            [
                s["method"],
                str(vote["n"]),
                number_cell(vote["final_accuracy"], ".1f", 100),
                number_cell(vote["accuracy"], ".1f", 100),
                number_cell(delta, "+.1f", 100),
                str(s["flips"]["right_to_wrong"]),
                str(s["flips"]["wrong_to_right"]),
                number_cell(s["total_tokens_per_item"], ",.0f"),
                number_cell(vote["tokens_per_item"], ",.0f"),
            ]
        )
    return _markdown_table(header, ["left", *["right"] * (len(header) - 1)], body)


def row_facts(rows: Sequence[Row]) -> RowFacts:
    """What the report's text counts over ``rows``."""
    facts = RowFacts()
    for row in rows:
        facts.add(row)
    return facts


def budget_table(summaries: Mapping[str, MethodSummary], rows: Sequence[Row] | RowFacts) -> str:
    """Markdown table of every budget-matched arm beside the arm whose budget it spent.

    Args:
        summaries: Method -> summary.
        rows: The rows (budget-matched rows name their base in ``budget_of``), or what a
            pass over them found (:class:`~debategraph.eval.analysis.report_pass.RowFacts`).

    Returns:
        The table, or ``""`` without budget-matched arms.
    """
    facts = rows if isinstance(rows, RowFacts) else row_facts(rows)
    pairs: dict[str, tuple[str, str]] = {}
    for (method, base), budget in facts.budget_links.items():
        if method in summaries and base in summaries:
            pairs.setdefault(method, (base, budget))
    if not pairs:
        return ""
    header = ["Voting arm", "Matched", "Accuracy %", "Tokens/item", "Calls/item",
              "Debate", "Accuracy %", "Tokens/item", "Calls/item"]  # fmt: skip
    body = []
    for label, (base, budget) in pairs.items():
        cells = [label, budget]
        for name, s in ((None, summaries[label]), (base, summaries[base])):
            if name is not None:
                cells.append(name)
            cells += [
                number_cell(s["accuracy"], ".1f", 100),
                number_cell(s["total_tokens_per_item"], ",.0f"),
                number_cell(s["calls_per_item"], ".1f"),
            ]
        body.append(cells)
    return _markdown_table(header, ["left", "left", "right", "right", "right", "left",
                                    "right", "right", "right"], body)  # fmt: skip


def extraction_table(summaries: Mapping[str, MethodSummary]) -> str:
    """Markdown table of how answers were found, per method.

    Columns: answer turns, the share declared, the share from the fallback (a guess such as
    the last number), the share without an answer (cut-off replies included), how many
    replies ended inside the model's thinking (``cut_off``) and how many rows record the
    sources. A method
    whose rows do not record ``answer_sources`` shows ``—`` (unknown, not zero).

    Args:
        summaries: Method -> summary.

    Returns:
        The table, or ``""`` when no method records answer sources.
    """
    if all(s["answer_sources"] is None for s in summaries.values()):
        return ""
    header = ["Method", "Answer turns", "Declared %", "Fallback %", "No answer %", "Cut off",
              "Rows known"]  # fmt: skip
    body = []
    for s in summaries.values():
        sources, turns = s["answer_sources"], s["answer_turns"]
        declared = sources["declared"] / turns if sources and turns else None
        body.append(
            [
                s["method"],
                "—" if turns is None else f"{turns:,}",
                number_cell(declared, ".1f", 100),
                number_cell(s["fallback_rate"], ".1f", 100),
                number_cell(s["turn_abstention_rate"], ".1f", 100),
                "—" if sources is None else f"{sources.get('cut_off', 0):,}",
                f"{s['answer_sources_rows']}/{s['n']}",
            ]
        )
    return _markdown_table(header, ["left", *["right"] * 6], body)


def _sources_line(groups: Sequence[Group]) -> str:
    counts: dict[str, int] = {}
    for group in groups:  # every row is in one group, under the source it is reported under
        rows = sum(s["n"] + s["failed"] for s in group.summaries.values())
        counts[group.source] = counts.get(group.source, 0) + rows
    if set(counts) == {""}:
        return "Rows do not say whether they come from simulated models or real outputs."
    parts = []
    for source, count in counts.items():
        methods = sorted({m for g in groups if g.source == source for m in g.summaries})
        title = SOURCE_TITLES.get(source, source).lower()
        parts.append(f"{title}: {count} rows ({', '.join(methods)})")
    line = "Rows by source: " + "; ".join(parts) + "."
    return f"{line} {SIMULATED_NOTE}" if "simulated" in counts else line


def _asked_confidence(gate: Mapping[str, Any]) -> str:
    """What a ``confidence>C`` gate changes: the wrapped method's round-0 prompts."""
    if not str(gate.get("rule", "")).startswith("confidence"):
        return ""
    return (
        "; this rule asks every agent for a confidence, so its round 0 is not the ungated "
        "method's: other prompts, more tokens (docs/methods/gate.md, Cost)"
    )


def _stopped_anyway(gate: Mapping[str, Any]) -> str:
    """The items a gate let through on which the method itself stopped at round 0."""
    stopped = (gate.get("passed") or gate["debated"]) - gate["debated"]
    return f"; {stopped} more passed the gate and stopped at round 0" if stopped else ""


def spending_table(summaries: Mapping[str, MethodSummary]) -> str:
    """Requests, failed requests and wasted tokens per method (rows that record them)."""
    body = []
    for s in summaries.values():
        if s["requests"] is None:
            continue
        body.append(
            [
                s["method"],
                f"{s['requests']:,}",
                f"{s['bill']['paid_calls']:,}",  # a replayed call made no request
                f"{s['failed_requests']:,}",
                f"{s['wasted_tokens']:,}",
                f"{s['failed_item_tokens']:,}",
                str(s["failed"]),
            ]
        )
    header = ["Method", "Requests", "Calls kept", "Failed requests", "Wasted tokens",
              "of which failed items", "Failed items"]  # fmt: skip
    return _markdown_table(header, ["left"] + ["right"] * 6, body)


def render_markdown(
    groups: Sequence[Group],
    rows: Sequence[Row] | RowFacts,
    *,
    files: Sequence[str],
    problems: Sequence[str],
    plots: Sequence[str],
    with_cost: bool = False,
    rows_line: str = "",
    pareto: str = "",
    comparisons: Sequence[str] = (),
) -> str:
    """The whole ``report.md`` text.

    Args:
        groups: Summaries per (source, dataset).
        rows: All rows read, or what a pass over them found (:class:`~debategraph.eval.
            analysis.report_pass.RowFacts`).
        files: Names of the results files read.
        problems: Unreadable lines that were skipped.
        plots: File names of the plots written next to the report.
        with_cost: Whether tables get a cost column.
        rows_line: A sentence saying how many rows the figures rest on.
        pareto: The compute-Pareto section (:mod:`debategraph.eval.report.pareto_table`), or "".
        comparisons: Lines of the paired comparisons' section, placed after the budget
            table (see :mod:`debategraph.eval.report.comparison_table`).

    Returns:
        Markdown text.
    """
    facts = rows if isinstance(rows, RowFacts) else row_facts(rows)
    out = _intro(groups, facts, files, rows_line)
    for group in groups:
        out += _group_section(group, with_cost=with_cost)
    out += _budget_section(groups, facts)
    out += comparisons
    out += _spending_section(groups)
    out += bill_section(groups, with_cost=with_cost)
    if pareto:
        out += ["", pareto]
    if plots:
        out += ["", "## Plots", ""]
        out += [f"![{Path(name).stem.replace('_', ' ')}]({name})" for name in plots]
    if problems:
        out += ["", f"## Lines left out ({len(problems)})", ""]
        out += [f"- {problem}" for problem in problems]
    return "\n".join(out) + "\n"


def _intro(
    groups: Sequence[Group], facts: RowFacts, files: Sequence[str], rows_line: str
) -> list[str]:
    """The report's title, what it rests on, and how to read the method tables."""
    failed = facts.failed
    return [
        "# Evaluation report",
        "",
        f"{facts.count} result rows from {len(files)} file(s): {', '.join(files)}. "
        f"{failed} failed item(s) are counted in *Failed* and left out of every other column."
        + (f" {rows_line}" if rows_line else ""),
        "",
        _sources_line(groups),
        "",
        "Accuracy counts abstentions as wrong; the interval is the 95% Wilson interval. "
        "maj@k is the accuracy of the majority vote of the initial round's k independent "
        "answers (sc's samples, mav's agents: their accuracy; a debate: the vote it started "
        "from). "
        "Tokens/item is input + output tokens of every call (agents, summaries, evaluators); "
        "Reasoning tok/item is the part of the output spent thinking, where the provider "
        "states it (blank where none did); "
        "Input tok/call is total input tokens / calls; NComm counts pairwise context "
        "transfers; Rounds follows each method's own convention.",
    ]


def _group_section(group: Group, *, with_cost: bool) -> list[str]:
    """One (source, dataset) group's tables: methods, gates, screens, seeds, rounds, answers."""
    out = ["", f"## {group.title}", "", results_table(group.summaries, with_cost=with_cost)]
    out += _gates_and_screens(group.summaries)
    out += seeds_section(group.summaries)
    versus = debate_vs_vote_table(group.summaries)
    if versus:
        out += [
            "",
            "Did debating help? Each debate's final answer beside the majority vote of its "
            "own round-0 answers (no extra call; Δ = final − vote, in points). Flips count "
            "agents' answers changing between consecutive rounds, all rounds added up:",
            "",
            versus,
        ]
    rounds = per_round_table(group.summaries, group.overall_rounds)
    if rounds:
        out += [
            "",
            "Per round (majority vote, first-seen tie-break; consensus = all agents agree; "
            "agents right = share of the agents' answers that are right; flips since the "
            "previous round):",
            "",
            rounds,
        ]
    extraction = extraction_table(group.summaries)
    if extraction:
        out += [
            "",
            "Answer extraction (per answer turn: declared answer, fallback guess such as "
            "the last number, or no answer, of which Cut off counts the replies that ended "
            "inside the model's thinking; — = not recorded):",
            "",
            extraction,
        ]
    return out


def _gates_and_screens(summaries: Mapping[str, MethodSummary]) -> list[str]:
    """What the gated arms debated, and what screening for contested items skipped."""
    out: list[str] = []
    gates = [(s["method"], s["gate"]) for s in summaries.values() if s["gate"]]
    if gates:
        out += ["", "Gates (round 0 is always paid; the debate only when the gate fires):"]
        out += [""] + [
            f"- {method}: debated {gate['debated']} of {gate['items']} items "
            f"(gate {gate['rule']}){_stopped_anyway(gate)}{_asked_confidence(gate)}"
            for method, gate in gates
        ]
    screens = [(s["method"], s["screen"]) for s in summaries.values() if s["screen"]]
    for method, screen in screens:
        contested = screen["items"] - screen["settled"]
        out += [
            "",
            f"Only contested items: {method} screened {screen['items']} items by their "
            f"round-0 answers; {screen['settled']} were settled (every agent gave the same "
            f"answer) and skipped by the other methods, whose figures rest on the "
            f"{contested} contested ones. On those, {method}'s vote scores "
            f"{number_cell(screen['contested_accuracy'], '.1f', 100)}%.",
        ]
    return out


def _budget_section(groups: Sequence[Group], rows: RowFacts) -> list[str]:
    """Budget-matched voting beside its debate, over every group."""
    every: dict[str, MethodSummary] = {}
    for group in groups:  # a voting arm may read as real outputs, its debate as simulated
        for label, summary in group.summaries.items():
            every.setdefault(label, summary)
    budgets = budget_table(every, rows)
    if not budgets:
        return []
    return [
        "",
        "## Budget matching",
        "",
        "Budget-matched voting beside the debate whose budget it spent on each item (calls: "
        "one sample per model call of the debate; tokens: as many samples as the debate's "
        "tokens buy, priced by its own round-0 answers):",
        "",
        budgets,
    ]


def _spending_section(groups: Sequence[Group]) -> list[str]:
    """Requests, failures and wasted tokens, per group that records them."""
    spending = [g for g in groups if any(s["requests"] is not None for s in g.summaries.values())]
    if not spending:
        return []
    out = [
        "",
        "## Spending on the provider",
        "",
        "Requests include retries; failed requests are errors and rejected replies (e.g. "
        "empty); wasted tokens are those of replies that arrived but were not used, "
        "failed items included (the cost counts them: they were paid). Calls kept are the "
        "paid ones (calls replayed from the cache made no request).",
    ]
    for group in spending:
        out += ["", f"{group.title}:", "", spending_table(group.summaries)]
    return out
