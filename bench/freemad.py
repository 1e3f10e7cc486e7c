"""Free-MAD benchmark: its 2 x 2 ablation on simulated debaters, and its decision on real answers.

(a) SIMULATED. The default simulated debaters (seed 0) debate the first 80 bundled GSM8K test
    items (ids gsm8k-test-0000 to gsm8k-test-0079) under Free-MAD-n, Free-MAD-c and the two
    majority-vote baselines, with 1 and 2 debate rounds, with and without the communication
    attack (one agent cut off, chosen per item with ``choose_cut_off(agents, None, seed=item
    index)``). Accuracy and output tokens. The simulated debaters replay real GPT-3 solutions as
    initial answers but debate by rule: these figures describe the simulation, not any LLM.
(b) REAL model outputs. The four real GPT-3 solutions of every one of the 1,319 GSM8K test
    items (the replay sources of agents a1..a4) with no debate round, decided by a majority vote
    under each tie policy, a vote weighted by CortexDebate credibility, and Free-MAD's score.

Run from the repository root: ``python bench/freemad.py``; writes ``bench/RESULTS-freemad.md``.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import os
import platform
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

import debategraph as dg
from debategraph.methods.rules import apply_rule as decide
from debategraph.models.oracle import REPLAY_SOURCES
from debategraph.policies.attack import choose_cut_off
from debategraph.policies.mdm import credibility, lookup_model_size
from debategraph.policies.voting import derive_seed
from debategraph.state.views import trajectory

CONCURRENCY = 16
SIMULATED_ITEMS = 80
CHECKED_ITEMS = 200
AGENTS = ["a1", "a2", "a3", "a4"]
RESULTS = Path(__file__).with_name("RESULTS-freemad.md")

SCHEMES = [
    ("Free-MAD-n", "freemad-n", "freemad", "anti-conformity", "score"),
    ("Free-MAD-c", "freemad-c", "freemad", "conformity", "score"),
    ("Baseline 1", "freemad-n", "majority", "anti-conformity", "majority vote"),
    ("Baseline 2", "freemad-c", "majority", "conformity", "majority vote"),
]
"""(label, method, decision, debate prompt, decision in words)."""

SOURCE_MODEL = {
    "6b_finetuning": "gpt3-6b",
    "6b_verification": "gpt3-6b",
    "175b_finetuning": "gpt3-175b",
    "175b_verification": "gpt3-175b",
}


def load_items() -> list[dict[str, Any]]:
    """The bundled GSM8K test split in file (id) order."""
    path = resources.files("debategraph.data").joinpath("gsm8k_test.jsonl.gz")
    with path.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


async def run_many(
    items: Sequence[dict[str, Any]], settings: Sequence[dict[str, Any]]
) -> list[dg.DebateResult]:
    """One debate per (item, settings) pair, at most ``CONCURRENCY`` at a time."""
    gate = asyncio.Semaphore(CONCURRENCY)

    async def one(item: dict[str, Any], kw: dict[str, Any]) -> dg.DebateResult:
        async with gate:
            return await dg.arun(item["question"], reference=item["reference"], **kw)

    return await asyncio.gather(*(one(i, s) for i, s in zip(items, settings, strict=True)))


def accuracy(results: Sequence[dg.DebateResult]) -> tuple[float, int]:
    """Share and number of results whose decided answer equals the reference."""
    right = sum(bool(r.correct) for r in results)
    return right / len(results), right


async def simulated(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Part (a): every scheme, round count and attack setting on the same items."""
    rows = []
    baseline = await run_many(items, [{"method": "mav", "agents": 4, "rounds": 0}] * len(items))
    acc, right = accuracy(baseline)
    out = sum(r.usage["output_tokens"] for r in baseline)
    rows.append(
        {"scheme": "No debate", "prompt": "-", "decision": "majority vote", "rounds": 0,
         "attack": "no", "acc": acc, "right": right, "out": out}
    )  # fmt: skip
    for rounds in (1, 2):
        for attack in (False, True):
            debates: dict[str, list[str]] = {}
            for label, method, decision, prompt, rule in SCHEMES:
                settings = [
                    {
                        "method": method,
                        "decision": decision,
                        "rounds": rounds,
                        "seed": 0,
                        "cut_off": choose_cut_off(AGENTS, None, i) if attack else (),
                    }
                    for i in range(len(items))
                ]
                results = await run_many(items, settings)
                texts = [t["text"] for r in results for t in r.turns]
                assert debates.setdefault(method, texts) == texts, "vote and score debates differ"
                acc, right = accuracy(results)
                rows.append(
                    {"scheme": label, "prompt": prompt, "decision": rule, "rounds": rounds,
                     "attack": "1 agent cut off" if attack else "no", "acc": acc, "right": right,
                     "out": sum(r.usage["output_tokens"] for r in results)}
                )  # fmt: skip
    return rows


def credibility_weights() -> list[float]:
    """CortexDebate credibility of each replay source's model, in agent order."""
    return [credibility(*lookup_model_size(SOURCE_MODEL[s])) for s in REPLAY_SOURCES]


async def real(items: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Part (b): decision rules over the four real solutions, and each source alone.

    Every item is run once; each rule is then applied to its answers exactly as the decide
    node applies it, and checked against full engine runs with that rule on the first
    ``CHECKED_ITEMS`` items (running all 1,319 items once per rule would take minutes).
    """
    weights = credibility_weights()
    rules = [
        ("majority vote, ties to the first agent", "majority", {"tie_policy": "first"}),
        ("majority vote, random tie-break (seed 0)", "majority", {"tie_policy": "random"}),
        ("majority vote, ties by confidence", "majority", {"tie_policy": "confidence"}),
        (
            f"credibility-weighted vote (6B: {weights[0]:.4f}, 175B: {weights[2]:.4f})",
            "credibility",
            {"decision_options": {"weights": weights}},
        ),
        ("Free-MAD score (R = 0: vote, random tie-break, seed 0)", "freemad", {}),
    ]
    base = {"method": "mav", "agents": 4, "rounds": 0, "seed": 0}
    results = await run_many(items, [base] * len(items))
    paths = [trajectory(r.turns, AGENTS) for r in results]
    rows = []
    for label, rule, settings in rules:
        options = {k: v for k, v in settings.items() if k == "tie_policy"}
        options.update(settings.get("decision_options", {}))
        # Random tie-breaks are seeded per item, as the decide node seeds them.
        answers = [
            decide(rule, path, seed=derive_seed(0, i["question"]), **options).answer
            for path, i in zip(paths, items, strict=True)
        ]
        checked = await run_many(
            items[:CHECKED_ITEMS], [{**base, "decision": rule, **settings}] * CHECKED_ITEMS
        )
        assert [r.answer for r in checked] == answers[:CHECKED_ITEMS], f"{rule} differs"
        right = sum(a == i["reference"] for a, i in zip(answers, items, strict=True))
        rows.append({"rule": label, "acc": right / len(items), "right": right})
    ties = sum(bool(r.decision["evidence"]["tie"]) for r in results)
    rows.append({"rule": f"(items with a tied vote: {ties})", "acc": None, "right": None})
    sources = []
    for index, source in enumerate(REPLAY_SOURCES):
        agent = AGENTS[index]
        parsed = sum(
            p.answers[index][0] == i["reference"] for p, i in zip(paths, items, strict=True)
        )
        flagged = sum(bool(i["model_solutions"][source]["is_correct"]) for i in items)
        sources.append(
            {"source": source, "agent": agent, "acc": parsed / len(items),
             "right": parsed, "flag": flagged / len(items)}
        )  # fmt: skip
    return rows, sources


def simulated_table(rows: list[dict[str, Any]], n: int) -> str:
    """Markdown table of part (a)."""
    lines = [
        "| scheme | debate prompt | decision | R | attack | accuracy | correct "
        "| output tokens (sum) | output tokens / item |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['scheme']} | {r['prompt']} | {r['decision']} | {r['rounds']} | {r['attack']} "
            f"| {r['acc']:.1%} | {r['right']}/{n} | {r['out']:,} | {r['out'] / n:,.0f} |"
        )
    return "\n".join(lines)


def real_tables(rows: list[dict[str, Any]], sources: list[dict[str, Any]], n: int) -> str:
    """Markdown tables of part (b)."""
    lines = ["| decision over the 4 real solutions | accuracy | correct |", "|---|---|---|"]
    for r in rows:
        if r["acc"] is None:
            lines.append(f"| {r['rule']} | | |")
        else:
            lines.append(f"| {r['rule']} | {r['acc']:.2%} | {r['right']}/{n} |")
    lines += [
        "",
        "| single source (agent) | accuracy (our answer parser) | correct "
        "| accuracy (dataset's is_correct flag) |",
        "|---|---|---|---|",
    ]
    for s in sources:
        lines.append(
            f"| {s['source']} ({s['agent']}) | {s['acc']:.2%} | {s['right']}/{n} "
            f"| {s['flag']:.2%} |"
        )
    return "\n".join(lines)


def report(
    sim: str, real_md: str, n_sim: int, n_real: int, wall: float, times: tuple[float, float]
) -> str:
    """The whole results file."""
    python = platform.python_version()
    machine = f"{os.cpu_count()} CPU cores, {platform.platform()}, Python {python}"
    return f"""# Free-MAD benchmark

Command: `python bench/freemad.py` (from the repository root, package installed).
Date: {datetime.now(UTC):%Y-%m-%d}. Machine: {machine}.
Wall time: {wall:.0f} s in all ({times[0]:.0f} s for (a), {times[1]:.0f} s for (b)); debates run
concurrently with asyncio ({CONCURRENCY} at a time) through `debategraph.arun`.

## (a) SIMULATED debaters: the Free-MAD ablation

**SIMULATED.** These are offline simulated debaters (`SimulatedDebater`, default profiles,
seed 0), not language models. Their initial answers replay the real GPT-3 solutions of the
bundled items, but every later move follows the simulator's rules (conformity, stubbornness,
and a lower pull towards the majority when the prompt carries the anti-conformity cue). The
figures test the engine end to end; they are not evidence about Free-MAD on real LLMs.

- Items: the first {n_sim} bundled GSM8K test items (ids `gsm8k-test-0000` to
  `gsm8k-test-{n_sim - 1:04d}`), 4 agents (a1..a4 replay 6b_finetuning, 6b_verification,
  175b_finetuning, 175b_verification).
- Schemes: `freemad-n` / `freemad-c` with their score decision, and the same methods with
  `decision="majority"` (tie policy `first`). A vote row and the score row with the same
  prompt, R and attack share the very same debates (checked by the script), so their tokens
  are equal.
- Attack: one of the 4 agents cut off (it reads no peers and re-checks its own answer; the
  others still read it), chosen per item with `choose_cut_off(agents, None, seed=item index)`.
- Output tokens: completion tokens of every call (the simulator's estimate), summed over
  the {n_sim} items, and per item.

{sim}

## (b) REAL model outputs: decision rules over four GPT-3 solutions

**REAL model outputs.** The answers are the final answers of the real GPT-3 solutions that
ship with the bundled GSM8K test split (6B and 175B, fine-tuned and verifier-ranked; OpenAI,
MIT licence), one source per agent, over all {n_real} items, with zero debate rounds
(`method="mav", agents=4, rounds=0`): no simulated behaviour enters the decision.

- Each item runs once through the engine (`arun`); every rule is then applied to its answers
  with `debategraph.methods.rules.apply_rule`, as the decide node does. The script checks
  that full engine runs with each rule (`decision=...`, `tie_policy=...`,
  `decision_options=...`) decide the same on the first {CHECKED_ITEMS} items.

- The confidence tie policy has no confidences to use (no confidence is asked for at zero
  rounds, and the simulator's confidence would leak its oracle), so it falls back to the
  first tied answer and equals the first row.
- Credibility: `credibility(*lookup_model_size("gpt3-6b"))` for the two 6B sources and
  `"gpt3-175b"` for the two 175B sources, passed as
  `decision_options={{"weights": [...]}}` with `decision="credibility"`. Two 6B
  votes always outweigh one 175B vote, so the weights only break ties towards 175B.
- Free-MAD's score at R = 0 is a vote with a uniformly random tie-break, the same draw as the
  random tie policy (`random.Random(derive_seed(0, question)).choice` over the sorted tied
  answers: seeded per item), so the two rows agree.
- Ties are frequent with four voters (2-2 and all-different splits). `first` hands them to
  a1, the weakest source (6b_finetuning), which is why it trails the random tie-break.

{real_md}
"""


async def main() -> None:
    """Run both parts, print the tables and the wall time, write the results file."""
    start = time.perf_counter()
    items = load_items()
    sim_rows = await simulated(items[:SIMULATED_ITEMS])
    part_a = time.perf_counter() - start
    print(f"(a) SIMULATED, {SIMULATED_ITEMS} items, {part_a:.1f} s", file=sys.stderr)
    sim = simulated_table(sim_rows, SIMULATED_ITEMS)
    print(sim)
    real_rows, sources = await real(items)
    part_b = time.perf_counter() - start - part_a
    real_md = real_tables(real_rows, sources, len(items))
    print(f"\n(b) REAL model outputs, {len(items)} items, {part_b:.1f} s", file=sys.stderr)
    print(real_md)
    wall = time.perf_counter() - start
    RESULTS.write_text(
        report(sim, real_md, SIMULATED_ITEMS, len(items), wall, (part_a, part_b)), encoding="utf-8"
    )
    print(f"\nwall time {wall:.1f} s; wrote {RESULTS}", file=sys.stderr)


if __name__ == "__main__":
    asyncio.run(main())
