"""The ``debategraph export`` command: a stored run into Inspect or LangSmith, no model call."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Literal

import typer

from debategraph.cli_options import fail, warn
from debategraph.eval.export.stored_run import StoredRun, StoredRunError, read_stored_run
from debategraph.policies.secrets import Redactor

Target = Literal["inspect", "langsmith"]
"""Where ``export`` sends a run."""


def export_command(
    results_dir: Annotated[Path, typer.Argument(help="A results directory (debategraph eval).")],
    to: Annotated[
        Target,
        typer.Option(
            "--to",
            help="inspect: write Inspect eval logs (inspect view opens them); langsmith: "
            "upload LangSmith experiments (LANGSMITH_API_KEY, LANGSMITH_ENDPOINT).",
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Option(help="With --to inspect: the log directory (default DIR/inspect)."),
    ] = None,
    dataset_name: Annotated[
        str | None,
        typer.Option(
            help="With --to langsmith: the dataset's name (default debategraph-DATASET-HASH, "
            "one per question set)."
        ),
    ] = None,
    experiment_prefix: Annotated[
        str | None,
        typer.Option(
            help="With --to langsmith: what experiment names start with (default: the "
            "results directory's name)."
        ),
    ] = None,
) -> None:
    """Open a finished run in Inspect's viewer or LangSmith, without re-running anything."""
    if to == "inspect" and (dataset_name or experiment_prefix):
        fail("--dataset-name and --experiment-prefix go with --to langsmith")
    if to == "langsmith" and out is not None:
        fail("--out goes with --to inspect (LangSmith keeps the experiments)")
    redact = Redactor.from_environment()
    try:
        run = read_stored_run(results_dir, redact=redact.value)
    except StoredRunError as exc:
        fail(str(exc))
    if run.planned.damaged:
        warn(f"{run.planned.damaged}: the run's planned items are unknown; the export says so")
    missing = run.missing_line()
    if missing:
        warn(missing)
    try:
        if to == "inspect":
            _to_inspect(run, out or results_dir / "inspect")
        else:
            _to_langsmith(run, redact, dataset_name=dataset_name, prefix=experiment_prefix)
    finally:
        if run.problems:
            more = f" (and {len(run.problems) - 1} more)" if len(run.problems) > 1 else ""
            warn(f"{len(run.problems)} line(s) of {results_dir} left out: {run.problems[0]}{more}")


def _to_inspect(run: StoredRun, out: Path) -> None:
    try:
        from debategraph.eval.export.inspect import IncompleteLogError, write_inspect_logs
    except ImportError as exc:
        fail(str(exc))
    try:
        write_inspect_logs(run, out, on_write=lambda path: typer.echo(f"wrote {path}"))
    except OSError as exc:
        fail(f"cannot write the Inspect logs to {out}: {exc.strerror or exc}")
    except IncompleteLogError as exc:
        fail(str(exc))
    typer.echo(f"open them with: inspect view --log-dir {out}")


def _to_langsmith(
    run: StoredRun, redact: Redactor, *, dataset_name: str | None, prefix: str | None
) -> None:
    from langsmith import Client
    from langsmith.schemas import LangSmithInfo
    from langsmith.utils import LangSmithError

    from debategraph.eval.export.langsmith import LangSmithTrouble, Uploaded, upload_experiments
    from debategraph.nodes.patience import watch_waits

    key, endpoint = _setting("API_KEY"), _setting("ENDPOINT")
    if key is None:
        fail(
            "--to langsmith needs a LangSmith API key: set LANGSMITH_API_KEY (and "
            "LANGSMITH_ENDPOINT for a self-hosted LangSmith)"
        )
    from debategraph.tracing_guard import unsendable_setting

    unsendable = unsendable_setting({"API_KEY": key, "WORKSPACE_ID": _setting("WORKSPACE_ID")})
    if unsendable is not None:
        fail(f"{unsendable}; nothing was uploaded")
    # No trace batching and no /info request: one request per experiment, nothing else.
    client = Client(api_key=key, api_url=endpoint, auto_batch_tracing=False, info=LangSmithInfo())
    uploaded: list[Uploaded] = []

    def took(done: Uploaded) -> None:
        uploaded.append(done)
        if done.skipped:
            typer.echo(f"skipped experiment {done.name}: LangSmith already holds it (same rows)")
        else:
            typer.echo(
                f"uploaded experiment {done.name} ({done.rows} rows) to dataset {done.dataset}"
            )

    def waiting(line: str) -> None:
        typer.echo(redact(line), err=True)

    try:
        with watch_waits(waiting, after=float(os.environ.get("DEBATEGRAPH_WAIT_SECONDS") or 5)):
            upload_experiments(
                run, client, dataset_name=dataset_name, prefix=prefix, on_upload=took
            )
    except LangSmithTrouble as exc:
        kept = f"the {len(uploaded)} experiment(s) before it are uploaded" if uploaded else ""
        fail(f"{redact(str(exc))}; {kept or 'nothing was uploaded'}")
    except LangSmithError as exc:
        from debategraph.langsmith_trouble import trouble_of_upload

        kept = f"the {len(uploaded)} experiment(s) before it are uploaded" if uploaded else ""
        line = trouble_of_upload(str(exc), client.api_url, kept or "nothing was uploaded")
        if line is not None:
            fail(line)
        # The SDK's message goes on to the request's headers: its first line says enough.
        reason = redact(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
        done = f"; {kept}" if kept else ""
        fail(f"LangSmith at {redact(client.api_url)} did not take the experiment: {reason}{done}")


def _setting(name: str) -> str | None:
    """``LANGSMITH_<name>`` or ``LANGCHAIN_<name>``, read now (LangSmith caches its reads)."""
    for prefix in ("LANGSMITH_", "LANGCHAIN_"):
        value = os.environ.get(prefix + name, "").strip()
        if value:
            return value
    return None
