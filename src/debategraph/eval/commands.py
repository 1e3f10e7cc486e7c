"""The ``debategraph eval`` and ``debategraph report`` commands (registered in ``cli.py``)."""

from __future__ import annotations

import errno
import math
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from debategraph.cli_options import (
    SIMULATOR_BLIND,
    Agents,
    AllowLarge,
    BaseUrl,
    CachePath,
    DecisionOption,
    DecisionRule,
    Logprobs,
    MaxAttempts,
    MaxTokens,
    MethodOption,
    Models,
    NoCache,
    RetryBackoff,
    Rounds,
    SamplingPresetName,
    Stop,
    Temperature,
    Ties,
    Timeout,
    TopK,
    TopP,
    chosen_cache,
    err,
    fail,
    generation_settings,
    parse_loose,
    parse_pairs,
    simulated,
    warn,
)
from debategraph.eval.budget import Budget
from debategraph.eval.datasets import DATASETS, DatasetFormatError, load_dataset
from debategraph.policies.terminal import cut_text, visible

RESULTS_FILE_NAME = "results.jsonl"

if TYPE_CHECKING:
    from debategraph.eval.executors import Executor
    from debategraph.eval.runner import Arm


def parse_prices(text: str | None) -> dict[str, float] | None:
    """``"0.15,0.60[,0.075]"`` ($ per 1M input, output[, cached input] tokens) -> $ per token.

    The third price is the provider's for input tokens it served from its prompt cache;
    without it they cost the input price. Exits 2 if malformed.
    """
    if text is None:
        return None
    parts = text.split(",")
    try:
        values = [float(p) for p in parts]
    except ValueError:
        values = []
    if len(values) not in (2, 3) or not all(math.isfinite(v) and v >= 0 for v in values):
        fail(
            "--prices takes IN,OUT or IN,OUT,CACHED in $ per 1M tokens (e.g. 0.15,0.60 or "
            f"0.15,0.60,0.075; CACHED prices the input tokens the provider cached), got {text!r}"
        )
    prices = {"input": values[0] / 1e6, "output": values[1] / 1e6}
    if len(values) == 3:
        prices["cached_input"] = values[2] / 1e6
    return prices


def parse_seeds(text: str | None) -> list[int] | None:
    """``"0,1,2"`` -> ``[0, 1, 2]`` (``--seeds``); exits 2 if empty, malformed or repeated."""
    if text is None:
        return None
    from debategraph.eval.runner import check_seeds

    parts = [part.strip() for part in text.split(",")]
    try:
        seeds = [int(part) for part in parts]
    except ValueError:
        fail(f"--seeds takes integers separated by commas (e.g. 0,1,2,3,4), got {text!r}")
    try:
        return check_seeds(seeds)
    except ValueError as exc:
        fail(f"--seeds: {exc}")


def _ids(value: str | None) -> str | list[str] | None:
    """An id file's path, or a comma-separated id list; exits 2 if it names no id."""
    if value is None or Path(value).is_file():
        return value
    ids = [i.strip() for i in value.split(",") if i.strip()]
    if not ids:
        fail(
            f"--ids {value!r} names no item: give id1,id2,... or a file with one id per line "
            "(or leave --ids out for every item)"
        )
    return ids


def _dataset_error(exc: Exception) -> str:
    """One line for a failure to load the items, naming the file where there is one."""
    if isinstance(exc, OSError) and exc.filename is not None:
        return f"cannot read {exc.filename}: {exc.strerror or exc}"
    return str(exc)


def eval_command(
    method: Annotated[
        list[str] | None,
        typer.Option(
            help="A method to evaluate (a registered name, see debategraph methods, or "
            "package.module:ATTR); repeat."
        ),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(
            help="A sweep file (TOML): dataset, shared settings and named arms; see "
            "docs/evaluation.md. --limit, --out, --cache, --concurrency, --rps and the engine "
            "flags override it."
        ),
    ] = None,
    dataset: Annotated[
        str | None, typer.Option(help=f"One of: {', '.join(DATASETS)} (default gsm8k).")
    ] = None,
    limit: Annotated[
        int | None, typer.Option(help="Seeded sample of this many items (all by default).")
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            help="Seed of the sample and of every debate (default 0); with --seeds, of the "
            "sample only."
        ),
    ] = None,
    seeds: Annotated[
        str | None,
        typer.Option(
            help="Run every method once per seed on the same sample (e.g. 0,1,2,3,4): the "
            "debates' seeds; rows record theirs and the report gives accuracy mean ± sd over "
            "seeds."
        ),
    ] = None,
    ids: Annotated[
        str | None, typer.Option(help="Exactly these items: a file of ids, or id1,id2,...")
    ] = None,
    path: Annotated[
        str | None, typer.Option(help="Your question set (.jsonl), with --dataset jsonl.")
    ] = None,
    model: Models = None,
    base_url: BaseUrl = None,
    agents: Agents = None,
    rounds: Rounds = None,
    decision: DecisionRule = None,
    tie_policy: Ties = "first",
    option: MethodOption = None,
    decision_option: DecisionOption = None,
    gate: Annotated[
        str | None,
        typer.Option(
            help="Gate every method that debates: it debates an item only when round 0's "
            "vote is not settled (unanimous, entropy<H, confidence>C); methods that do not "
            "debate run as they are.",
        ),
    ] = None,
    preset: SamplingPresetName = None,
    temperature: Temperature = None,
    top_p: TopP = None,
    top_k: TopK = None,
    max_tokens: MaxTokens = None,
    stop: Stop = None,
    timeout: Timeout = None,
    max_attempts: MaxAttempts = None,
    retry_backoff: RetryBackoff = None,
    logprobs: Logprobs = False,
    allow_large: AllowLarge = False,
    cache: CachePath = None,
    no_cache: NoCache = False,
    match_budget: Annotated[
        Budget | None,
        typer.Option(
            help="Also run sc@M per method M, self-consistency at M's budget on each item: "
            "'calls' (one sample per model call of M) or 'tokens' (as many samples as M's "
            "tokens buy); with several models also mav@M."
        ),
    ] = None,
    only_contested: Annotated[
        bool,
        typer.Option(
            help="Screen every item with the first debating method's agents at round 0 "
            "(arm vote@r0) and run the methods only where those answers disagree, as "
            "SVR-MAD's evaluation does; says how many items were skipped."
        ),
    ] = False,
    concurrency: Annotated[
        int, typer.Option(help="Most model calls in flight at once, over all items.")
    ] = 16,
    rps: Annotated[
        float | None, typer.Option(help="Most requests per second to provider models.")
    ] = None,
    engine: Annotated[
        str | None,
        typer.Option(
            help="Where the debates run: local (this process, the default) or ray (Ray "
            "workers; pip install 'debategraph[ray]'). --concurrency and --rps are shared "
            "out among the workers."
        ),
    ] = None,
    address: Annotated[
        str | None,
        typer.Option(
            help="With --engine ray: join this Ray cluster (auto, or HOST:PORT of its head) "
            "instead of starting a local one."
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            help="With --engine ray: how many workers (default: this machine's cores, or "
            "the cluster's CPUs with --address)."
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(help="Results directory (default results/DATASET-METHODS)."),
    ] = None,
    force: Annotated[
        bool, typer.Option(help="Discard results in --out written with other settings.")
    ] = False,
    fsync: Annotated[bool, typer.Option(help="fsync every result line.")] = False,
    prices: Annotated[
        str | None,
        typer.Option(
            help="IN,OUT[,CACHED]: $ per 1M input and output tokens, and input tokens the "
            "provider served from its prompt cache (cost)."
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option(help="No progress bar.")] = False,
    texts: Annotated[
        bool,
        typer.Option(
            help="Keep every reply's text in the rows (debategraph show prints them); "
            "--no-texts for very large runs."
        ),
    ] = True,
) -> None:
    """Evaluate methods on a dataset; resumable (re-run the same command to continue)."""
    from debategraph.eval.runner import arms_for
    from debategraph.eval.sweep import SweepError, load_sweep

    price = parse_prices(prices)
    seed_list = parse_seeds(seeds)
    engines = {"engine": engine, "address": address, "workers": workers}
    if config is not None:
        given = {
            "--method": method, "--model": model, "--base-url": base_url, "--agents": agents,
            "--rounds": rounds, "--decision": decision, "--option": option,
            "--decision-option": decision_option, "--temperature": temperature,
            "--top-p": top_p, "--top-k": top_k, "--settings": preset,
            "--max-tokens": max_tokens, "--stop": stop, "--timeout": timeout,
            "--max-attempts": max_attempts, "--retry-backoff": retry_backoff,
            "--ids": ids, "--path": path, "--gate": gate, "--dataset": dataset,
            "--seed": seed, "--seeds": seeds,
        }  # fmt: skip
        clashes = [flag for flag, value in given.items() if value is not None and value != []]
        if only_contested:
            fail("with --config, put only_contested = true in the sweep file (top level)")
        if clashes or logprobs or match_budget is not None or tie_policy != "first":
            clash = clashes[0] if clashes else "that flag"
            where = "top level" if clash in {"--dataset", "--ids", "--path", "--seeds"} else None
            if clash == "--seed":
                where = "top level for the sample, [settings] for the debates"
            fail(
                f"with --config, put {clash} in the sweep file "
                f"({where or 'its [settings] or an arm'})"
            )
        try:
            sweep = load_sweep(config)
        except SweepError as exc:
            fail(str(exc))
        _run_arms(
            sweep.arms,
            dataset=sweep.dataset,
            selection={**sweep.selection, "limit": limit or sweep.selection.get("limit")},
            out_dir=out or Path(sweep.run["out"]),
            concurrency=concurrency if concurrency != 16 else sweep.run.get("concurrency", 16),
            rps=rps if rps is not None else sweep.run.get("rps"),
            cache=chosen_cache(cache, no_cache) if cache or no_cache else sweep.run.get("cache"),
            match_budget=_budget(sweep.run.get("match_budget")),
            only_contested=bool(sweep.run.get("only_contested")),
            force=force,
            fsync=fsync,
            quiet=quiet,
            price=price,
            texts=texts if not texts else bool(sweep.run.get("texts", True)),
            executor=_executor(engines, sweep.run),
            seeds=sweep.run.get("seeds"),
        )
        return
    dataset, seed = "gsm8k" if dataset is None else dataset, seed or 0
    if not method:
        fail("give a method to evaluate (--method du, repeat for more), or a sweep --config")
    from debategraph.methods.registry import PluginError, get_method

    try:
        for spec in method:
            get_method(spec)
    except PluginError as exc:
        fail(str(exc))
    if gate is not None:
        method = _gated(method, gate)
    settings: dict[str, Any] = {
        "agents": agents,
        "rounds": rounds,
        "models": (model[0] if len(model) == 1 else list(model)) if model else None,
        "base_url": base_url,
        "seed": None if seed_list is not None else seed,  # --seeds: each unit's seed
        "tie_policy": tie_policy,
        "decision": decision,
        "decision_options": {
            k: parse_loose(v) for k, v in parse_pairs(decision_option, "--decision-option").items()
        }
        or None,
        "logprobs": logprobs or None,
        "allow_large": allow_large or None,
        "max_attempts": max_attempts,
        "retry_backoff": retry_backoff,
        **generation_settings(temperature, top_p, max_tokens, stop, timeout, top_k, preset),
    }
    try:
        arms = arms_for(method, settings, options=parse_pairs(option, "--option"))
    except ValueError as exc:
        fail(str(exc))
    if rounds and not any(get_method(spec).debates for spec in method):
        warn(
            f"--rounds {rounds} reaches none of these methods ({', '.join(method)}): they "
            "never debate, so each keeps its single round"
        )
    _run_arms(
        arms,
        dataset=dataset,
        selection={"limit": limit, "seed": seed, "ids": ids, "path": path},
        out_dir=out or Path("results") / _default_out(dataset, arms, only_contested, seed_list),
        concurrency=concurrency,
        rps=rps,
        cache=chosen_cache(cache, no_cache),
        match_budget=match_budget,
        only_contested=only_contested,
        force=force,
        fsync=fsync,
        quiet=quiet,
        price=price,
        texts=texts,
        executor=_executor(engines, {}),
        seeds=seed_list,
    )


def _skip_rate(value: str) -> float | str:
    """A --sid-et-skip-rate value: ``auto`` or a number in [0, 1]; exits 2 otherwise."""
    if value == "auto":
        return value
    try:
        rate = float(value)
    except ValueError:
        rate = math.nan
    if not 0 <= rate <= 1:
        fail(f"--sid-et-skip-rate takes a number from 0 to 1 (0.6 for 60%) or auto, got {value!r}")
    return rate


def _default_out(
    dataset: str, arms: list[Arm], only_contested: bool, seeds: list[int] | None = None
) -> str:
    """``results/<this>`` when no --out is given: the dataset, the arms' labels, the seeds."""
    name = f"{dataset}-{'-'.join(arm.label for arm in arms)}" + "-contested" * only_contested
    return name + (f"-seeds{'_'.join(map(str, seeds))}" if seeds is not None else "")


def _screened(items: int, seeds: list[int] | None) -> str:
    """What ``--only-contested`` screened: ``40 items``, or ``120 (item, seed) pairs``."""
    return f"{items} items" if seeds is None else f"{items * len(seeds)} (item, seed) pairs"


def _cut_short_words(debates: list[dict[str, Any]], out_dir: Path) -> str:
    """What the debates Ctrl-C cut short had spent, for the ``interrupted:`` line."""
    from debategraph.eval.cut_short import INTERRUPTED_FILE, totals

    if not debates:
        return ""
    spent = totals(debates)
    return (
        f"{spent['debates']} debate(s) cut short had spent {spent['input_tokens']} input and "
        f"{spent['output_tokens']} output tokens in {spent['requests']} requests (logged in "
        f"{out_dir / INTERRUPTED_FILE}); "
    )


def _stderr_line(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _gated(methods: list[str], rule: str) -> list[str]:
    """The methods, each that debates behind the gate ``rule``; exits if none debates."""
    from debategraph.methods.gate import gated_name
    from debategraph.methods.registry import get_method

    try:
        named = [gated_name(m, rule) if get_method(m).debates else m for m in methods]
    except ValueError as exc:
        fail(f"--gate: {exc}")
    if named == methods:
        fail(f"--gate: none of {', '.join(methods)} debates, so there is nothing to gate")
    return named


def _budget(value: object) -> Budget | None:
    """A sweep file's ``match_budget`` (true, "calls" or "tokens") as a budget, or ``None``."""
    if value is True:
        return "calls"
    return "tokens" if value == "tokens" else "calls" if value == "calls" else None


def _executor(given: dict[str, Any], sweep: dict[str, Any]) -> Executor:
    """The executor of --engine, --address and --workers (over a sweep file's); exits 2."""
    from debategraph.eval.executors import executor_for

    chosen = {k: v if v is not None else sweep.get(k) for k, v in given.items()}
    try:
        return executor_for(chosen["engine"], address=chosen["address"], workers=chosen["workers"])
    except ValueError as exc:
        fail(str(exc))


def _simulated_arm(arm: Arm) -> bool:
    model = arm.settings.get("models")
    specs = model if isinstance(model, list) else [model] if model is not None else None
    return all(isinstance(s, str) for s in specs or []) and simulated(specs)


def _run_arms(
    arms: list[Arm],
    *,
    dataset: str,
    selection: dict[str, Any],
    out_dir: Path,
    concurrency: int,
    rps: float | None,
    cache: Path | str | None,
    match_budget: Budget | None,
    force: bool,
    fsync: bool,
    quiet: bool,
    price: dict[str, float] | None,
    texts: bool = True,
    executor: Executor | None = None,
    only_contested: bool = False,
    seeds: list[int] | None = None,
) -> None:
    """Load the items, run the arms (resumably) and print the table; exit on any error."""
    from debategraph.api import DebateConfigError
    from debategraph.eval.cut_short import CUT_SHORT
    from debategraph.eval.metrics import summarize
    from debategraph.eval.report import results_table
    from debategraph.eval.runner import ServerDownError, budget_arms, run_eval, screen_arm
    from debategraph.eval.store import RESULTS_FILE, OutputBusyError, SettingsMismatchError
    from debategraph.nodes.cache_guard import CacheError
    from debategraph.nodes.runnable import run_sync

    limit = selection.get("limit")
    ids = _ids(selection.get("ids"))
    if limit is not None and limit < 1:
        fail(f"--limit must be at least 1, got {limit}")
    if concurrency < 1:
        fail(f"--concurrency must be at least 1, got {concurrency}")
    if rps is not None and (not math.isfinite(rps) or rps <= 0):
        fail(f"--rps must be a number above 0 (requests per second), got {rps}")
    if match_budget is not None:
        try:
            arms = arms + budget_arms(arms, match_budget)
        except ValueError as exc:
            fail(str(exc))
    if only_contested:
        try:
            arms = [screen_arm(arms), *arms]
        except ValueError as exc:
            fail(str(exc))
    try:
        items = load_dataset(
            dataset,
            limit=limit,
            seed=selection.get("seed") or 0,
            ids=ids,
            path=selection.get("path"),
        )
    except (ValueError, ImportError, OSError, EOFError, DatasetFormatError) as exc:
        fail(_dataset_error(exc))
    if limit is not None and len(items) < limit:
        warn(f"--limit {limit} is more than the {len(items)} items of {dataset}: all of them run")
    if any(_simulated_arm(arm) for arm in arms):
        from debategraph.models.oracle import lookup

        blind = sum(lookup(item.question) is None for item in items)
        if blind:
            warn(f"{blind} of {len(items)} questions: {SIMULATOR_BLIND}")
    from debategraph.tracing_guard import check_tracing

    check_tracing(warn)
    progress: Any = None
    if not quiet:
        from debategraph.eval.progress import IntervalProgress, RichProgress

        if sys.stderr.isatty():
            progress = RichProgress(err)
        else:  # a log or a pipe: one plain line at a steady interval
            every = float(os.environ.get("DEBATEGRAPH_PROGRESS_SECONDS") or 30)
            progress = IntervalProgress(every, write=_stderr_line)
    cut_short: list[dict[str, Any]] = []
    noting = CUT_SHORT.set(cut_short)
    try:
        outcome = run_sync(
            run_eval(
                items,
                arms,
                out_dir,
                dataset=dataset,
                selection=selection,
                concurrency=concurrency,
                rps=rps,
                force=force,
                fsync=fsync,
                progress=progress,
                cache=cache,
                texts=texts,
                executor=executor,
                seeds=seeds,
            )
        )
    except CacheError as exc:  # a fault that running again would meet again
        kept = out_dir / RESULTS_FILE
        fail(
            f"{exc}; the rows finished before it are kept in {kept}" if kept.exists() else str(exc)
        )
    except (DebateConfigError, SettingsMismatchError, OutputBusyError, ValueError) as exc:
        fail(str(exc))
    except ServerDownError as exc:  # a server that is down: one line, not a failed row per item
        fail(str(exc), code=1)
    except OSError as exc:
        if exc.errno == errno.EMFILE:
            fail(
                "too many open files: raise the limit (ulimit -n) or lower --concurrency; "
                "finished rows are saved, run the same command again to resume"
            )
        fail(f"cannot write results to {out_dir}: {exc.strerror or exc}")
    except KeyboardInterrupt:
        err.print(
            f"interrupted: finished rows are saved in {out_dir / RESULTS_FILE}; "
            f"{_cut_short_words(cut_short, out_dir)}run the same command again to resume",
            soft_wrap=True,
        )
        raise typer.Exit(130) from None
    finally:
        CUT_SHORT.reset(noting)
    for problem in outcome.problems:
        warn(problem)
    summary = summarize(outcome.summary_rows(), price)
    typer.echo(visible(results_table(summary, with_cost=price is not None)))
    if seeds is not None:
        from debategraph.eval.seeds_table import SEEDS_NOTE, seeds_table

        table = seeds_table(summary)
        if table:
            typer.echo(visible(f"\n{SEEDS_NOTE}\n\n{table}"))
    screen = summary[arms[0].label]["screen"] if arms[0].label in summary else None
    if only_contested and screen is not None:
        contested = screen["items"] - screen["settled"]
        vote = (
            f"; on the {contested} contested ones, {arms[0].label}'s vote scores "
            f"{100 * screen['contested_accuracy']:.1f}% (its line above counts every item)"
            if contested
            else ""
        )
        typer.echo(
            f"\n--only-contested: {outcome.settled} of {_screened(len(items), seeds)} settled (all "
            f"{arms[0].settings['agents']} agents gave the same round-0 answer) and skipped "
            f"by the other methods{vote}"
        )
    typer.echo(
        f"\n{outcome.count} rows in {outcome.path} ({outcome.resumed} resumed, "
        f"{outcome.written} new, {outcome.wall_s:.1f} s). Report: debategraph report {out_dir}"
    )
    if outcome.failed:
        from debategraph.eval.failed_rows import failure_advice, lasting_failures

        lasting = lasting_failures(r for r in outcome.summary_rows() if "error" in r)
        fail(failure_advice(outcome.failed, lasting), code=1)


def report_command(
    results_dir: Annotated[Path, typer.Argument(help="Directory of *.jsonl result files.")],
    out: Annotated[
        Path | None, typer.Option(help="Where to write (default: the results directory).")
    ] = None,
    prices: Annotated[
        str | None,
        typer.Option(
            help="IN,OUT[,CACHED]: $ per 1M input and output tokens, and input tokens the "
            "provider served from its prompt cache (cost)."
        ),
    ] = None,
    plots: Annotated[bool, typer.Option(help="Draw the PNG plots (needs matplotlib).")] = True,
    decision: Annotated[
        list[str] | None,
        typer.Option(
            help="Re-decide the stored debates with this rule, no model call (majority, "
            "supermajority, unanimity, freemad, reconcile, credibility, a plugin's, or "
            "package.module:ATTR; ballot rules and judge only on rows run with them; see "
            "debategraph rules); repeat to compare rules side by side."
        ),
    ] = None,
    sid_et_skip_rate: Annotated[
        list[str] | None,
        typer.Option(
            help="Add SID-ET at this dataset-level skip rate (0.6 skips the 60% of questions "
            "whose first answer is most confident), read from a sid-et run with "
            "--option mode=record; 'auto' picks it by SVR-MAD's Alg. 2 against svr; repeat "
            "for several."
        ),
    ] = None,
    compare: Annotated[
        list[str] | None,
        typer.Option(
            help="Compare two arms on the items both finished, A:B (the difference is A - B), "
            "with a paired bootstrap interval and an exact McNemar p-value; repeat for more."
        ),
    ] = None,
    baseline: Annotated[
        str | None, typer.Option(help="Compare every other arm with this arm as well.")
    ] = None,
    holm: Annotated[
        bool, typer.Option(help="Print Holm-adjusted p-values over all the comparisons.")
    ] = False,
    resamples: Annotated[
        int, typer.Option(min=1, help="Resamples of the paired bootstrap.")
    ] = 10_000,
    bootstrap_seed: Annotated[
        int, typer.Option(help="Seed of the paired bootstrap (same seed, same intervals).")
    ] = 0,
) -> None:
    """Write report.md, summary.json and plots for a results directory."""
    from debategraph.eval.report import write_report
    from debategraph.policies.secrets import Redactor

    price = parse_prices(prices)
    try:
        report = write_report(
            results_dir,
            out,
            prices=price,
            plots=plots,
            decisions=decision or (),
            sid_et_skip_rates=[_skip_rate(x) for x in sid_et_skip_rate or ()],
            redact=Redactor.from_environment(),
            compare=compare or (),
            baseline=baseline,
            holm=holm,
            resamples=resamples,
            bootstrap_seed=bootstrap_seed,
        )
    except (FileNotFoundError, ValueError) as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot write the report to {out or results_dir}: {exc.strerror or exc}")
    except ImportError:
        fail("plots need matplotlib: pip install 'debategraph[plots]', or pass --no-plots")
    typer.echo(f"wrote {report}")


def show_command(
    results_dir: Annotated[Path, typer.Argument(help="A results directory (debategraph eval).")],
    item: Annotated[str, typer.Argument(help="The item's id, e.g. gsm8k-test-0007.")],
    method: Annotated[
        list[str] | None,
        typer.Option(help="Only this method's debate (its label in the results); repeat."),
    ] = None,
    show_text: Annotated[bool, typer.Option(help="Show every reply's text.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the stored rows as JSON.")] = False,
) -> None:
    """Print a stored debate as `debategraph run` prints it: who read whom, answers, decision."""
    import json

    from rich.console import Console
    from rich.markup import escape as rich_escape

    from debategraph.eval.results import load_rows
    from debategraph.eval.rows import result_from_row
    from debategraph.policies.secrets import Redactor
    from debategraph.transcript import CELL_CHARS, LINE_CHARS, print_transcript

    if not (results_dir / RESULTS_FILE_NAME).is_file():
        fail(f"{results_dir} holds no {RESULTS_FILE_NAME}: give a directory written by eval")
    rows = load_rows(results_dir).rows
    wanted = [r for r in rows if str(r["id"]) == item and (not method or r["method"] in method)]
    if not wanted:
        ids = sorted({cut_text(str(r["id"]), CELL_CHARS) for r in rows})
        methods = sorted({cut_text(str(r["method"]), CELL_CHARS) for r in rows})
        fail(
            f"no stored debate of item {cut_text(repr(item), CELL_CHARS)}"
            + (f" by {', '.join(method)}" if method else "")
            + f" in {results_dir} (items such as {', '.join(ids[:3])}; methods: "
            f"{', '.join(methods[:20])})"
        )
    redactor = Redactor.from_environment()
    if as_json:
        for row in wanted:
            typer.echo(redactor(json.dumps(row, ensure_ascii=False)))
        return
    console = Console()
    for k, row in enumerate(wanted):
        if k:
            console.print()
        try:
            result = result_from_row(row)
        except ValueError as exc:
            warn(cut_text(str(exc), LINE_CHARS, redactor))
            continue
        print_transcript(result, console, show_text=show_text, redact=redactor)
        correct = row.get("correct")
        if row.get("reference") is not None:
            verdict = "right" if correct else "wrong"
            reference = rich_escape(visible(cut_text(str(row["reference"]), CELL_CHARS, redactor)))
            console.print(f"reference: {reference} ({verdict})")
