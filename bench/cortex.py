"""CortexDebate benchmark: context length per agent call, cortex vs du, on simulated debaters.

The first 50 bundled GSM8K test items (ids gsm8k-test-0000 to gsm8k-test-0049), five default
simulated debaters (seed 0), at most D = 5 debate rounds. Arms:

- ``du``: Du et al. debate as shipped (own chat history, reads all 4 peers, all 5 rounds);
- ``du``, stopping at consensus like cortex does;
- ``cortex`` with ``prune="all"``: stateless and fully connected (Table 2's first row);
- ``cortex``: the paper's method with our defaults (sparse graph, mean rule).

Per arm: the average input tokens per agent call (all calls, and debate-round calls only),
total tokens, debate rounds used, the mean number of opponents read per agent per debate
round, and accuracy. Accuracy is SIMULATED: the debaters replay real GPT-3 solutions as
initial answers but debate by rule, so it describes the simulator, not an LLM.

Run from the repository root: ``python bench/cortex.py``; writes ``bench/RESULTS-cortex.md``.
"""

from __future__ import annotations

import asyncio
import os
import platform
import statistics
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
AGENTS = 5
ROUNDS = 5
CONCURRENCY = 16
RESULTS = Path(__file__).with_name("RESULTS-cortex.md")

ARMS: list[tuple[str, dict[str, Any]]] = [
    ("du (history, all peers, 5 rounds)", {"method": "du"}),
    ("du, stop at consensus", {"method": "du", "stop_on_consensus": True}),
    ("cortex, prune=all (stateless, fully connected)", {"method": "cortex",
                                                       "options": {"prune": "all"}}),
    ("cortex (sparse, mean rule; defaults)", {"method": "cortex"}),
]  # fmt: skip


async def run_arm(items: Sequence[Any], settings: dict[str, Any]) -> list[dg.DebateResult]:
    """One debate per item, at most ``CONCURRENCY`` at a time."""
    return await debate_all(
        items, {"agents": AGENTS, "rounds": ROUNDS, "seed": 0, **settings}, concurrency=CONCURRENCY
    )


def measure(results: Sequence[dg.DebateResult]) -> dict[str, Any]:
    """The figures of one arm, over all its debates."""
    turns = [t for r in results for t in r.turns]
    debate = [t for t in turns if t["round"] >= 1]
    opponents = [
        sum(not i.endswith(f":{t['agent']}") for i in t["reads"]) for t in debate
    ]  # own output, if shown, is not an opponent
    return {
        "calls": len(turns),
        "in_per_call": sum(t["input_tokens"] for t in turns) / len(turns),
        "in_per_debate_call": sum(t["input_tokens"] for t in debate) / max(len(debate), 1),
        "total": sum(r.usage["total_tokens"] for r in results),
        "rounds": statistics.mean(r.rounds for r in results),
        "opponents": statistics.mean(opponents) if opponents else 0.0,
        "right": sum(bool(r.correct) for r in results),
        "no_answer": sum(r.answer is None for r in results),
        "unparsed": sum(r.method_state.get("unparsed_confidences", 0) for r in results),
    }


def table(rows: list[tuple[str, dict[str, Any]]]) -> str:
    """Markdown table; ratios are against the first row (``du`` as shipped)."""
    base = rows[0][1]
    lines = [
        "| arm | calls | avg input tokens / call | vs du | avg input tokens / debate-round "
        "call | total tokens | debate rounds (mean) | opponents read / agent / round "
        "| accuracy (SIMULATED) | no answer |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for label, m in rows:
        lines.append(
            f"| {label} | {m['calls']:,} | {m['in_per_call']:,.1f} "
            f"| {m['in_per_call'] / base['in_per_call']:.2f}x | {m['in_per_debate_call']:,.1f} "
            f"| {m['total']:,} | {m['rounds']:.2f} | {m['opponents']:.2f} "
            f"| {m['right'] / ITEMS:.0%} ({m['right']}/{ITEMS}) | {m['no_answer']} |"
        )
    return "\n".join(lines)


def report(rows: list[tuple[str, dict[str, Any]]], wall: float) -> str:
    """The whole results file."""
    python = platform.python_version()
    machine = f"{os.cpu_count()} CPU cores, {platform.platform()}, Python {python}"
    cortex, du = rows[-1][1], rows[0][1]
    du_stop, full = rows[1][1], rows[2][1]
    ratio = cortex["in_per_call"] / du["in_per_call"]
    ratio_stop = cortex["in_per_call"] / du_stop["in_per_call"]
    unparsed = cortex["unparsed"]
    return f"""# CortexDebate benchmark

Command: `python bench/cortex.py` (from the repository root, package installed).
Date: {datetime.now(UTC):%Y-%m-%d}. Machine: {machine}.
Wall time: {wall:.0f} s for all four arms; debates run concurrently with asyncio
({CONCURRENCY} at a time) through `debategraph.arun`.

**SIMULATED.** The agents are the offline simulated debaters (`SimulatedDebater`, default
profiles, seed 0), not language models. Token counts are the simulator's estimates
(`estimate_tokens`) of the real prompts the engine built, so the *context lengths* are
faithful to the methods; the accuracy is not evidence about any LLM.

- Items: the first {ITEMS} bundled GSM8K test items, in file order (ids `gsm8k-test-0000` to
  `gsm8k-test-{ITEMS - 1:04d}`), the same items and agents in every arm.
- Agents: {AGENTS} default simulated debaters (a1..a5 replay 6b_finetuning, 6b_verification,
  175b_finetuning, 175b_verification, 6b_finetuning as initial answers), at most D = {ROUNDS}
  debate rounds after the initial answers.
- `cortex`: default `CortexOptions` (thresholds 0.8/0.6/0.3, add-one smoothing, P = heads
  read, mean rule, offline hashing embeddings), stops at consensus, majority vote with "no
  answer" when all answers differ. Unparsed confidences in the cortex arm: {unparsed}.
- Averages per call count every agent call, the initial round included. "Opponents read"
  is averaged over the debate-round calls.

{table(rows)}

**Result.** CortexDebate's average input per agent call is {ratio:.2f}x that of `du` as
shipped ({1 - ratio:.0%} shorter; target at most 0.5x; the paper reports up to 70.79% shorter
contexts), and {ratio_stop:.2f}x that of `du` stopped at consensus. Stateless calls alone
(no own chat history, the `prune=all` row) give {full["in_per_call"] / du["in_per_call"]:.2f}x;
the sparse graph then cuts the opponents read from 4 to {cortex["opponents"]:.2f} per agent per
round. The simulated accuracy is reported for completeness only (see above).
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
