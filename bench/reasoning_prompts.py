"""Prompt tokens per round of a debate between reasoning models, peers' thinking hidden or shown.

Work: one ``du`` debate (3 agents, an initial answer and 2 debate rounds, own history kept) on
the loopback stand-in (``tests/openai_server``) answering as a reasoning model: its
``ThinkingResponder`` puts a thought of C characters before the simulated debater's answer,
either in ``<think>`` tags (a server without a reasoning parser) or in the ``reasoning``
field (vLLM with ``--reasoning-parser``). Recorded: the mean prompt tokens of a call in each
round (the server's count: the text of every message's content), with
``peer_reasoning="none"`` (the default) and ``"full"``.

Usage: PYTHONPATH=src python bench/reasoning_prompts.py [--chars 2000 20000]
       [--out bench/RESULTS-reasoning.md]
"""

from __future__ import annotations

import argparse
import platform
import sys
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.openai_server import serve
from tests.openai_server.responders import ThinkingResponder

import debategraph as dg

QUESTION = "What is the result of 3+4*5+6-7*2?"
ROUNDS = 2


def prompt_tokens_by_round(shape: str, chars: int, peer_reasoning: str) -> list[float]:
    """Mean prompt tokens of a call in each round of one debate."""
    responder = ThinkingResponder(shape, thought_chars=chars)
    with serve(responder=responder) as server:
        result = dg.run(
            QUESTION,
            method="du",
            agents=3,
            rounds=ROUNDS,
            models="sim-0",
            base_url=server.base_url,
            peer_reasoning=peer_reasoning,
            stop_on_consensus=False,
        )
    means = []
    for r in range(ROUNDS + 1):
        tokens = [t["input_tokens"] for t in result.turns if t["round"] == r]
        means.append(sum(tokens) / len(tokens))
    return means


def main() -> None:
    """Run every case and write the table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--chars", type=int, nargs="+", default=[2000, 20000])
    parser.add_argument("--out", default="bench/RESULTS-reasoning.md")
    args = parser.parse_args()
    rows = []
    for chars in args.chars:
        for shape, server in (("tags", "no parser: `<think>` in content"),
                              ("reasoning", "parser: reasoning field")):  # fmt: skip
            none = prompt_tokens_by_round(shape, chars, "none")
            full = prompt_tokens_by_round(shape, chars, "full")
            for r in range(ROUNDS + 1):
                ratio = f"{full[r] / none[r]:.1f}x"
                cells = f"{chars} | {server} | {r} | {none[r]:.0f} | {full[r]:.0f} | {ratio}"
                rows.append(f"| {cells} |")
    command = "PYTHONPATH=src python bench/reasoning_prompts.py " + " ".join(
        ["--chars", *map(str, args.chars)]
    )
    text = "\n".join(
        [
            "# Reasoning models: prompt tokens per round, peers' thinking hidden or shown",
            "",
            f"Command: `{command}` · {date.today()} · Python {platform.python_version()} · "
            f"{platform.machine()} · stand-in server `tests/openai_server` (in process), "
            "`ThinkingResponder` before the simulated debater `sim-0`; prompt tokens as the "
            "server counts them (every message's content, estimated).",
            "",
            "Work: one `du` debate, 3 agents, initial round + 2 debate rounds, own history "
            "kept, no early stop. Thought: C characters (about C/5 tokens).",
            "",
            "| thought chars | server | round | prompt tokens, none | prompt tokens, full | "
            "full / none |",
            "|---:|---|---:|---:|---:|---:|",
            *rows,
            "",
            "With `none` (the default) the prompts are the same whatever the thought's length "
            "or the server's shape; with `full` each round-1 prompt carries both peers' "
            "thoughts and round 2 also the agent's own round-1 prompt (its history). The "
            "agent's own earlier thinking, sent back in the `reasoning` field of its history, "
            "is not counted by the stand-in (a real server counts it only where its chat "
            "template renders earlier thinking; Qwen3's drops it).",
            "",
        ]
    )
    Path(args.out).write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
