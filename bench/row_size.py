"""What a stored evaluation row costs on disk, per method, with and without reply texts.

Rows keep the debate itself (question, every turn with what it read, its answer and how it
was found, tokens, the decision, the method's state) so that ``debategraph show`` can print
any item again; ``--no-texts`` drops the reply texts for very large runs. This runs an
evaluation of ``--limit`` bundled GSM8K items per method on the simulated debaters (their
replies are shorter than a real model's: the text column scales with your model's replies)
twice, with and without texts, and reports the mean bytes per row (UTF-8 JSON lines as
written) and per model call.

Usage: python bench/row_size.py [--limit 50] [--out bench/RESULTS-rows.md]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import tempfile
from pathlib import Path

from debategraph.eval.datasets import load_dataset
from debategraph.eval.run.runner import Arm, evaluate

METHODS = ("cot", "du", "groupdebate", "cortex", "madm2-s", "svr", "freemad-n")


def sizes(limit: int, texts: bool) -> dict[str, tuple[float, float, float]]:
    """Per method: mean bytes per row, mean calls per row, and bytes per call."""
    items = load_dataset("gsm8k", limit=limit, seed=0)
    arms = [Arm(m, m, {}) for m in METHODS]
    with tempfile.TemporaryDirectory() as tmp:
        evaluate(items, arms, tmp, dataset="gsm8k", concurrency=16, texts=texts)
        lines = (Path(tmp) / "results.jsonl").read_bytes().splitlines()
    by_method: dict[str, list[tuple[int, int]]] = {}
    for line in lines:
        row = json.loads(line)
        by_method.setdefault(row["method"], []).append((len(line) + 1, row["calls"]))
    out = {}
    for method, pairs in by_method.items():
        size = statistics.mean(b for b, _ in pairs)
        calls = statistics.mean(c for _, c in pairs)
        out[method] = (size, calls, size / calls)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=50)
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("RESULTS-rows.md"))
    args = parser.parse_args()
    full, lean = sizes(args.limit, True), sizes(args.limit, False)
    lines = [
        "# Stored row size",
        "",
        f"`python bench/row_size.py --limit {args.limit}` (Python {platform.python_version()}): "
        f"{args.limit} bundled GSM8K items per method, simulated debaters, default settings; "
        "mean bytes of a row as written (one JSON line). Simulated replies are short (about "
        "300-600 characters); a real model's replies are longer, and the text column grows "
        "with them.",
        "",
        "| Method | Calls/row | Bytes/row | Bytes/call | Bytes/row, --no-texts "
        "| Bytes/call, --no-texts |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for method in full:
        size, calls, per_call = full[method]
        lean_size, _, lean_call = lean[method]
        lines.append(
            f"| {method} | {calls:.1f} | {size:,.0f} | {per_call:,.0f} | {lean_size:,.0f} | "
            f"{lean_call:,.0f} |"
        )
    text = "\n".join(lines) + "\n"
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
