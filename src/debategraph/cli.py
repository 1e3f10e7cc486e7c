"""Command line: ``debategraph run|eval|report|replay|show|export``.

Only what ``--help`` needs is imported here; a command imports its own machinery (LangGraph
for ``run``, the evaluation harness for ``eval`` and ``report``) when it runs.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import signal
import sys
import traceback
from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape as rich_escape
from typer.exceptions import TyperException

from debategraph.cli_options import (
    SIMULATOR_BLIND,
    CachePath,
    NoCache,
    check_output_folder,
    chosen_cache,
    err,
    fail,
    interruptible,
    simulated,
    warn,
)
from debategraph.cli_settings import GivenSettings, with_settings
from debategraph.eval.commands import (
    eval_command,
    replay_command,
    report_command,
    show_command,
)
from debategraph.eval.export.command import export_command
from debategraph.methods.registry import PluginError, get_method, method_plugins
from debategraph.policies.secrets import Redactor
from debategraph.policies.terminal import quiet_unawaited_tasks, visible
from debategraph.state.options import MethodOptions
from debategraph.transcript import print_transcript

if TYPE_CHECKING:
    from debategraph.methods import Method
    from debategraph.result import DebateResult

app = typer.Typer(
    help="Multi-agent debate on LangGraph. Offline by default (simulated debaters).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _print_version(wanted: bool) -> None:
    if wanted:
        from debategraph import __version__

        typer.echo(f"debategraph {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", help="Print the version and exit.", callback=_print_version, is_eager=True
        ),
    ] = False,
) -> None:
    pass


def method_or_exit(spec: str) -> Method[Any]:
    """The method a name or ``package.module:ATTR`` names; exits with status 2 if none."""
    try:
        return get_method(spec)
    except PluginError as exc:
        fail(str(exc))


def parse_method_options(method: Method[Any], pairs: list[str] | None) -> MethodOptions | None:
    """``--option`` values as the method's typed options; exits with status 2 on a bad one."""
    if not pairs:
        return None
    try:
        options: MethodOptions = method.options.from_pairs(pairs)
    except ValueError as exc:
        fail(f"--option: {method.name} options: {exc}")
    return options


@app.command("run")
@interruptible
@with_settings("run")
def run_command(
    question: Annotated[str, typer.Argument(help="The question to debate.")],
    method: Annotated[
        str,
        typer.Option(help="A registered method (see debategraph methods) or package.module:ATTR."),
    ] = "du",
    task: Annotated[
        str, typer.Option(help="Answer kind: number, choice, math or text.")
    ] = "number",
    choice: Annotated[
        list[str] | None, typer.Option(help="A multiple-choice option; repeat.")
    ] = None,
    cache: CachePath = None,
    no_cache: NoCache = False,
    graph_png: Annotated[
        Path | None,
        typer.Option(help="Save one PNG of the debate graph (who read whom) per round."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    text: Annotated[bool, typer.Option(help="With --json, include model responses.")] = False,
    show_text: Annotated[
        bool, typer.Option(help="Show every response's text in the transcript.")
    ] = False,
    *,
    given: GivenSettings,
) -> None:
    """Run one debate and print its transcript (or JSON)."""
    settings = given.values()
    m = _run_method(method, settings.pop("gate", None), settings.get("agents"))
    options = parse_method_options(m, given.pairs("options"))
    if graph_png is not None:
        check_output_folder(graph_png, "--graph-png", needs="matplotlib")
    models = settings.get("models")
    if simulated([models] if isinstance(models, str) else models):
        from debategraph.models.oracle import lookup

        if question.strip() and lookup(question) is None:
            warn(SIMULATOR_BLIND)
    redactor = Redactor.from_environment(urls=[settings.get("base_url")])
    result = _debate(
        question,
        redactor,
        method=m,
        task=task,
        choices=choice,
        options=options,
        cache=chosen_cache(cache, no_cache),
        **settings,
    )
    if graph_png is not None:
        from debategraph.eval.report.graph_plots import write_graph_pngs

        try:
            files = write_graph_pngs(result.graphs(), graph_png, prefix=m.name)
        except ImportError as exc:
            fail(str(exc))
        err.print(f"wrote {len(files)} graph picture(s) to {rich_escape(str(graph_png))}")
    if as_json:
        data = json.dumps(result.to_dict(include_text=text), ensure_ascii=False)
        sys.stdout.write(redactor(data) + "\n")
    else:
        print_transcript(result, Console(), show_text=show_text, redact=redactor)


def _run_method(spec: str, gate: str | None, agents: int | None) -> Method[Any]:
    """The method of ``run``, behind ``--gate`` when given; warns of a many-agent ``cot``."""
    m = method_or_exit(spec)
    if gate is not None:
        from debategraph.methods.gate import gate_method

        try:
            m = gate_method(m, gate)
        except ValueError as exc:
            fail(f"--gate: {exc}")
    if m.name == "cot" and agents is not None and agents > 1:
        warn(
            f"cot is a single agent's chain of thought; with --agents {agents} it is a "
            f"{agents}-agent vote (use --method mav or sc to say so)"
        )
    return m


def _debate(question: str, redactor: Redactor, **settings: Any) -> DebateResult:
    """Run the debate, saying when a model keeps it waiting; exits 2 on bad settings."""
    from debategraph.api import DebateConfigError, run
    from debategraph.nodes.patience import watched
    from debategraph.tracing_guard import check_tracing

    check_tracing(warn)

    def waiting(line: str) -> None:
        err.print(rich_escape(visible(redactor(line))), soft_wrap=True, highlight=False)

    run = watched(run, waiting, after=float(os.environ.get("DEBATEGRAPH_WAIT_SECONDS") or 5))
    try:
        return run(question, **settings)
    except DebateConfigError as exc:
        fail(str(exc))


MethodSources = Annotated[bool, typer.Option("--source", help="Say where each method comes from.")]
RuleSources = Annotated[bool, typer.Option("--source", help="Say where each rule comes from.")]


@app.command("methods")
@interruptible
def methods_command(sources: MethodSources = False) -> None:
    """List the registered methods: the built-ins, then installed plugins."""
    _list_plugins(*method_plugins(), lambda p: p.value.description, sources)


@app.command("rules")
@interruptible
def rules_command(sources: RuleSources = False) -> None:
    """List the decision rules (--decision NAME): what each reads, its options, what it does."""
    from debategraph.methods.registry import rule_plugins
    from debategraph.policies.decisions import rule_options
    from debategraph.policies.rule_needs import rule_needs

    def describe(p: Any) -> str:
        doc = (p.value.__doc__ or "").strip().splitlines()
        summary = doc[0].replace("``", "") if doc else ""
        options = sorted(rule_options(p.value) - {"seed", "ballots", "judged"})
        return (
            f"reads {rule_needs(p.value).describe()}; "
            f"options: {', '.join(options) or 'none'}. {summary}"
        ).rstrip()

    _list_plugins(*rule_plugins(), describe, sources)


@app.command("datasets")
@interruptible
def datasets_command() -> None:
    """List the datasets (--dataset NAME): source, revision, licence, size, answer type, grader."""
    from debategraph.eval.datasets import dataset_table

    typer.echo(visible(dataset_table()))


def _list_plugins(
    plugins: list[Any], broken: list[str], describe: Callable[[Any], str], sources: bool
) -> None:
    """One line per plugin (name, what ``describe`` says, where from), then what failed."""
    width = max([len(p.name) for p in plugins] + [12])
    for p in plugins:
        line = f"{p.name:{width}} {describe(p)}"
        if sources or not p.builtin:
            line += f"  [{'built-in' if p.builtin else p.source}]"
        typer.echo(visible(line))
    for problem in broken:
        warn(f"plugin not loaded: {problem}")


app.command("eval")(interruptible(eval_command))
app.command("report")(interruptible(report_command))
app.command("replay")(interruptible(replay_command))
app.command("show")(interruptible(show_command))
app.command("export")(interruptible(export_command))


def main() -> None:
    """Console-script entry point: any unexpected failure is one ``error:`` line, exit 1.

    Set ``DEBATEGRAPH_DEBUG=1`` to see the traceback (secrets redacted) as well.

    The command's libraries are loaded first (with the collector off when the console script
    starts it, see :mod:`debategraph.entry`) and then frozen out of the cyclic garbage
    collector (``gc.freeze``): a full collection then walks only what the command makes
    rather than the whole heap of LangGraph, LangChain and pydantic objects, which an
    evaluation would otherwise pay every few hundred debates. The first generation's
    threshold is raised from 700 to 20,000 objects, so that most short-lived objects of a
    model call are freed before a collection walks them: in a zero-latency evaluation the
    collector's time falls from 2.0 s to 0.6 s per 1,000 items (``bench/collector.py``).
    """
    try:
        # Inside the try: a Ctrl-C from this instant on is the one-line `interrupted` below.
        # Set even where the parent ignored SIGINT (a script's background job).
        signal.signal(signal.SIGINT, signal.default_int_handler)
        quiet_unawaited_tasks()
        _prepare(sys.argv[1:])
        code = app(standalone_mode=False)
    except (KeyboardInterrupt, typer.Abort):
        code = _interrupted()
    except TyperException as exc:  # a usage mistake: one line, not a usage box
        err.print(
            f"[bold red]error:[/] {rich_escape(visible(exc.format_message()))}", soft_wrap=True
        )
        code = exc.exit_code
    except typer.Exit as exc:
        code = exc.exit_code
    except Exception as exc:
        from debategraph.policies.failures import describe_error

        redactor = Redactor.from_environment(urls=_urls_in(sys.argv))
        if os.environ.get("DEBATEGRAPH_DEBUG"):
            trace = "".join(traceback.format_exception(exc))
            sys.stderr.write(redactor(trace))
        message = visible(describe_error(exc, redactor))
        err.print(f"[bold red]error:[/] {rich_escape(message)}", soft_wrap=True)
        code = 1
    sys.exit(code if isinstance(code, int) else 0)


def _interrupted() -> int:
    """Say, in one line, that Ctrl-C ended the command; the exit status is 130."""
    with contextlib.suppress(BaseException):
        err.print("interrupted")
    return 130


_COMMAND_MODULES = {
    "run": ("debategraph.api",),
    "eval": ("debategraph.api", "debategraph.eval.run.runner"),
}
"""What each command imports when it runs (loaded before the heap is frozen)."""

_SERVER_CLIENT = "debategraph.models.compatible"
"""The OpenAI-compatible client, which ``--base-url`` runs load as well."""


def _prepare(argv: list[str]) -> None:
    """Load what the command will use, then freeze the heap out of the cyclic collector.

    The collector is switched on again here (``debategraph.entry`` starts with it off).
    """
    command = next((a for a in argv if not a.startswith("-")), None)
    if "--help" not in argv:
        for module in _COMMAND_MODULES.get(command or "", ()):
            import_module(module)
        if command in _COMMAND_MODULES and any(a.startswith("--base-url") for a in argv):
            import_module(_SERVER_CLIENT)
    gc.freeze()
    gc.set_threshold(20_000, 10, 10)
    gc.enable()


def _urls_in(argv: list[str]) -> list[str]:
    return [a.partition("=")[2] or a for a in argv if "://" in a]


if __name__ == "__main__":
    main()
