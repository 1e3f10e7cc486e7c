"""What the ``run`` and ``eval`` commands share: the error exit and common options."""

from __future__ import annotations

from typing import Annotated, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

err = Console(stderr=True)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print ``error: message`` to stderr (markup-safe) and exit with ``code``."""
    err.print(f"[bold red]error:[/] {escape(message)}")
    raise typer.Exit(code)


Models = Annotated[
    list[str] | None,
    typer.Option(
        help="'simulated' (default), 'provider:model', or a name served at --base-url; "
        "repeat to give each agent its own."
    ),
]
BaseUrl = Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint for --model names.")]
Agents = Annotated[int | None, typer.Option(help="Number of agents (method default).")]
Rounds = Annotated[
    int | None, typer.Option(help="Debate rounds after the initial answer (method default).")
]
DecisionRule = Annotated[
    str | None, typer.Option(help="Decision rule overriding the method's own.")
]
Ties = Annotated[str, typer.Option(help="Majority-vote ties: first, random or confidence.")]
