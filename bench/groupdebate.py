"""GroupDebate benchmark: total tokens of groupdebate vs summarised du, on simulated debaters.

The first 50 bundled GSM8K test items (ids gsm8k-test-0000 to gsm8k-test-0049), six default
simulated debaters (seed 0), T = 4 total rounds (the initial answer and 3 debate rounds),
R = 2 rounds per stage. Arms:

- ``du-sum``: Du et al. with per-agent summaries, agents keep their history (the paper's MAD);
- ``groupdebate`` with groups (2, 2, 2) and with groups (3, 3), seeded random split;
- for reference, ``chateval`` (one shared summary per round) and plain ``du``.

Per arm: model calls (and the paper's call formula), total tokens and the ratio to
``du-sum``, the paper's formula total (Eq. 3 / Eq. 5) with the instruction tokens and repeated
questions that the measured total has on top, and accuracy. Accuracy is SIMULATED: the
debaters replay real GPT-3 solutions as initial answers but debate by rule.

Run from the repository root: ``python bench/groupdebate.py``; writes
``bench/RESULTS-groupdebate.md``.
"""

from __future__ import annotations

import asyncio
import os
import platform
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from debates import debate_all, run_table

import debategraph as dg
from debategraph.eval.datasets import load_gsm8k_bundled

ITEMS = 50
AGENTS = 6
ROUNDS = 3  # T = 4
CONCURRENCY = 16
RESULTS = Path(__file__).with_name("RESULTS-groupdebate.md")

ARMS: list[tuple[str, dict[str, Any]]] = [
    ("du-sum (summarised MAD, history kept)", {"method": "du-sum"}),
    ("groupdebate, groups (2,2,2)", {"method": "groupdebate", "options": {"groups": (2, 2, 2)}}),
    ("groupdebate, groups (3,3)", {"method": "groupdebate", "options": {"groups": (3, 3)}}),
    ("chateval (one shared summary per round)", {"method": "chateval"}),
    ("du (no summaries, history kept)", {"method": "du"}),
]


async def run_arm(items: Sequence[Any], settings: dict[str, Any]) -> list[dg.DebateResult]:
    """One debate per item, at most ``CONCURRENCY`` at a time."""
    return await debate_all(
        items, {"agents": AGENTS, "rounds": ROUNDS, "seed": 0, **settings}, concurrency=CONCURRENCY
    )


def measure(results: Sequence[dg.DebateResult]) -> dict[str, Any]:
    """The figures of one arm, over all its debates."""
    splits = [r.method_state.get("paper_tokens") for r in results]
    paper = all(s is not None for s in splits)
    summary_tokens = sum(
        t["input_tokens"] + t["output_tokens"]
        for r in results
        for t in r.turns
        if t["kind"] == "summary"
    )

    def paper_sum(*keys: str) -> int | None:
        if not paper:
            return None
        total = 0
        for split in splits:
            value: Any = split
            for key in keys:
                value = value[key]
            total += value
        return total

    return {
        "calls": sum(r.usage["calls"] for r in results),
        "formula_calls": paper_sum("formula_calls"),
        "total": sum(r.usage["total_tokens"] for r in results),
        "summary_tokens": summary_tokens,
        "formula": paper_sum("formula", "total"),
        "instruction": paper_sum("instruction"),
        "repeated": paper_sum("repeated_question"),
        "right": sum(bool(r.correct) for r in results),
        "no_answer": sum(r.answer is None for r in results),
    }


def _n(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


def table(rows: list[tuple[str, dict[str, Any]]]) -> str:
    """Markdown table; ratios are against the first row (``du-sum``)."""
    base = rows[0][1]
    lines = [
        "| arm | calls (formula) | total tokens | vs du-sum | summary-call tokens "
        "| paper formula | + instruction | + repeated question | accuracy (SIMULATED) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for label, m in rows:
        calls = f"{m['calls']:,}" + (f" ({m['formula_calls']:,})" if m["formula_calls"] else "")
        lines.append(
            f"| {label} | {calls} | {m['total']:,} | {m['total'] / base['total']:.2f}x "
            f"| {m['summary_tokens']:,} | {_n(m['formula'])} | {_n(m['instruction'])} "
            f"| {_n(m['repeated'])} | {m['right'] / ITEMS:.0%} ({m['right']}/{ITEMS}) |"
        )
    return "\n".join(lines)


def report(rows: list[tuple[str, dict[str, Any]]], wall: float) -> str:
    """The whole results file."""
    python = platform.python_version()
    machine = f"{os.cpu_count()} CPU cores, {platform.platform()}, Python {python}"
    mad, gd222, gd33 = rows[0][1], rows[1][1], rows[2][1]
    r222, r33 = gd222["total"] / mad["total"], gd33["total"] / mad["total"]
    f222, f33 = gd222["formula"] / mad["formula"], gd33["formula"] / mad["formula"]
    return f"""# GroupDebate benchmark

Command: `python bench/groupdebate.py` (from the repository root, with this checkout's
`debategraph` importable, e.g. `PYTHONPATH=src python bench/groupdebate.py`).
Date: {datetime.now(UTC):%Y-%m-%d}. Machine: {machine}.
Wall time: {wall:.0f} s for all {len(rows)} arms; debates run concurrently with asyncio
({CONCURRENCY} at a time) through `debategraph.arun`.

**SIMULATED.** The agents are the offline simulated debaters (`SimulatedDebater`, default
profiles, seed 0), not language models; the summariser is the first agent's model. Token
counts are the simulator's estimates (`estimate_tokens`) of the real prompts the engine built,
so the *token totals* are faithful to the methods' prompts and call structure; the accuracy
is not evidence about any LLM.

- Items: the first {ITEMS} bundled GSM8K test items, in file order (ids `gsm8k-test-0000` to
  `gsm8k-test-{ITEMS - 1:04d}`), the same items and agents in every arm.
- {AGENTS} agents, T = {ROUNDS + 1} total rounds (`--rounds {ROUNDS}`), R = 2 rounds per stage
  (so S = 2 stages: the group summaries are written once, before round t = 3). Groups are a
  seeded random split (seed 0) of the given sizes.
- "calls (formula)": model calls, with the paper's count in brackets (GroupDebate
  `M·T + N·(S−1)`, summarised MAD `M·T + M·(T−1)`), summed over the items.
- "paper formula": Eq. 5 (GroupDebate) or Eq. 3 (summarised MAD) evaluated on the measured
  output length of every answer and summary, summed over the items. The measured total is
  exactly the formula + the instruction tokens (our prompt wording, labels and fences) + the
  question repeated in the chat history (summarised MAD re-sends its earlier prompts, each
  with the question, where the paper counts `Q` once per call).

{table(rows)}

**Result.** GroupDebate's total tokens are {r222:.2f}x (groups 2,2,2) and {r33:.2f}x (groups 3,3)
those of summarised `du` ({1 - r222:.0%} and {1 - r33:.0%} fewer; target at most 0.6x; the paper
reports 41.7% / 42.6% / 50.6% fewer on Arithmetic / GSM8K / MMLU at 6 agents and 4 rounds,
Table 1).
On the paper's own formulas, without our instruction wording, the ratios are {f222:.2f}x and
{f33:.2f}x. Finer groups cost less, as the paper's Fig. 7 reports.

**About the simulated accuracy.** The simulated debater takes from a summary only the answer
the summary puts in parentheses (the majority of what it summarised), so a right minority
answer disappears from its view; in GroupDebate's intra-group rounds agents still read their
group members' whole answers, and in `du` everyone's. That, not anything about language
models, is why the summarising arms score lower here.
"""


async def main() -> None:
    """Run every arm, print the table, write the results file."""
    await run_table(
        ARMS,
        load_gsm8k_bundled()[:ITEMS],
        run_arm=run_arm,
        measure=measure,
        table=table,
        report=report,
        results=RESULTS,
    )


if __name__ == "__main__":
    asyncio.run(main())
