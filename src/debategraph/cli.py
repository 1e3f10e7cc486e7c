"""Command line: ``debategraph run|eval|report``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from debategraph.cli_options import (
    Agents,
    BaseUrl,
    DecisionRule,
    Models,
    Rounds,
    Ties,
    err,
    fail,
)
from debategraph.eval.commands import eval_command, report_command
from debategraph.graphs.presets import METHODS
from debategraph.run import DebateConfigError, DebateResult, run
from debategraph.state.options import CortexOptions

app = typer.Typer(
    help="Multi-agent debate on LangGraph. Offline by default (simulated debaters).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def parse_adversaries(values: list[str] | None) -> dict[str, str]:
    """``["a3=42"]`` -> ``{"a3": "42"}``; exits with status 2 on a malformed entry."""
    adversaries: dict[str, str] = {}
    for value in values or ():
        agent, sep, answer = value.partition("=")
        if not sep or not agent.strip() or not answer.strip():
            fail(f"--adversary takes AGENT=ANSWER (e.g. a3=42), got {value!r}")
        adversaries[agent.strip()] = answer.strip()
    return adversaries


def parse_cortex_options(
    method: str, pairs: list[str] | None, graph_png: Path | None
) -> CortexOptions | None:
    """``--cortex-option`` values as options; exits with status 2 on a bad one."""
    if method != "cortex" and (pairs or graph_png is not None):
        fail("--cortex-option and --graph-png apply to --method cortex only")
    if not pairs:
        return None
    try:
        return CortexOptions.from_pairs(pairs)
    except ValueError as exc:
        fail(f"--cortex-option: {exc}")


def print_transcript(result: DebateResult, console: Console) -> None:
    """Readable transcript: per round who read whom, answers, confidence and tokens."""
    console.print(
        f"[bold]{result.method}[/] · {len(result.agents)} agents · {result.rounds} debate rounds"
    )
    console.print(f"[dim]Q:[/] {result.question}\n")
    for r in range(result.rounds + 1):
        table = Table(title=f"round {r}" + (" (initial)" if r == 0 else ""), title_justify="left")
        for col in ("turn", "model", "read", "answer", "conf", "tokens in/out"):
            table.add_column(col)
        for t in (t for t in result.turns if t["round"] == r):
            read = ", ".join(i.split(":", 1)[1] for i in t["read"]) or "-"
            conf = "-" if t["confidence"] is None else f"{t['confidence']:.2f}"
            answer = t["answer"] if t["answer"] is not None else "[red]abstained[/]"
            est = "~" if t["usage_estimated"] else ""
            table.add_row(
                t["id"],
                t["model"],
                read,
                answer,
                conf,
                f"{est}{t['input_tokens']}/{t['output_tokens']}",
            )
        console.print(table)
    usage = result.usage
    console.print(
        f"\n[bold]answer:[/] {result.answer if result.answer is not None else 'no answer'}"
        f"  ({result.decision['rule']}: {json.dumps(result.decision['evidence'])})"
    )
    console.print(
        f"tokens: {usage['input_tokens']} in + {usage['output_tokens']} out"
        f" = {usage['total_tokens']}"
        f" · calls: {usage['calls']} · NComm: {result.ncomm}"
        + (f" · cut off: {', '.join(result.cut_off)}" if result.cut_off else "")
    )
    unparsed = result.method_state.get("unparsed_confidences")
    if unparsed is not None:
        console.print(f"unparsed confidences: {unparsed} (each counted as 0.5)")


@app.command("run")
def run_command(
    question: Annotated[str, typer.Argument(help="The question to debate.")],
    method: Annotated[str, typer.Option(help=f"One of: {', '.join(METHODS)}.")] = "du",
    agents: Agents = None,
    rounds: Rounds = None,
    model: Models = None,
    base_url: BaseUrl = None,
    task: Annotated[str, typer.Option(help="Answer kind: number, choice or text.")] = "number",
    choice: Annotated[
        list[str] | None, typer.Option(help="A multiple-choice option; repeat.")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of every random choice.")] = 0,
    tie_policy: Ties = "first",
    decision: DecisionRule = None,
    cut_off: Annotated[
        list[str] | None,
        typer.Option(help="Communication attack: this agent reads no peers; repeat."),
    ] = None,
    attack: Annotated[
        bool, typer.Option(help="Communication attack on one agent, chosen with --seed.")
    ] = False,
    attack_ratio: Annotated[
        float | None,
        typer.Option(help="Communication attack on this proportion of agents (0 to 1)."),
    ] = None,
    adversary: Annotated[
        list[str] | None,
        typer.Option(help="AGENT=ANSWER: the agent argues for this wrong answer; repeat."),
    ] = None,
    cortex_option: Annotated[
        list[str] | None,
        typer.Option(
            help="KEY=VALUE option of --method cortex (e.g. prune=top_k, k=2, "
            "thresholds=none, embeddings=minilm); repeat. See docs/methods/cortexdebate.md."
        ),
    ] = None,
    graph_png: Annotated[
        Path | None,
        typer.Option(help="With --method cortex, save one PNG of the debate graph per round."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    text: Annotated[bool, typer.Option(help="With --json, include model responses.")] = False,
) -> None:
    """Run one debate and print its transcript (or JSON)."""
    if method not in METHODS:
        fail(f"unknown method {method!r}; choose one of: {', '.join(METHODS)}")
    adversaries = parse_adversaries(adversary)
    cortex = parse_cortex_options(method, cortex_option, graph_png)
    try:
        result = run(
            question,
            method=method,
            agents=agents,
            rounds=rounds,
            model=model or None,
            base_url=base_url,
            task=task,
            choices=choice,
            seed=seed,
            tie_policy=tie_policy,
            decision=decision,
            cut_off=cut_off or (),
            attack=attack,
            attack_ratio=attack_ratio,
            adversaries=adversaries,
            cortex=cortex,
        )
    except DebateConfigError as exc:
        fail(str(exc))
    if graph_png is not None:
        from debategraph.eval.graph_plots import write_graph_pngs

        try:
            files = write_graph_pngs(result.graphs(), graph_png)
        except ImportError as exc:
            fail(str(exc))
        err.print(f"wrote {len(files)} graph picture(s) to {graph_png}")
    if as_json:
        sys.stdout.write(json.dumps(result.to_dict(include_text=text), ensure_ascii=False) + "\n")
    else:
        print_transcript(result, Console())


@app.command("methods")
def methods_command() -> None:
    """List the built-in methods."""
    for name, m in METHODS.items():
        typer.echo(f"{name:12} {m.description}")


app.command("eval")(eval_command)
app.command("report")(report_command)


def main() -> None:
    """Console-script entry point."""
    app()
