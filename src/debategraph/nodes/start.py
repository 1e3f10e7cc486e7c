"""The start node: checks the input and the settings, then starts a fresh debate.

Every new input starts over, so invoking a graph again on the same thread (with a
checkpointer) debates the new question instead of returning the last answer; resuming after
an interrupt does not pass through here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, get_args

from langgraph.types import Overwrite

from debategraph.methods.contract import Method, check_rule_settings
from debategraph.models.resolve import (
    ModelConfigError,
    Models,
    model_key,
    model_label,
    takes_top_k,
)
from debategraph.models.roster import Agent
from debategraph.nodes.runnable import DualNode
from debategraph.nodes.view import current_context
from debategraph.policies.types import TaskKind
from debategraph.state.context import MAX_AGENTS, DebateConfigError, DebateContext, key_hints
from debategraph.state.debate import DebateRequest


def check_question(state: Mapping[str, Any]) -> None:
    """Check the debate's input: a question, a known task kind, choices for a choice task.

    Raises:
        DebateConfigError: What is wrong and how to fix it.
    """
    question = state.get("question")
    if not isinstance(question, str) or not question.strip():
        raise DebateConfigError("the question is empty")
    task = state.get("task") or "number"
    if task not in get_args(TaskKind):
        raise DebateConfigError(
            f"task must be one of {', '.join(get_args(TaskKind))}, got {task!r}"
        )
    choices = state.get("choices")
    if task == "choice" and (not choices or len(choices) < 2):
        raise DebateConfigError("a choice task needs at least two choices (--choice, repeated)")
    if choices is not None and (
        isinstance(choices, str)
        or len(choices) > 26
        or not all(isinstance(c, str) and c.strip() for c in choices)
    ):
        raise DebateConfigError("choices must be a list of at most 26 non-empty strings")


def check_input_keys(given: Mapping[str, Any]) -> None:
    """Refuse input keys that no debate input has, naming the likely one meant.

    A graph keeps only the keys of its input schema, so a misspelt one (``questions``) would
    otherwise vanish and the debate fail for a reason that hides the typo.

    Raises:
        DebateConfigError: The unknown keys, close matches, and every valid key.
    """
    fields = list(DebateRequest.model_fields)
    hints = key_hints([str(k) for k in given], fields)
    if hints:
        raise DebateConfigError(
            f"unknown input key(s) {', '.join(hints)}; a debate's input takes {', '.join(fields)}"
        )


def check_settings(method: Method[Any], roster: Sequence[Agent], ctx: DebateContext) -> None:
    """Check a context against a method and a roster, resolving every model once.

    Raises:
        DebateConfigError: The first problem found, with what to change.
    """
    names = [a.name for a in roster]
    if len(names) > MAX_AGENTS and not ctx.allow_large:
        raise DebateConfigError(
            f"agents must be at most {MAX_AGENTS}, got {len(names)} "
            "(set allow_large, or --allow-large, to go beyond)"
        )
    method.check_agents(len(names))
    ctx.validate(names, single_model=method.single_model)
    check_rounds(method, ctx.rounds)
    check_rule_settings(method, names, ctx)
    options = method.options_for(ctx)
    try:
        options.check_environment()
    except ValueError as exc:
        raise DebateConfigError(f"{method.name} options: {exc}") from None
    unknown_roles = sorted(set(ctx.role_models) - set(method.roles))
    if unknown_roles:
        raise DebateConfigError(
            f"role_models names {unknown_roles}, but {method.name} has "
            f"{'roles ' + ', '.join(method.roles) if method.roles else 'no roles'}"
        )
    if ctx.settings is not None:
        method.preset(ctx.settings)
    models = Models(roster, ctx, single_model=method.single_model)
    try:
        models.check([*names, *method.roles])
    except ModelConfigError as exc:
        raise DebateConfigError(str(exc)) from None
    for speaker in [*names, *method.roles]:
        _check_top_k(method, ctx, models, speaker)
        _check_thinking(ctx, models, speaker)


def _check_thinking(ctx: DebateContext, models: Models, speaker: str) -> None:
    """Refuse a ``thinking`` setting for a model not served at ``base_url`` (before any call)."""
    value = ctx.thinking_for(speaker)
    model = models.model(speaker)
    if value is None or getattr(type(model), "sends_thinking", False):
        return
    raise DebateConfigError(
        f"thinking={value} of {speaker} cannot be sent to {model_label(model)}: only a model "
        "served at base_url (vLLM, SGLang, llama.cpp) takes it; for OpenAI's reasoning models "
        "set reasoning_effort"
    )


def _check_top_k(method: Method[Any], ctx: DebateContext, models: Models, speaker: str) -> None:
    """Refuse a top-k that the speaker's model class cannot send (before any call)."""
    top_k = method.generation_for(ctx, model_key(models.spec_of(speaker))).get("top_k")
    model = models.model(speaker)
    if top_k is None or takes_top_k(model):
        return
    label = model_label(model)
    asked = (
        f"top_k={top_k} cannot be sent to {label}"
        if ctx.top_k
        else f"the {ctx.settings!r} sampling preset of {method.name} sets top_k={top_k}, "
        f"which {label} cannot send"
    )
    raise DebateConfigError(
        f"{asked} (OpenAI's API and agent runnables take no top-k): serve the model at "
        "base_url (vLLM, llama.cpp and Ollama take it), or set top_k=0 (--top-k 0) to send none"
    )


def check_rounds(method: Method[Any], rounds: int | None) -> None:
    """Refuse debate rounds for a method that never debates (``cot``, ``sc``, ``mav``).

    Such a method (no debate, no rounds by default) has agents that answer once and never read
    each other; rounds would make them read and revise, a different method under the
    baseline's name. ``rounds=0`` is its own setting and passes. A method that does not debate
    but has rounds of its own (``self-refine``'s iterations, ``moa``'s layers) takes them. An
    evaluation's shared ``--rounds`` never reaches these methods (see
    :func:`debategraph.eval.run.arms.arms_for`), so only a setting aimed at the method is refused.

    Raises:
        DebateConfigError: ``rounds`` above 0 for a method that does not debate.
    """
    if method.debates or method.default_rounds > 0 or not rounds:
        return
    raise DebateConfigError(
        f"{method.name} does not debate (its agents answer once and never read each other), "
        f"so rounds={rounds} would turn it into a debate: leave rounds unset (--rounds), "
        "or choose a method that debates, such as du"
    )


def make_start_node(method: Method[Any], roster: Sequence[Agent]) -> DualNode:
    """Start node for ``method`` with ``roster``: check, then reset the debate state."""
    names = [a.name for a in roster]

    def start(state: Mapping[str, Any]) -> dict[str, Any]:
        ctx = current_context()
        check_question(state)
        check_settings(method, roster, ctx)
        return {
            "agents": names,
            "cut_off": ctx.cut_off_agents(names),
            "turns": Overwrite([]),
            "round": -1,
            "phase": None,
            "method_state": Overwrite({}),
            "decision": None,
        }

    return DualNode("start", start)
