"""S²-MAD benchmark: total tokens vs all-to-all ``du`` and GroupDebate; SID-ET and the gate.

The first 100 bundled GSM8K test items (ids gsm8k-test-0000 to gsm8k-test-0099), six default
simulated debaters (seed 0), at most two debate rounds, as in SVR-MAD's comparison (§5,
App. A), which also skips the items on which all six initial answers agree: the filter is a
multi-agent vote (``mav``, the same six agents, initial answers only). Arms:

- ``du``: Du et al. all-to-all debate, 2 debate rounds (the token baseline, 1.00x);
- ``groupdebate`` with groups (3, 3), 2 rounds (the second baseline);
- ``s2mad`` with its defaults (answer equivalence, groups (3, 3), stop at consensus), with
  SVR-MAD's early stop at 5 of 6 agents, with one group of six (no grouping), and with
  response-embedding similarity (hashing embeddings) at thresholds 0.9 (default) and 0.75;
- ``svr`` with its defaults (the reference SID-ET is tuned against in SVR-MAD);
- ``sid-et``: the per-debate threshold (min-LL above -2.5), and ``mode=record`` from which
  SID-ET at the skip rate chosen by SVR-MAD's Alg. 2 against ``svr`` is computed offline
  (``debategraph.policies.sid_et``; no extra calls);
- a second table on all 100 items (none skipped, since a gate matters most where round 0
  already agrees): ``du``, ``groupdebate`` and ``s2mad`` as above, and ``du`` and
  ``groupdebate`` behind the gate (``unanimous``, ``entropy<1``).

Per arm, averaged over the kept items: NComm, total tokens (input + output of every call),
model calls, rounds, and accuracy. Accuracy is SIMULATED: the debaters replay real GPT-3
solutions as initial answers but debate by rule. Token counts are the simulator's estimates
of the real prompts, so the communication and context costs are the methods'.

Run from the repository root: ``python bench/s2mad.py``; writes ``bench/RESULTS-s2mad.md``.
"""

from __future__ import annotations

import asyncio
import os
import platform
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from debates import debate_all

import debategraph as dg
from debategraph.eval.datasets import load_gsm8k_bundled
from debategraph.policies.sid_et import SkipRateChoice, sid_et_items, tune_skip_rate

ITEMS = 100
AGENTS = 6
CONCURRENCY = 8
RESULTS = Path(__file__).with_name("RESULTS-s2mad.md")

DU = "du, all-to-all, 2 rounds"
GD = "groupdebate (3,3), 2 rounds"
S2 = "s2mad (answer equivalence, (3,3); defaults)"
SVR = "svr (defaults)"
RECORD = "sid-et, mode=record (always debates)"
ARMS: list[tuple[str, dict[str, Any]]] = [
    (DU, {"method": "du", "rounds": 2}),
    (GD, {"method": "groupdebate", "rounds": 2, "options": {"groups": [3, 3]}}),
    (S2, {"method": "s2mad", "rounds": 2}),
    ("s2mad, stop at 5 of 6 agreeing", {"method": "s2mad", "rounds": 2,
                                        "options": {"consensus": 5 / 6}}),
    ("s2mad, one group of 6", {"method": "s2mad", "rounds": 2, "options": {"groups": [6]}}),
    ("s2mad, embeddings (hashing), threshold 0.9",
     {"method": "s2mad", "rounds": 2, "options": {"similarity": "embedding"}}),
    ("s2mad, embeddings (hashing), threshold 0.75",
     {"method": "s2mad", "rounds": 2, "options": {"similarity": "embedding", "threshold": 0.75}}),
    (SVR, {"method": "svr"}),
    ("sid-et, threshold -2.5", {"method": "sid-et", "rounds": 2}),
    (RECORD, {"method": "sid-et", "rounds": 2, "options": {"mode": "record"}}),
]  # fmt: skip
ALL_ITEMS_ARMS: list[tuple[str, dict[str, Any]]] = [
    (DU, {"method": "du", "rounds": 2}),
    (GD, {"method": "groupdebate", "rounds": 2, "options": {"groups": [3, 3]}}),
    (S2, {"method": "s2mad", "rounds": 2}),
    ("du + gate unanimous", {"method": dg.gated("du", "unanimous"), "rounds": 2}),
    ("du + gate entropy<1", {"method": dg.gated("du", "entropy<1"), "rounds": 2}),
    ("groupdebate (3,3) + gate unanimous",
     {"method": dg.gated("groupdebate", "unanimous"), "rounds": 2,
      "options": {"groups": [3, 3]}}),
]  # fmt: skip


@dataclass(frozen=True)
class Figures:
    """One arm's means over the kept items."""

    n: int
    ncomm: float
    tokens: float
    calls: float
    rounds: float
    right: int
    debated: int


async def run_arm(items: Sequence[Any], settings: dict[str, Any]) -> list[dg.DebateResult]:
    """One debate per item, at most ``CONCURRENCY`` at a time."""
    return await debate_all(
        items, {"agents": AGENTS, "seed": 0, **settings}, concurrency=CONCURRENCY
    )


def measure(results: Sequence[dg.DebateResult]) -> Figures:
    """The figures of one arm."""
    return Figures(
        n=len(results),
        ncomm=statistics.mean(r.ncomm for r in results),
        tokens=statistics.mean(r.usage["total_tokens"] for r in results),
        calls=statistics.mean(r.usage["calls"] for r in results),
        rounds=statistics.mean(r.rounds for r in results),
        right=sum(bool(r.correct) for r in results),
        debated=sum(r.rounds > 0 for r in results),
    )


def as_row(item: Any, result: dg.DebateResult) -> dict[str, Any]:
    """An evaluation row's fields that SID-ET needs, with the method state it must keep."""
    return {
        "id": item.id,
        "reference": result.reference,
        "task": result.task,
        "answer": result.answer,
        "correct": bool(result.correct),
        "input_tokens": result.usage["input_tokens"],
        "output_tokens": result.usage["output_tokens"],
        "method_state": result.method_state,
    }


def tuned_sid_et(
    items: Sequence[Any], recorded: Sequence[dg.DebateResult], svr: Figures
) -> tuple[SkipRateChoice, Figures]:
    """SID-ET at the skip rate Alg. 2 picks against ``svr``, from the record-mode runs."""
    rows = [as_row(i, r) for i, r in zip(items, recorded, strict=True)]
    choice = tune_skip_rate(sid_et_items(rows), svr.right / svr.n, svr.tokens * svr.n)
    outcome = choice.outcome
    pairs = list(zip(outcome.items, recorded, strict=True))
    n = len(rows)
    figures = Figures(
        n=n,
        ncomm=statistics.mean(0 if d.skipped else r.ncomm for d, r in pairs),
        tokens=outcome.tokens / n,
        calls=statistics.mean(1 if d.skipped else r.usage["calls"] for d, r in pairs),
        rounds=statistics.mean(0 if d.skipped else r.rounds for d, r in pairs),
        right=outcome.correct,
        debated=n - outcome.skipped,
    )
    return choice, figures


def table(rows: list[tuple[str, Figures]]) -> str:
    """Markdown table; ratios against ``du`` (2 rounds) and ``groupdebate`` (3,3)."""
    base, group = dict(rows)[DU], dict(rows)[GD]
    lines = [
        "| arm | NComm / item | total tokens / item | vs du | vs groupdebate | calls / item "
        "| rounds / item | items debated | accuracy (SIMULATED) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for label, m in rows:
        lines.append(
            f"| {label} | {m.ncomm:.2f} | {m.tokens:,.0f} | {m.tokens / base.tokens:.2f}x "
            f"| {m.tokens / group.tokens:.2f}x | {m.calls:.2f} | {m.rounds:.2f} "
            f"| {m.debated}/{m.n} | {m.right / m.n:.0%} ({m.right}/{m.n}) |"
        )
    return "\n".join(lines)


def report(
    rows: list[tuple[str, Figures]],
    every: list[tuple[str, Figures]],
    choice: SkipRateChoice,
    kept: int,
    wall: float,
    cpu: float,
) -> str:
    """The whole results file."""
    python = platform.python_version()
    machine = f"{os.cpu_count()} CPU cores, {platform.platform()}, Python {python}"
    figures = dict(rows)
    base, group, s2 = figures[DU], figures[GD], figures[S2]
    gated = dict(every)["du + gate entropy<1"]
    tried = ", ".join(f"{r:.0%}: {a:.1%} / {t / kept:,.0f}" for r, a, t in choice.tried)
    return f"""# S²-MAD benchmark (with SID-ET and the gate)

Command: `python bench/s2mad.py` (from the repository root, package installed).
Date: {datetime.now(UTC):%Y-%m-%d}. Machine: {machine}.
Time for every arm: {wall:.0f} s wall, {cpu:.0f} s CPU (process time); debates run
concurrently with asyncio ({CONCURRENCY} at a time) through `debategraph.arun`. The figures
below are token and call counts, which do not depend on the machine or its load.

**SIMULATED.** The agents are the offline simulated debaters (`SimulatedDebater`, default
profiles, seed 0), not language models. Token counts are the simulator's estimates
(`estimate_tokens`) of the real prompts the engine built, so the *communication and context
costs* are faithful to the methods; the accuracy is not evidence about any LLM.

- Items: the first {ITEMS} bundled GSM8K test items, in file order (ids `gsm8k-test-0000` to
  `gsm8k-test-{ITEMS - 1:04d}`); the {ITEMS - kept} on which all six initial answers agree are
  skipped, as in SVR-MAD's comparison, leaving **{kept} items**, the same in every arm.
- Agents: {AGENTS} default simulated debaters (a1..a6 replay 6b_finetuning, 6b_verification,
  175b_finetuning, 175b_verification, 6b_finetuning, 6b_verification as initial answers).
  Every method debates at most 2 rounds (`svr` runs its own iterations).
- "items debated": items with at least one debate round (for `s2mad`, a round may still
  make no call when nobody differs from its group).
- The SID-ET row "at Alg. 2's skip rate" is computed offline from the `mode=record` arm
  (`sid_et_items`, `tune_skip_rate` of `debategraph.policies.sid_et`) against `svr`'s
  accuracy and tokens on the same items: Alg. 2 chose **{choice.skip_rate:.0%}** (reason:
  {choice.reason}). Tried (skip rate: accuracy / tokens per item): {tried}.

{table(rows)}

All {ITEMS} items (the {ITEMS - kept} with unanimous first answers included), the same
debaters:

{table(every)}

**Result.** S²-MAD with its defaults uses {s2.tokens / base.tokens:.2f}x the total tokens of
all-to-all `du` over 2 rounds and {s2.tokens / group.tokens:.2f}x those of GroupDebate (3,3);
GroupDebate itself uses {group.tokens / base.tokens:.2f}x `du`'s. The paper reports up to
94.5% fewer tokens than MAD (GPT-4 on GSM8K: 2.78K against 50.4K tokens per question) with at
most 2 points of accuracy lost. On all {ITEMS} items, `du` behind the `entropy<1` gate
debates {gated.debated} of {ITEMS} items and spends {gated.tokens / dict(every)[DU].tokens:.2f}x
`du`'s tokens. The simulated accuracy is reported for completeness only.
"""


async def main() -> None:
    """Filter the items, run every arm, print the table, write the results file."""
    start, cpu0 = time.perf_counter(), time.process_time()
    every_item = load_gsm8k_bundled()[:ITEMS]
    votes = await run_arm(every_item, {"method": "mav", "rounds": 0})
    items = [
        i for i, v in zip(every_item, votes, strict=True) if len(set(v.round_answers()[0])) > 1
    ]
    print(f"{len(items)} of {ITEMS} items have initial disagreement", file=sys.stderr)
    rows: list[tuple[str, Figures]] = []
    recorded: list[dg.DebateResult] = []
    for label, settings in ARMS:
        t0 = time.perf_counter()
        results = await run_arm(items, settings)
        rows.append((label, measure(results)))
        if label == RECORD:
            recorded = results
        print(f"{label}: {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    choice, figures = tuned_sid_et(items, recorded, dict(rows)[SVR])
    at = rows.index((RECORD, dict(rows)[RECORD])) + 1
    rows.insert(at, (f"sid-et at Alg. 2's skip rate ({choice.skip_rate:.0%}), offline", figures))
    every = []
    for label, settings in ALL_ITEMS_ARMS:
        t0 = time.perf_counter()
        every.append((label, measure(await run_arm(every_item, settings))))
        print(f"{label}, all items: {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu0
    print(table(rows))
    print(table(every))
    RESULTS.write_text(report(rows, every, choice, len(items), wall, cpu), encoding="utf-8")
    print(f"wall time {wall:.1f} s, CPU {cpu:.1f} s; wrote {RESULTS}", file=sys.stderr)


if __name__ == "__main__":
    asyncio.run(main())
