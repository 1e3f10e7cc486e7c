"""Command line: ``debategraph run|eval|report``."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from debategraph.graphs.presets import METHODS
from debategraph.run import DebateConfigError, DebateResult, run

app = typer.Typer(
    help="Multi-agent debate on LangGraph. Offline by default (simulated debaters).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
err = Console(stderr=True)


def fail(message: str) -> None:
    """Print ``error: message`` to stderr and exit with status 2."""
    err.print(f"[bold red]error:[/] {message}")
    raise typer.Exit(2)


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


@app.command("run")
def run_command(
    question: Annotated[str, typer.Argument(help="The question to debate.")],
    method: Annotated[str, typer.Option(help=f"One of: {', '.join(METHODS)}.")] = "du",
    agents: Annotated[int | None, typer.Option(help="Number of agents (method default).")] = None,
    rounds: Annotated[
        int | None, typer.Option(help="Debate rounds after the initial answer.")
    ] = None,
    model: Annotated[
        list[str] | None,
        typer.Option(
            help="'simulated' (default), 'provider:model', or a name served at --base-url; "
            "repeat to give each agent its own."
        ),
    ] = None,
    base_url: Annotated[
        str | None, typer.Option(help="OpenAI-compatible endpoint for --model names.")
    ] = None,
    task: Annotated[str, typer.Option(help="Answer kind: number, choice or text.")] = "number",
    choice: Annotated[
        list[str] | None, typer.Option(help="A multiple-choice option; repeat.")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of every random choice.")] = 0,
    tie_policy: Annotated[str, typer.Option(help="first, random or confidence.")] = "first",
    decision: Annotated[
        str | None, typer.Option(help="Decision rule overriding the method's.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    text: Annotated[bool, typer.Option(help="With --json, include model responses.")] = False,
) -> None:
    """Run one debate and print its transcript (or JSON)."""
    if method not in METHODS:
        fail(f"unknown method {method!r}; choose one of: {', '.join(METHODS)}")
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
        )
    except DebateConfigError as exc:
        fail(str(exc))
        return
    if as_json:
        sys.stdout.write(json.dumps(result.to_dict(include_text=text), ensure_ascii=False) + "\n")
    else:
        print_transcript(result, Console())


@app.command("methods")
def methods_command() -> None:
    """List the built-in methods."""
    for name, m in METHODS.items():
        typer.echo(f"{name:12} {m.description}")


def main() -> None:
    """Console-script entry point."""
    app()
