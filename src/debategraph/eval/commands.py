"""The ``debategraph eval`` and ``debategraph report`` commands (registered in ``cli.py``)."""

from __future__ import annotations

import errno
import math
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from debategraph.cli_options import (
    PRICES_HELP,
    SIMULATOR_BLIND,
    bounded,
    chosen_cache,
    err,
    fail,
    named,
    parse_pairs,
    simulated,
    warn,
)
from debategraph.cli_settings import GivenSettings, with_settings
from debategraph.eval.datasets import DatasetFormatError, load_dataset
from debategraph.eval.run.budget import Budget
from debategraph.eval.run.eval_options import EvalOptions
from debategraph.policies.terminal import cut_text, visible
from debategraph.state.setting import SEED_MAX, Bounds
from debategraph.state.settings_table import declarations

RESULTS_FILE_NAME = "results.jsonl"

RESAMPLES = Bounds(1, 1_000_000)
"""How many resamples ``report --resamples`` takes (a billion would need gigabytes)."""

if TYPE_CHECKING:
    from debategraph.eval.run.eval_plan import EvalPlan
    from debategraph.eval.run.executors import Executor
    from debategraph.eval.run.runner import Arm


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
    from debategraph.eval.run.runner import check_seeds

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


@with_settings("eval", EvalOptions)
def eval_command(*, given: GivenSettings) -> None:
    """Evaluate methods on a dataset; resumable (re-run the same command to continue)."""
    from debategraph.eval.run.eval_plan import EvalPlan

    opts: EvalOptions = given.own
    price = parse_prices(opts.prices)
    seed_list = parse_seeds(opts.seeds)
    if opts.config is not None:
        _refuse_beside_config(opts, given)
        _run_sweep(opts.config, opts, price)
        return
    dataset = "gsm8k" if opts.dataset is None else opts.dataset
    seed = opts.seed or 0
    arms = _cli_arms(opts, given, seed=None if seed_list is not None else seed)
    out = Path("results") / _default_out(dataset, arms, opts.only_contested, seed_list)
    plan = EvalPlan(
        dataset=dataset,
        selection={"limit": opts.limit, "seed": seed, "ids": opts.ids, "path": opts.path},
        out_dir=opts.out or out,
        concurrency=opts.concurrency,
        rps=opts.rps,
        cache=chosen_cache(opts.cache, opts.no_cache),
        match_budget=opts.match_budget,
        noise_control=opts.noise_control,
        only_contested=opts.only_contested,
        force=opts.force,
        fsync=opts.fsync,
        quiet=opts.quiet,
        price=price,
        texts=opts.texts,
        prompts=opts.prompts,
        executor=_executor(opts, {}),
        seeds=seed_list,
        spend_limit=_spend_limit(opts, {}, price),
    )
    _run_arms(arms, plan)


def _spend_limit(opts: EvalOptions, sweep: dict[str, Any], price: dict[str, float] | None) -> Any:
    """The spend limit of --max-usd and --max-tokens-total (over a sweep file's), or ``None``."""
    from debategraph.eval.log.spend import SpendLimit

    usd = opts.max_usd if opts.max_usd is not None else sweep.get("max_usd")
    tokens = (
        opts.max_tokens_total
        if opts.max_tokens_total is not None
        else sweep.get("max_tokens_total")
    )
    if usd is None and tokens is None:
        return None
    limit = SpendLimit(max_usd=usd, max_tokens=tokens, prices=price)
    try:
        limit.check()
    except ValueError as exc:
        fail(str(exc))
    return limit


def _refuse_beside_config(opts: EvalOptions, given: GivenSettings) -> None:
    """Exit 2 on a flag that belongs in the sweep file given with ``--config``, saying where."""
    for s in declarations(EvalOptions):
        value = getattr(opts, s.name)
        if s.config is not None and value != s.cli_default and value != []:
            what = f"{s.name} = true" if s.cli_type is bool else s.option
            fail(f"with --config, put {what} in the sweep file ({s.config})")
    changed = given.changed()
    if changed:
        fail(f"with --config, put {changed[0]} in the sweep file (its [settings] or an arm)")


def _run_sweep(config: Path, opts: EvalOptions, price: dict[str, float] | None) -> None:
    """Run a sweep file, its evaluation settings overridden by the flags that may be."""
    from debategraph.eval.run.eval_plan import EvalPlan
    from debategraph.eval.run.sweep import SweepError, load_sweep

    try:
        sweep = load_sweep(config)
    except SweepError as exc:
        fail(str(exc))
    run = sweep.run
    plan = EvalPlan(
        dataset=sweep.dataset,
        selection={**sweep.selection, "limit": opts.limit or sweep.selection.get("limit")},
        out_dir=opts.out or Path(run["out"]),
        concurrency=opts.concurrency if opts.concurrency != 16 else run.get("concurrency", 16),
        rps=opts.rps if opts.rps is not None else run.get("rps"),
        cache=chosen_cache(opts.cache, opts.no_cache)
        if opts.cache or opts.no_cache
        else run.get("cache"),
        match_budget=_budget(run.get("match_budget")),
        noise_control=opts.noise_control or bool(run.get("noise_control")),
        only_contested=bool(run.get("only_contested")),
        force=opts.force,
        fsync=opts.fsync,
        quiet=opts.quiet,
        price=price,
        texts=opts.texts if not opts.texts else bool(run.get("texts", True)),
        prompts=opts.prompts or bool(run.get("prompts", False)),
        executor=_executor(opts, run),
        seeds=run.get("seeds"),
        spend_limit=_spend_limit(opts, run, price),
    )
    _run_arms(sweep.arms, plan)


def _cli_arms(opts: EvalOptions, given: GivenSettings, *, seed: int | None) -> list[Arm]:
    """One arm per ``--method``, with the debate settings given; exits 2 on a bad one."""
    from debategraph.eval.run.runner import arms_for
    from debategraph.methods.registry import PluginError, get_method

    method = opts.method
    if not method:
        fail("give a method to evaluate (--method du, repeat for more), or a sweep --config")
    try:
        for spec in method:
            get_method(spec)
    except PluginError as exc:
        fail(str(exc))
    settings = given.values()
    gate = settings.pop("gate", None)
    if gate is not None:
        method = _gated(method, gate)
    rounds = settings.get("rounds")
    settings = {"seed": seed, **settings}  # --seeds: each unit's seed
    try:
        arms = arms_for(method, settings, options=parse_pairs(given.pairs("options"), "--option"))
    except ValueError as exc:
        fail(str(exc))
    if rounds and not any(get_method(spec).debates for spec in method):
        warn(
            f"--rounds {rounds} reaches none of these methods ({', '.join(method)}): they "
            "never debate, so each keeps its single round"
        )
    return arms


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


def _screened(items: int, seeds: Sequence[int] | None) -> str:
    """What ``--only-contested`` screened: ``40 items``, or ``120 (item, seed) pairs``."""
    return f"{items} items" if seeds is None else f"{items * len(seeds)} (item, seed) pairs"


def _cut_short_words(debates: list[dict[str, Any]], out_dir: Path) -> str:
    """What the debates Ctrl-C cut short had spent, for the ``interrupted:`` line."""
    from debategraph.eval.log.files import INTERRUPTED_FILE
    from debategraph.eval.log.ledger import totals

    if not debates:
        return ""
    spent = totals(debates)
    cut_off = sum(int(d.get("cut_off_requests") or 0) for d in debates)
    estimate = sum(int(d.get("estimated_input_tokens") or 0) for d in debates)
    in_flight = (
        f", {cut_off} of them cut off in flight (their prompts were about {estimate} input "
        "tokens, an estimate; what the provider bills for them is not known here)"
        if cut_off
        else ""
    )
    return (
        f"{spent['debates']} debate(s) cut short had spent {spent['input_tokens']} input and "
        f"{spent['output_tokens']} output tokens in {spent['requests']} requests{in_flight} "
        f"(logged in {out_dir / INTERRUPTED_FILE}); "
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


def _executor(opts: EvalOptions, sweep: dict[str, Any]) -> Executor:
    """The executor of --engine, --address and --workers (over a sweep file's); exits 2."""
    from debategraph.eval.run.executors import executor_for

    given: dict[str, Any] = {
        "engine": opts.engine,
        "address": opts.address,
        "workers": opts.workers,
    }
    chosen = {k: v if v is not None else sweep.get(k) for k, v in given.items()}
    try:
        return executor_for(chosen["engine"], address=chosen["address"], workers=chosen["workers"])
    except ValueError as exc:
        fail(str(exc))


def _simulated_arm(arm: Arm) -> bool:
    model = arm.settings.get("models")
    specs = model if isinstance(model, list) else [model] if model is not None else None
    return all(isinstance(s, str) for s in specs or []) and simulated(specs)


def _run_arms(arms: list[Arm], plan: EvalPlan) -> None:
    """Load the items, run the arms (resumably) and print the table; exit on any error."""
    from debategraph.eval.analysis.ledger_bill import fold_ledger, ledger_words
    from debategraph.eval.analysis.summary_stream import summarize_stream
    from debategraph.eval.log.ledger import read_ledger
    from debategraph.eval.report.tables import results_table  # not the report's: no numpy, no plots

    _check_plan(plan)
    items = _items(plan)
    arms = _all_arms(arms, plan, items)
    if any(_simulated_arm(arm) for arm in arms):
        from debategraph.models.oracle import lookup

        blind = sum(lookup(item.question) is None for item in items)
        if blind:
            warn(f"{blind} of {len(items)} questions: {SIMULATOR_BLIND}")
    from debategraph.tracing_guard import check_tracing

    check_tracing(warn)
    outcome = _execute(items, arms, plan)
    for problem in outcome.problems:
        warn(problem)
    summary = summarize_stream(outcome.summary_rows(), plan.price)
    damaged: list[str] = []
    beside = fold_ledger([summary], read_ledger(plan.out_dir, damaged), plan.price)
    for problem in damaged:
        warn(problem)
    typer.echo(visible(results_table(summary, with_cost=plan.price is not None)))
    if plan.seeds is not None:
        from debategraph.eval.report.seeds_table import SEEDS_NOTE, seeds_table

        table = seeds_table(summary)
        if table:
            typer.echo(visible(f"\n{SEEDS_NOTE}\n\n{table}"))
    if plan.only_contested:
        _print_screen(summary, arms, outcome.settled, len(items), plan.seeds)
    typer.echo(
        f"\n{outcome.count} rows in {outcome.path} ({outcome.resumed} resumed, "
        f"{outcome.written} new, {outcome.wall_s:.1f} s). Report: debategraph report "
        f"{plan.out_dir}"
    )
    if ledger_words(beside):
        typer.echo(ledger_words(beside))
    if outcome.failed:
        from debategraph.eval.log.row import opt
        from debategraph.eval.run.failed_rows import failure_advice, lasting_failures

        lasting = lasting_failures(r for r in outcome.summary_rows() if opt(r.error) is not None)
        fail(failure_advice(outcome.failed, lasting), code=1)


def _check_plan(plan: EvalPlan) -> None:
    """Exit 2 on a limit, concurrency or request rate out of range."""
    limit = plan.selection.get("limit")
    if limit is not None and limit < 1:
        fail(f"--limit must be at least 1, got {limit}")
    if plan.concurrency < 1:
        fail(f"--concurrency must be at least 1, got {plan.concurrency}")
    if plan.rps is not None and (not math.isfinite(plan.rps) or plan.rps <= 0):
        fail(f"--rps must be a number above 0 (requests per second), got {plan.rps}")


def _all_arms(arms: list[Arm], plan: EvalPlan, items: Sequence[Any]) -> list[Arm]:
    """The arms, the budget-matched and noise-control ones after, the screen before; exits 2."""
    from debategraph.eval.run.arms import noise_arms
    from debategraph.eval.run.runner import budget_arms, screen_arm

    try:
        debates = arms
        if plan.match_budget is not None:
            arms = arms + budget_arms(debates, plan.match_budget)
        if plan.noise_control:
            arms = arms + noise_arms(debates, items, seed=plan.selection.get("seed") or 0)
        if plan.only_contested:
            arms = [screen_arm(arms), *arms]
    except ValueError as exc:
        fail(str(exc))
    return arms


def _items(plan: EvalPlan) -> list[Any]:
    """The evaluated items; exits 2 with one line when they cannot be loaded."""
    limit = plan.selection.get("limit")
    ids = _ids(plan.selection.get("ids"))
    try:
        items = load_dataset(
            plan.dataset,
            limit=limit,
            seed=plan.selection.get("seed") or 0,
            ids=ids,
            path=plan.selection.get("path"),
        )
    except (ValueError, ImportError, OSError, EOFError, DatasetFormatError) as exc:
        fail(_dataset_error(exc))
    if limit is not None and len(items) < limit:
        warn(
            f"--limit {limit} is more than the {len(items)} items of {plan.dataset}: "
            "all of them run"
        )
    return items


def _progress(quiet: bool) -> Any:
    """A progress display on stderr: a bar on a terminal, a steady line in a log."""
    if quiet:
        return None
    from debategraph.eval.run.progress import IntervalProgress, RichProgress

    if sys.stderr.isatty():
        return RichProgress(err)
    every = float(os.environ.get("DEBATEGRAPH_PROGRESS_SECONDS") or 30)
    return IntervalProgress(every, write=_stderr_line)


def _execute(items: list[Any], arms: list[Arm], plan: EvalPlan) -> Any:
    """Run the evaluation; exits with one line on a fault, 130 on Ctrl-C (rows kept)."""
    from debategraph.api import DebateConfigError
    from debategraph.eval.log.store import RESULTS_FILE, OutputBusyError, SettingsMismatchError
    from debategraph.eval.run.cut_short import CUT_SHORT
    from debategraph.eval.run.runner import ServerDownError, SpendLimitReached, run_eval
    from debategraph.nodes.cache_guard import CacheError
    from debategraph.nodes.runnable import run_sync

    out_dir = plan.out_dir
    cut_short: list[dict[str, Any]] = []
    noting = CUT_SHORT.set(cut_short)
    try:
        progress = _progress(plan.quiet)
        return run_sync(run_eval(items, arms, plan, progress=progress))
    except CacheError as exc:  # a fault that running again would meet again
        kept = out_dir / RESULTS_FILE
        fail(
            f"{exc}; the rows finished before it are kept in {kept}" if kept.exists() else str(exc)
        )
    except (DebateConfigError, SettingsMismatchError, OutputBusyError, ValueError) as exc:
        fail(str(exc))
    except ServerDownError as exc:  # a server that is down: one line, not a failed row per item
        fail(str(exc), code=1)
    except SpendLimitReached as exc:
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


def _print_screen(
    summary: dict[str, Any], arms: list[Arm], settled: int, items: int, seeds: Sequence[int] | None
) -> None:
    """The ``--only-contested`` line: how many items were settled and skipped."""
    screen = summary[arms[0].label]["screen"] if arms[0].label in summary else None
    if screen is None:
        return
    contested = screen["items"] - screen["settled"]
    vote = (
        f"; on the {contested} contested ones, {arms[0].label}'s vote scores "
        f"{100 * screen['contested_accuracy']:.1f}% (its line above counts every item)"
        if contested
        else ""
    )
    typer.echo(
        f"\n--only-contested: {settled} of {_screened(items, seeds)} settled (all "
        f"{arms[0].settings['agents']} agents gave the same round-0 answer) and skipped "
        f"by the other methods{vote}"
    )


# The report command's options with a long help.
DecisionOption = Annotated[
    list[str] | None,
    typer.Option(
        help="Re-decide the stored debates with this rule, no model call (majority, "
        "supermajority, unanimity, freemad, reconcile, credibility, a plugin's, or "
        "package.module:ATTR; ballot rules and judge only on rows run with them; see "
        "debategraph rules); repeat to compare rules side by side."
    ),
]

SidEtSkipRateOption = Annotated[
    list[str] | None,
    typer.Option(
        help="Add SID-ET at this dataset-level skip rate (0.6 skips the 60% of questions "
        "whose first answer is most confident), read from a sid-et run with "
        "--option mode=record; 'auto' picks it by SVR-MAD's Alg. 2 against svr; repeat "
        "for several."
    ),
]

CompareOption = Annotated[
    list[str] | None,
    named(
        "--compare",
        "Compare two arms on the items both finished, A:B (the difference is A - B), "
        "with a paired score interval and an exact McNemar p-value; repeat for more. "
        "M@r0 names debate M's round-0 vote (the report's 'M · vote@r0').",
    ),
]


def report_command(
    results_dir: Annotated[Path, typer.Argument(help="Directory of *.jsonl result files.")],
    out: Annotated[
        Path | None, typer.Option(help="Where to write (default: the results directory).")
    ] = None,
    prices: Annotated[str | None, typer.Option(help=PRICES_HELP)] = None,
    plots: Annotated[bool, typer.Option(help="Draw the PNG plots (needs matplotlib).")] = True,
    decision: DecisionOption = None,
    sid_et_skip_rate: SidEtSkipRateOption = None,
    compare: CompareOption = None,
    baseline: Annotated[
        str | None, named("--baseline", "Compare every other arm with this arm as well.")
    ] = None,
    holm: Annotated[
        bool, typer.Option(help="Print Holm-adjusted p-values over all the comparisons.")
    ] = False,
    resamples: Annotated[
        int,
        bounded(
            "--resamples",
            RESAMPLES,
            "Resamples of the paired bootstrap and sign-flip test (rows of several seeds).",
        ),
    ] = 10_000,
    bootstrap_seed: Annotated[
        int,
        bounded(
            "--bootstrap-seed",
            Bounds(0, SEED_MAX),
            "Seed of the paired bootstrap and sign-flip test (rows of several seeds).",
        ),
    ] = 0,
) -> None:
    """Write report.md, summary.json and plots for a results directory."""
    from debategraph.eval.report.writer import write_report
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


def replay_command(
    results_dir: Annotated[Path, typer.Argument(help="Directory of *.jsonl result files.")],
    policy: Annotated[
        list[str],
        typer.Option(
            help="The intervention to replay, no model call: stop-at-round:R, "
            "stop-at-unanimity, gate:RULE (unanimous, entropy<H, confidence>C), "
            "freeze:AGENT (a name or a number from 1), or a plugin's NAME[:ARG]; repeat "
            "for several."
        ),
    ],
    arm: Annotated[
        list[str] | None, typer.Option(help="Only this arm (its label); repeat.")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the figures as JSON, one object.")
    ] = False,
) -> None:
    """Replay an intervention on stored debates: accuracy and tokens had it been in force."""
    import json

    from debategraph.eval.analysis.replay import replay
    from debategraph.eval.analysis.results import LoadedRows, stream_rows
    from debategraph.eval.report.replay_table import replay_table
    from debategraph.policies.secrets import Redactor

    if not results_dir.is_dir():
        fail(f"{results_dir} is not a directory: give a results directory written by eval")
    if next(iter(stream_rows(results_dir, LoadedRows())), None) is None:
        fail(f"no readable result rows in {results_dir}")
    out: dict[str, Any] = {}
    for spec in policy:  # each policy reads the rows again, one at a time: none is held
        try:
            out[spec] = replay(stream_rows(results_dir, LoadedRows()), spec, arms=arm or ())
        except ValueError as exc:
            fail(str(exc))
    redact = Redactor.from_environment()
    if as_json:
        typer.echo(redact(json.dumps(out, indent=2, default=str)))
        return
    typer.echo(redact("\n".join(replay_table(spec, arms) for spec, arms in out.items())))


def show_command(
    results_dir: Annotated[Path, typer.Argument(help="A results directory (debategraph eval).")],
    item: Annotated[str, typer.Argument(help="The item's id, e.g. gsm8k-test-0007.")],
    method: Annotated[
        list[str] | None,
        typer.Option(help="Only this method's debate (its label in the results); repeat."),
    ] = None,
    show_text: Annotated[
        bool,
        typer.Option(help="Show every reply's text, and its prompt where kept (eval --prompts)."),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the stored rows as JSON.")] = False,
) -> None:
    """Print a stored debate as `debategraph run` prints it: who read whom, answers, decision."""
    import json

    from rich.console import Console
    from rich.markup import escape as rich_escape

    from debategraph.eval.log.row import opt, row_dict
    from debategraph.eval.log.row_index import item_rows, known_keys
    from debategraph.eval.log.stored_debate import result_from_row
    from debategraph.policies.secrets import Redactor
    from debategraph.transcript import CELL_CHARS, LINE_CHARS, print_transcript

    if not (results_dir / RESULTS_FILE_NAME).is_file():
        fail(f"{results_dir} holds no {RESULTS_FILE_NAME}: give a directory written by eval")
    rows = item_rows(results_dir, item)
    wanted = [r for r in rows if not method or r.method in method]
    if not wanted:
        known_ids, known_methods = known_keys(results_dir)
        ids = sorted({cut_text(i, CELL_CHARS) for i in known_ids})
        methods = sorted({cut_text(m, CELL_CHARS) for m in known_methods})
        fail(
            f"no stored debate of item {cut_text(repr(item), CELL_CHARS)}"
            + (f" by {', '.join(method)}" if method else "")
            + f" in {results_dir} (items such as {', '.join(ids[:3])}; methods: "
            f"{', '.join(methods[:20])})"
        )
    redactor = Redactor.from_environment()
    if as_json:
        for row in wanted:
            typer.echo(redactor(json.dumps(row_dict(row), ensure_ascii=False)))
        return
    console = Console()
    for k, row in enumerate(wanted):
        if k:
            console.print()
        seed = opt(row.seed)
        of_seed = "" if seed is None else f" (seed {seed})"
        try:
            result = result_from_row(row)
        except ValueError as exc:
            warn(cut_text(f"{exc}{of_seed}", LINE_CHARS, redactor))
            continue
        if seed is not None:  # an item of a run of several seeds: one debate per seed
            console.print(f"[dim]seed {seed}[/]")
        print_transcript(
            result, console, show_text=show_text, redact=redactor, show_prompts=show_text
        )
        reference = opt(row.reference)
        if reference is not None:
            verdict = "right" if row.correct else "wrong"
            reference = rich_escape(visible(cut_text(str(reference), CELL_CHARS, redactor)))
            console.print(f"reference: {reference} ({verdict})")
