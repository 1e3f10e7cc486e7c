"""SVR-MAD benchmark: communications (NComm) and total tokens vs all-to-all debate.

The first 100 bundled GSM8K test items (ids gsm8k-test-0000 to gsm8k-test-0099), six default
simulated debaters (seed 0). As in the SVR-MAD paper (§5, App. A), items on which all six
initial answers agree are skipped: the filter is a multi-agent vote (``mav``, the same six
agents, initial answers only), which is also the self-consistency reference row. Arms:

- ``du``: Du et al. all-to-all debate, 2 debate rounds (every agent reads the other five);
- ``du`` stopping at consensus (a cheaper all-to-all reference);
- ``groupdebate`` with groups (3, 3), the paper's GroupDebate setting, when the method exists
  in this checkout (skipped with a printed note otherwise);
- ``svr`` with its defaults (min-LL prior, S = 2, C = 2, B_max = S (k + m)), and with the PPL
  and confidence priors.

Per arm, averaged over the kept items: NComm (pairwise context transfers), total tokens
(input + output of every call), model calls, and accuracy. Accuracy is SIMULATED: the
debaters replay real GPT-3 solutions as initial answers but debate by rule, so it describes
the simulator, not an LLM. Token counts are the simulator's estimates of the real prompts.

Run from the repository root: ``python bench/svr.py``; writes ``bench/RESULTS-svr.md``.
"""

from __future__ import annotations

import asyncio
import os
import platform
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from debates import debate_all

import debategraph as dg
from debategraph.eval.datasets import load_gsm8k_bundled

ITEMS = 100
AGENTS = 6
CONCURRENCY = 8
RESULTS = Path(__file__).with_name("RESULTS-svr.md")

BASE = "du, all-to-all, 2 rounds"
ARMS: list[tuple[str, dict[str, Any]]] = [
    (BASE, {"method": "du", "rounds": 2}),
    ("du, all-to-all, 2 rounds, stop at consensus",
     {"method": "du", "rounds": 2, "stop_on_consensus": True}),
    ("groupdebate (3,3), 2 rounds", {"method": "groupdebate", "rounds": 2,
                                     "options": {"groups": [3, 3]}}),
    ("svr (min-LL prior, S=2, C=2; defaults)", {"method": "svr"}),
    ("svr, PPL prior", {"method": "svr", "options": {"prior": "ppl"}}),
    ("svr, confidence prior", {"method": "svr", "options": {"prior": "confidence"}}),
]  # fmt: skip


async def run_arm(items: Sequence[Any], settings: dict[str, Any]) -> list[dg.DebateResult]:
    """One debate per item, at most ``CONCURRENCY`` at a time."""
    return await debate_all(
        items, {"agents": AGENTS, "seed": 0, **settings}, concurrency=CONCURRENCY
    )


def measure(results: Sequence[dg.DebateResult]) -> dict[str, Any]:
    """The figures of one arm, averaged over its debates."""
    n = len(results)
    ends = Counter(r.method_state.get("end") for r in results if r.method == "svr")
    reachable = [r for r in results if r.reference in r.round_answers()[0]]
    return {
        "n": n,
        "reachable": len(reachable),
        "right_reachable": sum(bool(r.correct) for r in reachable),
        "ncomm": statistics.mean(r.ncomm for r in results),
        "tokens": statistics.mean(r.usage["total_tokens"] for r in results),
        "calls": statistics.mean(r.usage["calls"] for r in results),
        "right": sum(bool(r.correct) for r in results),
        "no_answer": sum(r.answer is None for r in results),
        "ends": dict(ends),
        "iterations": statistics.mean(r.rounds for r in results),
    }


def table(rows: list[tuple[str, dict[str, Any]]]) -> str:
    """Markdown table; ratios are against all-to-all ``du`` (2 rounds)."""
    base = dict(rows)[BASE]
    lines = [
        "| arm | NComm / item | vs du | total tokens / item | vs du | calls / item "
        "| accuracy (SIMULATED) | on items with a right first answer | no answer |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for label, m in rows:
        ncomm = m["ncomm"] / base["ncomm"] if base["ncomm"] else 0.0
        lines.append(
            f"| {label} | {m['ncomm']:.2f} | {ncomm:.2f}x | {m['tokens']:,.0f} "
            f"| {m['tokens'] / base['tokens']:.2f}x | {m['calls']:.2f} "
            f"| {m['right'] / m['n']:.0%} ({m['right']}/{m['n']}) "
            f"| {m['right_reachable']}/{m['reachable']} | {m['no_answer']} |"
        )
    return "\n".join(lines)


def svr_notes(rows: list[tuple[str, dict[str, Any]]]) -> str:
    """How each SVR arm's debates ended, and its mean iterations."""
    lines = []
    for label, m in rows:
        if m["ends"]:
            ends = ", ".join(f"{k} {v}" for k, v in sorted(m["ends"].items()))
            lines.append(f"- {label}: {m['iterations']:.2f} iterations on average; ended: {ends}.")
    return "\n".join(lines)


def report(
    rows: list[tuple[str, dict[str, Any]]],
    reference: dict[str, Any],
    kept: int,
    skipped: list[str],
    wall: float,
) -> str:
    """The whole results file."""
    python = platform.python_version()
    machine = f"{os.cpu_count()} CPU cores, {platform.platform()}, Python {python}"
    figures = dict(rows)
    base, svr = figures[BASE], figures["svr (min-LL prior, S=2, C=2; defaults)"]
    ncomm, tokens = svr["ncomm"] / base["ncomm"], svr["tokens"] / base["tokens"]
    group = next((m for label, m in rows if label.startswith("groupdebate")), None)
    versus_group = (
        f" Against GroupDebate (3,3): {svr['ncomm'] / group['ncomm']:.2f}x the NComm and "
        f"{svr['tokens'] / group['tokens']:.2f}x the tokens."
        if group
        else ""
    )
    missing = "".join(f"\n- Skipped arm: {note}" for note in skipped)
    return f"""# SVR-MAD benchmark

Command: `python bench/svr.py` (from the repository root, package installed).
Date: {datetime.now(UTC):%Y-%m-%d}. Machine: {machine}.
Wall time: {wall:.0f} s for every arm; debates run concurrently with asyncio
({CONCURRENCY} at a time) through `debategraph.arun`.

**SIMULATED.** The agents are the offline simulated debaters (`SimulatedDebater`, default
profiles, seed 0), not language models. Token counts are the simulator's estimates
(`estimate_tokens`) of the real prompts the engine built, so the *communication and context
costs* are faithful to the methods; the accuracy is not evidence about any LLM.

- Items: the first {ITEMS} bundled GSM8K test items, in file order (ids `gsm8k-test-0000` to
  `gsm8k-test-{ITEMS - 1:04d}`); the {ITEMS - kept} on which all six initial answers agree are
  skipped, as in the paper, leaving **{kept} items**, the same in every arm.
- Agents: {AGENTS} default simulated debaters (a1..a6 replay 6b_finetuning, 6b_verification,
  175b_finetuning, 175b_verification, 6b_finetuning, 6b_verification as initial answers).
- "On items with a right first answer": accuracy on the items where at least one agent's
  first answer is right ({reference["reachable"]} of {kept}); on the others, only a debater's
  change of mind can be right, which the simulator draws with a small chance on every call
  (it knows the answer), so arms with more calls gain there.
- NComm counts pairwise context transfers: a peer's turn delivered to a call (all-to-all
  `du`: 6 x 5 per round). SVR-MAD's only communications are its pairwise debates.
- Self-consistency reference (majority of the six initial answers, no debate, on the kept
  items): {reference["tokens"]:,.0f} tokens / item, accuracy (SIMULATED)
  {reference["right"] / reference["n"]:.0%} ({reference["right"]}/{reference["n"]}).{missing}

{table(rows)}

{svr_notes(rows)}

**Result.** SVR-MAD with its defaults uses {ncomm:.2f}x the communications (NComm) of
all-to-all `du` over 2 rounds (target at most 0.5x) and {tokens:.2f}x its total tokens (target
at most 0.6x); the paper reports 48-75% fewer communications and 38-61% fewer tokens than the
most accurate baseline.{versus_group} The simulated accuracy is reported for completeness only
(see above).
"""


async def main() -> None:
    """Filter the items, run every arm, print the table, write the results file."""
    start = time.perf_counter()
    items = load_gsm8k_bundled()[:ITEMS]
    votes = await run_arm(items, {"method": "mav", "rounds": 0})
    keep = [i for i, v in enumerate(votes) if len(set(v.round_answers()[0])) > 1]
    items = [items[i] for i in keep]
    reference = measure([votes[i] for i in keep])
    print(f"{len(items)} of {ITEMS} items have initial disagreement", file=sys.stderr)
    rows, skipped = [], []
    for label, settings in ARMS:
        if settings["method"] not in {m.name for m in dg.list_methods()}:
            note = f"{label}: method {settings['method']!r} is not in this checkout"
            print(f"skipping {note}", file=sys.stderr)
            skipped.append(note)
            continue
        t0 = time.perf_counter()
        try:
            results = await run_arm(items, settings)
        except dg.DebateConfigError as exc:  # e.g. another branch's option names
            note = f"{label}: {exc}"
            print(f"skipping {note}", file=sys.stderr)
            skipped.append(note)
            continue
        rows.append((label, measure(results)))
        print(f"{label}: {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    wall = time.perf_counter() - start
    print(table(rows))
    RESULTS.write_text(report(rows, reference, len(items), skipped, wall), encoding="utf-8")
    print(f"wall time {wall:.1f} s; wrote {RESULTS}", file=sys.stderr)


if __name__ == "__main__":
    asyncio.run(main())
