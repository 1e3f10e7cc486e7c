"""The evaluation settings of ``debategraph eval``, declared once.

Its options and a sweep file's top-level keys are both read from :class:`EvalOptions`' fields.

The debate settings every arm takes (``--rounds``, ``--temperature``...) are declared on
:class:`~debategraph.state.context.DebateContext` instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from debategraph.cli_options import CACHE_HELP, NO_CACHE_HELP, PRICES_HELP
from debategraph.eval.datasets import DATASETS
from debategraph.eval.run.budget import Budget
from debategraph.state.setting import SEED_MAX, Bounds, setting

TOP = "top level"
"""Where a sweep file takes the item selection and the run's own settings."""


@dataclass(frozen=True, kw_only=True, eq=False)
class EvalOptions:
    """What ``debategraph eval`` is asked to do, besides the debate settings of its arms."""

    method: list[str] | None = setting(
        "evaluation",
        help="A method to evaluate (a registered name, see debategraph methods, or "
        "package.module:ATTR); repeat.",
        config="an arm",
    )
    config: Path | None = setting(
        "evaluation",
        help="A sweep file (TOML): dataset, shared settings and named arms; see "
        "docs/evaluation.md. --limit, --out, --cache, --concurrency, --rps and the engine "
        "flags override it.",
    )
    dataset: str | None = setting(
        "evaluation", help=f"One of: {', '.join(DATASETS)} (default gsm8k).", toml=str, config=TOP
    )
    limit: int | None = setting(
        "evaluation",
        help="Seeded sample of this many items (all by default).",
        toml=int,
        bounds=Bounds(1, 100_000_000),
    )
    seed: int | None = setting(
        "evaluation",
        help="Seed of the sample and of every debate (default 0); with --seeds, of the "
        "sample only.",
        toml=int,
        config="top level for the sample, [settings] for the debates",
        bounds=Bounds(0, SEED_MAX),
    )
    seeds: str | None = setting(
        "evaluation",
        help="Run every method once per seed on the same sample (e.g. 0,1,2,3,4): the "
        "debates' seeds; rows record theirs and the report gives accuracy mean ± sd over "
        "seeds.",
        toml=list,
        config=TOP,
    )
    ids: str | None = setting(
        "evaluation",
        help="Exactly these items: a file of ids, or id1,id2,...",
        toml=str,
        config=TOP,
    )
    path: str | None = setting(
        "evaluation", help="Your question set (.jsonl), with --dataset jsonl.", toml=str, config=TOP
    )
    cache: Path | None = setting("evaluation", flag="--cache", help=CACHE_HELP, toml=str)
    no_cache: bool = setting("evaluation", default=False, flag="--no-cache", help=NO_CACHE_HELP)
    match_budget: Budget | None = setting(
        "evaluation",
        help="Also run sc@M per method M, self-consistency at M's budget on each item: "
        "'calls' (one sample per model call of M) or 'tokens' (as many samples as M's "
        "tokens buy); with several models also mav@M.",
        toml=object,  # true, "calls" or "tokens"
        config=TOP,
    )
    noise_control: bool = setting(
        "evaluation",
        default=False,
        help="Also run M+noise per debating method M: the same debate, but every peer turn an "
        "agent reads shows a rationale of another item of the dataset (seeded; the items' "
        "rationales, e.g. gsm8k's model solutions), so 'debate helped' can be told from "
        "'any extra context helped'. Same calls as M by construction.",
        toml=bool,
        config=TOP,
    )
    only_contested: bool = setting(
        "evaluation",
        default=False,
        help="Screen every item with the first debating method's agents at round 0 "
        "(arm vote@r0) and run the methods only where those answers disagree, as "
        "SVR-MAD's evaluation does; says how many items were skipped.",
        toml=bool,
        config=TOP,
    )
    concurrency: int = setting(
        "evaluation",
        default=16,
        help="Most model calls in flight at once, over all items.",
        toml=int,
        bounds=Bounds(1, 100_000),
    )
    rps: float | None = setting(
        "evaluation",
        help="Most requests per second to provider models.",
        toml=float,
        bounds=Bounds(0, 1_000_000, above=True, whole=False),
    )
    engine: str | None = setting(
        "evaluation",
        help="Where the debates run: local (this process, the default) or ray (Ray "
        "workers; pip install 'debategraph[ray]'). --concurrency and --rps are shared "
        "out among the workers.",
        toml=str,
    )
    address: str | None = setting(
        "evaluation",
        help="With --engine ray: join this Ray cluster (auto, or HOST:PORT of its head) "
        "instead of starting a local one.",
        toml=str,
    )
    workers: int | None = setting(
        "evaluation",
        help="With --engine ray: how many workers (default: this machine's cores, or "
        "the cluster's CPUs with --address).",
        toml=int,
        bounds=Bounds(1, 100_000),
    )
    out: Path | None = setting(
        "evaluation", help="Results directory (default results/DATASET-METHODS).", toml=str
    )
    force: bool = setting(
        "evaluation", default=False, help="Discard results in --out written with other settings."
    )
    fsync: bool = setting(
        "evaluation", default=False, help="fsync every result line.", cli_default=False
    )
    prices: str | None = setting("evaluation", help=PRICES_HELP)
    max_usd: float | None = setting(
        "evaluation",
        help="Stop the run cleanly once --out has spent this many dollars over all its runs "
        "(needs --prices; every input token at the input price); resume with a higher "
        "limit to continue.",
        toml=float,
        bounds=Bounds(0, 1_000_000_000, above=True, whole=False),
    )
    max_tokens_total: int | None = setting(
        "evaluation",
        help="Stop the run cleanly once --out has spent this many input plus output tokens "
        "over all its runs; resume with a higher limit to continue.",
        toml=int,
        bounds=Bounds(1, 10**15),
    )
    quiet: bool = setting("evaluation", default=False, help="No progress bar.")
    texts: bool = setting(
        "evaluation",
        default=True,
        help="Keep every reply's text in the rows (debategraph show prints them); "
        "--no-texts for very large runs.",
        toml=bool,
    )
    prompts: bool = setting(
        "evaluation",
        default=False,
        help="Also keep every call's prompt (its last user message) in the rows, for "
        "debategraph show and export --to inspect; off by default, as prompts make rows "
        "about twice as large or more.",
        toml=bool,
    )
