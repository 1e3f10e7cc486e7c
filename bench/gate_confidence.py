"""What the gate's ``confidence>C`` rule adds to round 0: it asks every agent for a confidence.

Runs ``du`` (6 simulated agents, 2 rounds) and ``du`` behind ``confidence>C`` on the first
bundled GSM8K items and compares, on the items the gate settled, the gated arm's tokens with
the ungated debate's round-0 tokens (the same agents answering the same question once).

Usage: python bench/gate_confidence.py [--limit 100] [--bound 0.8]
"""

from __future__ import annotations

import argparse
import asyncio

import debategraph as dg
from debategraph.eval.datasets import load_dataset


async def tokens(method: str, question: str, round0: bool) -> int:
    result = await dg.arun(question, method=method, agents=6, rounds=2, seed=0)
    turns = [t for t in result.turns if not round0 or t["round"] == 0]
    settled = bool(result.method_state.get("gate", {}).get("settled", True))
    total = sum(t["input_tokens"] + t["output_tokens"] for t in turns)
    return total if settled else -1


async def main(limit: int, bound: float) -> None:
    items = load_dataset("gsm8k", limit=limit)
    gated = f"du+gate-confidence-{bound}"
    pairs = []
    for item in items:
        cost = await tokens(gated, item.question, round0=False)
        if cost >= 0:
            pairs.append((cost, await tokens("du", item.question, round0=True)))
    spent, plain = sum(p[0] for p in pairs), sum(p[1] for p in pairs)
    print(
        f"{gated}: settled {len(pairs)} of {len(items)} items; on them {spent / len(pairs):,.0f} "
        f"tokens/item against {plain / len(pairs):,.0f} for du's ungated round 0: "
        f"{spent / plain:.2f}x"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--bound", type=float, default=0.8)
    args = parser.parse_args()
    asyncio.run(main(args.limit, args.bound))
