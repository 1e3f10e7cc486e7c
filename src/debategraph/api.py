"""One call to run a debate: ``run(...)`` / ``await arun(...)`` -> ``DebateResult``."""

from __future__ import annotations

import os
import warnings
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from threading import Lock
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.cache.base import BaseCache
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import CachePolicy, RetryPolicy

from debategraph.graphs.debate import build_debate_graph, resolve_method
from debategraph.methods.contract import DebateView, Method
from debategraph.models.credentials import model_secrets
from debategraph.models.resolve import Models, model_key, model_label
from debategraph.models.roster import Agent, AgentsSpec, make_roster
from debategraph.nodes.cache import call_cache_key, open_sqlite_cache
from debategraph.nodes.decision_calls import needs_in_force
from debategraph.nodes.retry import DEFAULT_ATTEMPTS, DEFAULT_BACKOFF_S, MODEL_RETRY, model_retry
from debategraph.nodes.runnable import run_sync
from debategraph.nodes.start import check_question, check_settings
from debategraph.policies.accounting import rounds_with_calls
from debategraph.policies.answers import AnswerParser, Normalizer, parser_for
from debategraph.policies.secrets import remember_secrets
from debategraph.policies.types import TaskKind
from debategraph.result import DebateResult
from debategraph.state.context import DebateConfigError, DebateContext, unknown_keys
from debategraph.state.options import MethodOptions

__all__ = [
    "CacheSpec",
    "DebateConfigError",
    "DebateResult",
    "Prepared",
    "arun",
    "call_cache",
    "compiled_graph",
    "make_context",
    "prepare",
    "recursion_limit",
    "retry_settings",
    "run",
    "settings_record",
]

_GRAPHS: OrderedDict[tuple[Any, ...], tuple[Any, CompiledStateGraph[Any, Any, Any, Any]]] = (
    OrderedDict()
)
_GRAPHS_LOCK = Lock()
_GRAPHS_MAX = 64


def compiled_graph(
    method: str | Method[Any],
    agents: AgentsSpec = None,
    *,
    call_limiter: Any = None,
    parser: AnswerParser | None = None,
    retry_policy: RetryPolicy | None = MODEL_RETRY,
    cache: CacheSpec = None,
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """The compiled, checkpointer-free graph of a method and roster (cached per both).

    Graphs are cached by method, agent names, the identity of bound models, the call limiter,
    the parser, the retry policy and the model-call cache (the last 64 are kept).
    """
    store = call_cache(cache)
    m = resolve_method(method)
    roster = make_roster(agents, m.default_agents)
    remember_secrets(model_secrets(roster))
    key = (
        id(m),
        tuple(
            (a.name, a.model if isinstance(a.model, str | None) else id(a.model)) for a in roster
        ),
        id(call_limiter),
        id(parser),
        id(retry_policy),
        id(store),
    )
    with _GRAPHS_LOCK:
        hit = _GRAPHS.get(key)
        if hit is not None:
            _GRAPHS.move_to_end(key)
            return hit[1]
    graph = build_debate_graph(
        m,
        agents=roster,
        call_limiter=call_limiter,
        parser=parser,
        retry_policy=retry_policy,
        cache_policy=CachePolicy(key_func=call_cache_key) if store is not None else None,
        cache=store,
    ).compile(name=m.name)
    with _GRAPHS_LOCK:
        # Keep the objects behind the ids alive for as long as the entry lives.
        _GRAPHS[key] = ((m, roster, call_limiter, parser, retry_policy, store), graph)
        while len(_GRAPHS) > _GRAPHS_MAX:
            _GRAPHS.popitem(last=False)
    return graph


CacheSpec = str | os.PathLike[str] | BaseCache[Any] | None
"""A model-call cache: a SQLite file path, a LangGraph ``BaseCache``, or ``None``."""

_SQLITE_CACHES: dict[str, BaseCache[Any]] = {}


def call_cache(cache: CacheSpec) -> BaseCache[Any] | None:
    """The node cache behind a cache spec; one SQLite cache per file, opened once.

    Every model call is cached under its whole call (see :mod:`debategraph.nodes.cache`):
    the agent, the round, the text of the turns it reads, the method, the model and the
    generation settings, so every round of a repeated debate is served from the cache. A
    call-level key matters: two agents (or self-consistency samples) sending the same prompt
    to the same model are different draws and must not share one cached reply, which an
    LLM-level cache keyed on the prompt and the model would do. A SQLite file stores replies
    with their secrets redacted.

    Raises:
        DebateConfigError: The path is a directory, not a SQLite file, or not writable.
        CacheError: The file is damaged or read-only (checked when it is opened).
    """
    if cache is None or isinstance(cache, BaseCache):
        return cache
    path = Path(cache).expanduser().resolve()
    with _GRAPHS_LOCK:
        opened = _SQLITE_CACHES.get(str(path))
        if opened is None or getattr(opened, "broken", False):  # reopened after a failure
            _SQLITE_CACHES[str(path)] = open_sqlite_cache(path)
        return _SQLITE_CACHES[str(path)]


def retry_settings(max_attempts: int | None, retry_backoff: float | None) -> RetryPolicy:
    """The model-call retry policy of these settings (defaults where ``None``).

    Raises:
        DebateConfigError: An attempt count or backoff out of range.
    """
    return model_retry(
        DEFAULT_ATTEMPTS if max_attempts is None else max_attempts,
        DEFAULT_BACKOFF_S if retry_backoff is None else retry_backoff,
    )


def models_argument(models: Any, model: Any) -> Any:
    """``models=``, or the deprecated ``model=`` (with a warning); both is an error."""
    if model is None:
        return models
    if models is not None:
        raise DebateConfigError("give models= only (model= is its old name)")
    warnings.warn(
        "model= is now models= (as in DebateContext): one spec or object for every agent, "
        "or a list with one per agent; model= is accepted until 0.3",
        DeprecationWarning,
        stacklevel=3,
    )
    return model


def _roster_and_models(
    method: Method[Any], agents: AgentsSpec, given: Any
) -> tuple[tuple[Agent, ...], list[str] | None]:
    """The roster, with model objects bound to it, and the string specs for the context."""
    roster = make_roster(agents, method.default_agents)
    if given is None:
        return roster, None
    models = list(given) if isinstance(given, list | tuple) else [given]
    if all(isinstance(m, str) for m in models):
        return roster, models
    if len(models) not in (1, len(roster)):
        raise DebateConfigError(
            f"got {len(models)} models for {len(roster)} agents: pass one model, or one per agent"
        )
    if method.single_model and len(models) > 1:
        raise DebateConfigError("this method samples one model: pass a single model")
    bound = models * len(roster) if len(models) == 1 else models
    return tuple(Agent(a.name, a.model or m) for a, m in zip(roster, bound, strict=True)), None


def make_context(
    method: str | Method[Any] = "du",
    *,
    options: Mapping[str, Any] | MethodOptions | None = None,
    models: list[str] | None = None,
    **settings: Any,
) -> DebateContext:
    """A checked context from keyword settings (``DebateContext`` fields).

    ``options`` are the method's options (``method_options``): a dict or the method's options
    object; they are checked against the method here.

    Raises:
        DebateConfigError: Bad values, unknown settings or options.
    """
    m = resolve_method(method)
    unknown_keys(settings)
    if options is not None:
        settings["method_options"] = options
    if models is not None:
        settings["models"] = models
    try:
        ctx = DebateContext(**settings)
    except TypeError as exc:
        raise DebateConfigError(str(exc)) from None
    m.options_for(ctx)
    return ctx


def recursion_limit(method: Method[Any], ctx: DebateContext, agents: Sequence[str]) -> int:
    """LangGraph steps the debate may take, from the method's own bounds.

    The outer loop takes one step to start, one per round (the initial round included) and
    one to decide; a round takes three steps per phase (plan, calls, observe) and one more to
    end. The judge rule's call is one more phase of the last round.
    """
    view = DebateView(
        method=method,
        state={"agents": list(agents), "turns": [], "round": 0},
        context=ctx,
        options=method.options_for(ctx),
        agents=tuple(agents),
        round=0,
    )
    outer = method.max_rounds(view) + 3
    phases = method.max_phases + (1 if needs_in_force(method, ctx).judge else 0)
    inner = 3 * phases + 1
    return max(outer, inner) + 2


@dataclass(frozen=True)
class Prepared:
    """A debate's method, roster and checked context, ready to run."""

    method: Method[Any]
    roster: tuple[Agent, ...]
    context: DebateContext

    @property
    def names(self) -> list[str]:
        """The agent names."""
        return [a.name for a in self.roster]


def prepare(
    *,
    method: str | Method[Any] = "du",
    agents: AgentsSpec = None,
    models: Any = None,
    options: Mapping[str, Any] | MethodOptions | None = None,
    model: Any = None,
    **settings: Any,
) -> Prepared:
    """Check a debate's settings against its method and roster, resolving every model once.

    Takes the keyword settings of :func:`arun` (other than the question and run plumbing).

    Raises:
        DebateConfigError: The first problem found, with what to change.
    """
    m = resolve_method(method)
    roster, specs = _roster_and_models(m, agents, models_argument(models, model))
    ctx = make_context(m, options=options, models=specs, **settings)
    check_settings(m, roster, ctx)
    return Prepared(m, roster, ctx)


async def arun(
    question: str,
    *,
    method: str | Method[Any] = "du",
    agents: AgentsSpec = None,
    task: TaskKind = "number",
    choices: Sequence[str] | None = None,
    reference: str | None = None,
    models: Any = None,
    options: Mapping[str, Any] | MethodOptions | None = None,
    config: RunnableConfig | None = None,
    call_limiter: Any = None,
    parser: AnswerParser | None = None,
    normalize: Normalizer | None = None,
    retry_policy: RetryPolicy | None = MODEL_RETRY,
    max_attempts: int | None = None,
    retry_backoff: float | None = None,
    cache: CacheSpec = None,
    item_id: str | None = None,
    model: Any = None,
    **settings: Any,
) -> DebateResult:
    """Run one debate and return its result.

    Args:
        question: The question, verbatim.
        method: A registered method name (``debategraph methods``), a
            ``"package.module:ATTR"`` string, or a ``Method``.
        agents: A count, agent names, or ``Agent(name, model)`` specs (the method's default
            count if ``None``).
        task: Answer kind: ``number``, ``choice``, ``math`` or ``text``.
        choices: Options of a multiple-choice question.
        reference: The right answer, kept for evaluation and never shown to agents.
        models: A model spec string, a chat model or agent runnable, or a list with one per
            agent (strings go to the context's ``models``; objects are bound to the roster).
        options: The method's options (a dict, or its options object).
        config: LangGraph run config (callbacks, ``max_concurrency``, tags).
        call_limiter: Bounds in-flight model calls across debates sharing it.
        parser: How answers are read, ``(response, task, num_choices) -> Extraction``.
        normalize: A DSPy-style ``normalize(declared fragment) -> str | None`` instead of a
            whole parser (the engine still finds the declarations; see ``parser_for``).
        retry_policy: Retry policy of every model call (default: transient failures, six
            attempts, 1 s backoff doubling; see :mod:`debategraph.nodes.retry`); ``None``: none.
        max_attempts: Attempts per model call, instead of the default policy's six.
        retry_backoff: The first wait between attempts in seconds, instead of 1 s.
        cache: Cache model calls in this SQLite file (or LangGraph ``BaseCache``); see
            :func:`call_cache`.
        item_id: The question's id in its dataset; it seeds the item's random tie-breaks.
        model: Deprecated name of ``models``.
        **settings: Any other ``DebateContext`` field (``rounds``, ``seed``, ``personas``,
            ``temperature``, ``frequency_penalty``...), where each is declared.

    Raises:
        DebateConfigError: Invalid settings; raised before any model call.
    """
    choices = list(choices) if choices else None
    inputs = {"question": question, "task": task, "choices": choices, "item_id": item_id}
    check_question(inputs)
    parser, retry_policy = _call_policies(
        task, parser, normalize, retry_policy, max_attempts, retry_backoff
    )
    models = models_argument(models, model)
    p = prepare(method=method, agents=agents, models=models, options=options, **settings)
    m, ctx = p.method, p.context
    run_config: RunnableConfig = {"recursion_limit": recursion_limit(m, ctx, p.names)}
    run_config.update(config or {})
    graph = compiled_graph(
        m,
        p.roster,
        call_limiter=call_limiter,
        parser=parser,
        retry_policy=retry_policy,
        cache=cache,
    )
    state = await graph.ainvoke(inputs, run_config, context=ctx)
    return _result(p, state, question=question, reference=reference, task=task)


def _call_policies(
    task: TaskKind,
    parser: AnswerParser | None,
    normalize: Normalizer | None,
    retry_policy: RetryPolicy | None,
    max_attempts: int | None,
    retry_backoff: float | None,
) -> tuple[AnswerParser | None, RetryPolicy | None]:
    """The answer parser and the retry policy of :func:`arun`'s arguments, checked."""
    if parser is not None or normalize is not None:
        try:
            parser = parser_for(task, parser, normalize)
        except ValueError as exc:
            raise DebateConfigError(str(exc)) from None
    if max_attempts is not None or retry_backoff is not None:
        if retry_policy is not MODEL_RETRY:
            raise DebateConfigError("give retry_policy, or max_attempts / retry_backoff, not both")
        retry_policy = retry_settings(max_attempts, retry_backoff)
    return parser, retry_policy


def _result(
    p: Prepared, state: dict[str, Any], *, question: str, reference: str | None, task: TaskKind
) -> DebateResult:
    """The result of a finished debate's final state."""
    m, ctx = p.method, p.context
    books = Models(p.roster, ctx, single_model=m.single_model)
    decision = state["decision"]
    return DebateResult(
        method=m.name,
        question=question,
        answer=decision["answer"],
        decision={"rule": decision["rule"], "evidence": decision["evidence"]},
        rounds=rounds_with_calls(state["turns"]),
        agents=[{"name": a, "model": model_label(books.model(a))} for a in p.names],
        turns=state["turns"],
        cut_off=list(state.get("cut_off", [])),
        adversaries=dict(ctx.adversaries),
        method_state=state.get("method_state", {}),
        reference=reference,
        settings=settings_record(
            m, ctx, [model_key(books.spec_of(a)) for a in [*p.names, *m.roles]]
        ),
        task=task,
    )


def settings_record(
    method: Method[Any], ctx: DebateContext, models: Sequence[str] = ()
) -> dict[str, Any]:
    """The settings a debate ran with, JSON-safe (what a result row records).

    With a sampling preset, ``sampling`` names it, its source, and the settings every model
    (by spec or label, from ``models``) was called with.
    """
    options = method.options_for(ctx).to_dict()
    record: dict[str, Any] = {
        "rounds": method.rounds_for(ctx),
        "models": ctx.models,
        "seed": ctx.seed,
        "tie_policy": ctx.tie_policy,
        "decision": ctx.decision or method.decision,
        "options": options,
    }
    if ctx.personas:
        record["personas"] = dict(ctx.personas)
    record["peer_reasoning"] = ctx.peer_reasoning
    if ctx.thinking:
        record["thinking"] = dict(ctx.thinking)
    generation = ctx.generation()
    if ctx.timeout is not None:
        generation["timeout"] = ctx.timeout
    if generation:
        record["generation"] = generation
    if ctx.settings is not None:
        preset = method.preset(ctx.settings)
        record["sampling"] = {
            "preset": ctx.settings,
            "source": preset.source,
            "by_model": {key: method.generation_for(ctx, key) for key in dict.fromkeys(models)},
        }
    return record


def run(question: str, **kwargs: Any) -> DebateResult:
    """Synchronous :func:`arun`: run one debate and return its result.

    Works inside a running event loop too (a Jupyter cell): the debate then runs on a fresh
    loop in a worker thread.
    """
    return run_sync(arun(question, **kwargs))
