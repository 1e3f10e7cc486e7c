"""The same debate work as the peers' reference code does it, and as ``debategraph eval`` does.

Work: N bundled GSM8K items, 3 agents, an initial answer and 2 debate rounds in which every
agent reads the others' latest answers and keeps its own history (Du et al.), 9 model calls
per item, on a local OpenAI-compatible server (``tests/openai_server.spawn``, its own
process, simulated debaters ``sim-0``..``sim-2``) with a fixed latency per call.

* sequential: the shape of the reference implementations (Du et al.'s ``gen_gsm.py`` and
  those built on it): for each item, for each round, for each agent, one blocking
  ``openai.OpenAI().chat.completions.create`` call; the prompts are debategraph's ``du``
  prompts, so both arms send the same requests.
* debategraph eval: ``debategraph eval --method du --dataset gsm8k --limit N --agents 3
  --rounds 2 --model sim-0 --model sim-1 --model sim-2 --base-url URL`` (default
  ``--concurrency 16``).

Both run as fresh processes (interpreter start and imports included). Recorded: wall time,
the model calls the server answered, and the server's peak of requests in flight; the
ideal is max(3 rounds x latency, calls / 16 x latency).

Usage: PYTHONPATH=src python bench/peers.py [--items 5 50] [--latencies 0.1 0.5]
       [--src src] [--out bench/RESULTS-peers.md]
       (``--src``: the ``src`` directory whose ``debategraph`` the eval arm runs)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.openai_server import spawn

HERE = Path(__file__).resolve().parent
AGENTS = 3
ROUNDS = 2
CONCURRENCY = 16
CLI = "import sys; from debategraph.cli import main; sys.argv[0] = 'debategraph'; main()"
SRC = HERE.parent / "src"


def sequential(base_url: str, items: int) -> dict[str, Any]:
    """The reference shape: item by item, round by round, agent by agent, blocking calls."""
    import openai

    from debategraph.eval.datasets import load_dataset
    from debategraph.policies.answers import extract_answer
    from debategraph.prompts import du
    from debategraph.prompts.common import PromptInput

    client = openai.OpenAI(base_url=base_url, api_key="sk-bench", max_retries=0)
    correct = 0
    for item in load_dataset("gsm8k", limit=items, seed=0):
        contexts: list[list[dict[str, str]]] = [[] for _ in range(AGENTS)]
        latest: list[str] = [""] * AGENTS
        for round_ in range(ROUNDS + 1):
            replies = []
            for i in range(AGENTS):
                if round_ == 0:
                    prompt = du.initial(PromptInput(question=item.question))
                else:
                    peers = [
                        {"id": f"r{round_ - 1}:a{j + 1}", "agent": f"a{j + 1}", "kind": "answer"}
                        | {"text": latest[j]}
                        for j in range(AGENTS)
                        if j != i
                    ]
                    prompt = du.debate(PromptInput(question=item.question, peers=peers))  # type: ignore[arg-type]
                contexts[i].append({"role": "user", "content": prompt})
                completion = client.chat.completions.create(
                    model=f"sim-{i}",
                    messages=contexts[i],  # type: ignore[arg-type]
                )
                text = completion.choices[0].message.content or ""
                contexts[i].append({"role": "assistant", "content": text})
                replies.append(text)
            latest = replies
        answers = Counter(a for a in (extract_answer(t, "number") for t in latest) if a)
        majority = answers.most_common(1)[0][0] if answers else None
        correct += majority == item.reference
    return {"correct": correct}


def run_sequential(base_url: str, items: int) -> float:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(HERE.parent / "src"), str(HERE.parent)]),
    }
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--worker", base_url, str(items)],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - start


def run_eval(base_url: str, items: int) -> float:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    models = [arg for k in range(AGENTS) for arg in ("--model", f"sim-{k}")]
    with tempfile.TemporaryDirectory() as out:
        args = ["eval", "--method", "du", "--dataset", "gsm8k", "--limit", str(items)]
        args += ["--agents", str(AGENTS), "--rounds", str(ROUNDS), *models]
        args += ["--base-url", base_url, "--out", out, "--quiet"]
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-c", CLI, *args], env=env, check=True, stdout=subprocess.DEVNULL
        )
        return time.perf_counter() - start


def measure(item_counts: list[int], latencies: list[float]) -> list[dict[str, Any]]:
    rows = []
    with spawn(latency=0.0) as server:
        run_eval(server.base_url, 2)  # warm the .pyc files and the server's model
        for latency in latencies:
            server.configure(latency=latency)
            for items in item_counts:
                for arm, runner in (("sequential", run_sequential), ("debategraph eval", run_eval)):
                    server.reset()
                    wall = runner(server.base_url, items)
                    stats = server.stats()
                    calls = stats["completed"]
                    rows.append(
                        {
                            "arm": arm,
                            "items": items,
                            "latency": latency,
                            "wall_s": wall,
                            "calls": calls,
                            "peak": stats["peak_in_flight"],
                            "failed": stats["faulted"] + stats["errors"],
                            "ideal_s": max((ROUNDS + 1) * latency, calls / CONCURRENCY * latency),
                        }
                    )
                    print(json.dumps(rows[-1]), flush=True)
    return rows


def render(rows: list[dict[str, Any]], cmd: str) -> str:
    lines = [
        "# Peers benchmark: the reference loop's shape vs `debategraph eval`",
        "",
        f"Command: `{cmd}` · {date.today()} · Python {platform.python_version()} · "
        f"{platform.machine()}, 2 cores shared with other jobs · single runs, each arm a "
        "fresh process (interpreter start and imports included) · server: "
        "`tests/openai_server.spawn` in its own process, simulated debaters `sim-0..2`.",
        "",
        f"Work per item: {AGENTS} agents × (initial + {ROUNDS} debate rounds) = "
        f"{AGENTS * (ROUNDS + 1)} model calls, `du` prompts, own history kept. Ideal = "
        f"max({ROUNDS + 1} × latency, calls / {CONCURRENCY} × latency).",
        "",
        "| items | latency ms | arm | wall s | calls | peak in flight | ideal s "
        "| sequential / eval |",
        "|---:|---:|---|---:|---:|---:|---:|---:|",
    ]
    by = {(r["items"], r["latency"], r["arm"]): r for r in rows}
    for r in rows:
        speedup = ""
        if r["arm"] == "debategraph eval":
            seq = by[(r["items"], r["latency"], "sequential")]
            speedup = f"{seq['wall_s'] / r['wall_s']:.1f}x"
        lines.append(
            f"| {r['items']} | {r['latency'] * 1e3:.0f} | {r['arm']} | {r['wall_s']:.2f} | "
            f"{r['calls']} | {r['peak']} | {r['ideal_s']:.2f} | {speedup} |"
        )
    lines.append("")
    return "\n".join(lines)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        print(json.dumps(sequential(sys.argv[2], int(sys.argv[3]))))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, nargs="+", default=[5, 50])
    parser.add_argument("--latencies", type=float, nargs="+", default=[0.1, 0.5])
    parser.add_argument("--src", type=Path, default=HERE.parent / "src")
    parser.add_argument("--out", type=Path, default=HERE / "RESULTS-peers.md")
    args = parser.parse_args()
    global SRC
    SRC = args.src.resolve()
    rows = measure(args.items, args.latencies)
    cmd = ("PYTHONPATH=src python bench/peers.py " + " ".join(sys.argv[1:])).strip()
    text = render(rows, cmd)
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
