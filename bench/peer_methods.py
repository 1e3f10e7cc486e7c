"""The peers' methods against ``du`` and ``sc``: model calls and tokens per item.

The first N bundled GSM8K test items (default 100, ids in file order), default simulated
debaters (seed 0), every method at its paper's default size:

- ``sc``: self-consistency, 5 samples (the project's default k);
- ``du``: Du et al., 3 agents, 2 debate rounds;
- ``self-refine``: 1 agent, at most 4 feedback-and-refine iterations, stopping when the
  feedback finds nothing to fix; and the same with every iteration run (``until_ok=false``);
- ``moa``: 6 proposers, 3 layers (two proposer layers, then the aggregator);
- ``self-moa``: 6 samples of one model, one aggregation; and Self-MoA-Seq with a window of 2;
- ``council``: 4 members, anonymous rankings, a chairman;
- ``mad-judge``: 2 debaters, at most 3 rounds, the judge's adaptive break; and without it.

Per arm, averaged over the items: model calls, input, output and total tokens, and tokens
per call; the min and max calls per item for the methods whose length varies. The debaters
are SIMULATED: token counts are the simulator's estimates of the real prompts the engine
built, so the figures show each method's cost, not its accuracy (none is reported).

Run from the repository root: ``python bench/peer_methods.py [--items 100]``; writes
``bench/RESULTS-peer-methods.md``.
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import statistics
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from debates import debate_all

import debategraph as dg
from debategraph.eval.datasets import load_gsm8k_bundled

CONCURRENCY = 8
RESULTS = Path(__file__).with_name("RESULTS-peer-methods.md")

ARMS: list[tuple[str, dict[str, Any]]] = [
    ("sc, 5 samples", {"method": "sc", "agents": 5}),
    ("du, 3 agents, 2 rounds", {"method": "du", "agents": 3, "rounds": 2}),
    ("self-refine, 1 agent, <= 4 iterations", {"method": "self-refine"}),
    ("self-refine, 4 iterations always", {"method": "self-refine",
                                          "options": {"until_ok": False}}),
    ("moa, 6 proposers x 3 layers", {"method": "moa"}),
    ("self-moa, 6 samples", {"method": "self-moa"}),
    ("self-moa, 6 samples, window 2", {"method": "self-moa", "options": {"window": 2}}),
    ("council, 4 members", {"method": "council"}),
    ("mad-judge, <= 3 rounds, adaptive break", {"method": "mad-judge"}),
    ("mad-judge, 3 rounds, final judgement", {"method": "mad-judge",
                                             "options": {"adaptive_break": False}}),
]  # fmt: skip


@dataclass(frozen=True)
class Figures:
    """One arm's cost per item."""

    calls: float
    calls_min: int
    calls_max: int
    input_tokens: float
    output_tokens: float

    @property
    def total(self) -> float:
        """Input plus output tokens per item."""
        return self.input_tokens + self.output_tokens


def measure(results: list[dg.DebateResult]) -> Figures:
    """Mean calls and tokens per item, and the range of calls."""
    calls = [r.usage["calls"] for r in results]
    return Figures(
        calls=statistics.fmean(calls),
        calls_min=min(calls),
        calls_max=max(calls),
        input_tokens=statistics.fmean(r.usage["input_tokens"] for r in results),
        output_tokens=statistics.fmean(r.usage["output_tokens"] for r in results),
    )


def table(rows: list[tuple[str, Figures]]) -> str:
    """The Markdown table, with each arm's tokens against ``du`` and ``sc``."""
    by = dict(rows)
    du = next(f for label, f in rows if label.startswith("du"))
    sc = next(f for label, f in rows if label.startswith("sc"))
    lines = [
        "| arm | calls / item (min-max) | input tokens / item | output tokens / item "
        "| total tokens / item | tokens / call | vs sc | vs du |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for label, f in by.items():
        span = "" if f.calls_min == f.calls_max else f" ({f.calls_min}-{f.calls_max})"
        lines.append(
            f"| {label} | {f.calls:.2f}{span} | {f.input_tokens:,.0f} | {f.output_tokens:,.0f} "
            f"| {f.total:,.0f} | {f.total / f.calls:,.0f} | {f.total / sc.total:.2f}x "
            f"| {f.total / du.total:.2f}x |"
        )
    return "\n".join(lines)


def report(rows: list[tuple[str, Figures]], items: int, seconds: float, cpu: float) -> str:
    """The results file."""
    today = datetime.now(UTC).date().isoformat()
    return f"""# The peers' methods against du and sc: calls and tokens per item

Command: `python bench/peer_methods.py --items {items}` (from the repository root).
Date: {today}. Machine: {platform.platform()}, Python {platform.python_version()}.
Time for every arm: {seconds:.0f} s wall, {cpu:.0f} s CPU; debates run concurrently with
asyncio ({CONCURRENCY} at a time) through `debategraph.arun`. The figures are token and call
counts, which do not depend on the machine or its load.

**SIMULATED.** The agents are the offline simulated debaters (`SimulatedDebater`, default
profiles, seed 0), not language models. Token counts are the simulator's estimates
(`estimate_tokens`) of the real prompts the engine built, so the *cost* of each method is
faithful to its plan; no accuracy is reported, because the simulator's is not evidence about
any LLM. Where a method's length depends on its replies (self-refine's stop, mad-judge's
adaptive break), the spread of calls per item shows how the simulated replies ended it.

- Items: the first {items} bundled GSM8K test items, in file order, the same in every arm.
- Sizes: each method at its paper's default (see `docs/methods/`): `sc` k = 5, `du` 3 × 2
  rounds, Self-Refine ≤ 4 iterations, MoA 6 × 3 layers, Self-MoA 6 samples, council of 4,
  MAD with a judge ≤ 3 rounds.

{table(rows)}
"""


async def main(items: int) -> None:
    """Run every arm on the first ``items`` GSM8K items and write the results file."""
    chosen = load_gsm8k_bundled()[:items]
    start, cpu = time.perf_counter(), time.process_time()
    rows = []
    for label, settings in ARMS:
        results = await debate_all(chosen, {"seed": 0, **settings}, concurrency=CONCURRENCY)
        rows.append((label, measure(results)))
        print(f"{label}: {rows[-1][1]}", file=sys.stderr)
    text = report(rows, items, time.perf_counter() - start, time.process_time() - cpu)
    RESULTS.write_text(text, encoding="utf-8")
    print(table(rows))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=100)
    asyncio.run(main(parser.parse_args().items))
