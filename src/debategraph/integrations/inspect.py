"""A debate as an Inspect solver: any method, on Inspect's models or ours (``[inspect]`` extra).

::

    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.scorer import match
    from debategraph.integrations.inspect import debate_solver

    task = Task(dataset=[Sample(input="What is 3+4*5?", target="23")],
                solver=debate_solver("du", agents=3, rounds=2), scorer=match(numeric=True))
    eval(task, model="openai/gpt-4o-mini")

The debaters run on the model under evaluation (``get_model()``), on an Inspect model role
(``role="debaters"``; a role bound to a list of models gives one per agent), or on our own
model specs (``models="openai:gpt-4o-mini"``). Inspect's models are wrapped as LangChain chat
models (:class:`InspectChatModel`), so every call shows in Inspect's transcript with its
usage. The debate's answer becomes the sample's output (for choice samples, its choice is
marked too), so ``match()``, ``includes()`` and ``choice()`` score it; an abstention is an
empty completion, which Inspect's scorers count as no response, never correct. The
method's roles (a summarizer, an evaluator) use the first agent's model.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, cast

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict

try:
    from inspect_ai.model import (
        ChatMessage,
        ChatMessageAssistant,
        ChatMessageSystem,
        ChatMessageUser,
        GenerateConfig,
        Model,
        ModelOutput,
        get_model,
        model_roles,
    )
    from inspect_ai.solver import Generate, Solver, TaskState, solver
except ImportError as exc:  # pragma: no cover - the message is the point
    raise ImportError(
        "debategraph.integrations.inspect needs inspect_ai: pip install 'debategraph[inspect]'"
    ) from exc

from debategraph.api import DebateConfigError, arun
from debategraph.eval.datasets.items import LETTERS, TASKS
from debategraph.integrations._common import checked, outcome
from debategraph.policies.types import TaskKind

__all__ = ["InspectChatModel", "debate_solver"]

_GENERATE_FIELDS = frozenset(GenerateConfig.model_fields)

log = logging.getLogger(__name__)


class InspectChatModel(BaseChatModel):
    """An Inspect ``Model`` as a LangChain chat model (asynchronous calls only).

    Generation settings (``temperature``, ``top_p``, ``top_k``, ``max_tokens``, ``stop``,
    ``logprobs``, ``top_logprobs``, ``seed``, ...) become the call's ``GenerateConfig``;
    token usage and logprobs come back in LangChain's form.

    Attributes:
        model: The Inspect model (``InspectChatModel(model=get_model(...))``).
        model_name: Its name in transcripts (default: Inspect's, e.g. ``openai/gpt-4o``).
    """

    model: Any
    model_name: str = ""
    sends_top_k: ClassVar[bool] = True
    model_config = ConfigDict(arbitrary_types_allowed=True)

    def model_post_init(self, context: Any, /) -> None:
        """Name the model as Inspect does (``mockllm/model``)."""
        if not self.model_name:
            self.model_name = str(self.model)

    @property
    def _llm_type(self) -> str:
        return "inspect"

    def _generate(self, *args: Any, **kwargs: Any) -> ChatResult:
        raise NotImplementedError(
            "an Inspect model is called asynchronously: use ainvoke / debategraph.arun "
            "(debate_solver does)"
        )

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        output = await self.model.generate(
            _inspect_messages(messages), config=_config(stop, kwargs)
        )
        return ChatResult(generations=[ChatGeneration(message=_ai_message(output))])


def _inspect_messages(messages: Sequence[BaseMessage]) -> list[ChatMessage]:
    converted: list[ChatMessage] = []
    for m in messages:
        if isinstance(m, SystemMessage):
            converted.append(ChatMessageSystem(content=m.text))
        elif isinstance(m, HumanMessage):
            converted.append(ChatMessageUser(content=m.text))
        elif isinstance(m, AIMessage):
            converted.append(ChatMessageAssistant(content=m.text))
        else:
            raise ValueError(f"an Inspect model takes system, user and AI messages, not {m.type}")
    return converted


def _config(stop: list[str] | None, kwargs: dict[str, Any]) -> GenerateConfig:
    settings = dict(kwargs)
    if stop:
        settings["stop_seqs"] = list(stop)
    unknown = sorted(set(settings) - _GENERATE_FIELDS)
    if unknown:
        raise ValueError(
            f"Inspect's GenerateConfig has no {', '.join(unknown)}: drop the setting, or use "
            "one of temperature, top_p, top_k, max_tokens, stop, seed, logprobs, top_logprobs"
        )
    return GenerateConfig(**settings)


def _ai_message(output: ModelOutput) -> AIMessage:
    metadata: dict[str, Any] = {"model_name": output.model, "finish_reason": output.stop_reason}
    choice = output.choices[0] if output.choices else None
    if choice is not None and choice.logprobs is not None:
        metadata["logprobs"] = {"content": [lp.model_dump() for lp in choice.logprobs.content]}
    usage = None
    if output.usage is not None:
        u = output.usage
        read, written = u.input_tokens_cache_read or 0, u.input_tokens_cache_write or 0
        usage = UsageMetadata(
            input_tokens=u.input_tokens + read + written,
            output_tokens=u.output_tokens,
            total_tokens=u.input_tokens + read + written + u.output_tokens,
        )
        if u.input_tokens_cache_read is not None:  # the provider's bill, where it was stated
            usage["input_token_details"] = {"cache_read": u.input_tokens_cache_read}
        if u.reasoning_tokens is not None:
            usage["output_token_details"] = {"reasoning": u.reasoning_tokens}
    return AIMessage(content=output.completion, usage_metadata=usage, response_metadata=metadata)


@solver
def debate_solver(
    method: str = "du",
    *,
    role: str | None = None,
    task: TaskKind | None = None,
    **settings: Any,
) -> Solver:
    """An Inspect solver that answers each sample by a debate of ``method``.

    Args:
        method: A registered method name (``debategraph methods``).
        role: An Inspect model role for the debaters (a role bound to a list of models gives
            one per agent, and as many agents unless ``agents`` says otherwise); without it,
            and without ``models``, the model under evaluation. A role that is not bound
            falls back to the model under evaluation, as ``get_model(role=...)`` does. When
            the eval binds roles and the debaters use none of them, the solver says so once,
            as a warning in Inspect's log (:func:`unused_roles`).
        task: The answer kind (``number``, ``choice``, ``math``, ``text``); default: ``choice``
            for samples with choices, else the sample's ``task`` metadata, else ``number``.
        **settings: What :func:`debategraph.arun` takes besides the question: ``agents``,
            ``rounds``, ``seed``, ``options``, generation settings, and ``models`` (our own
            model specs or chat models, or Inspect ``Model`` objects, instead of the role's).

    Returns:
        The solver. It sets the sample's output to the debate's answer (empty for an
        abstention), marks the chosen choice, and records the debate under
        ``state.metadata["debate"]``.

    Raises:
        DebateConfigError: Bad settings, found when the solver is made.
    """
    if role is not None and "models" in settings:
        raise DebateConfigError("give role (Inspect's models) or models (ours), not both")
    checked(method, settings)
    wrapped: dict[int, InspectChatModel] = {}
    told: list[bool] = []

    def wrap(model: Model) -> InspectChatModel:
        # One wrapper per Inspect model, so every sample reuses one compiled debate graph.
        if id(model) not in wrapped:
            wrapped[id(model)] = InspectChatModel(model=model)
        return wrapped[id(model)]

    def debaters() -> Any:
        given = settings.get("models")
        if given is None and role is not None:
            given = model_roles().get(role)
        if given is None:
            given = get_model(role=role) if role is not None else get_model()
        if isinstance(given, list | tuple):
            return [wrap(m) if isinstance(m, Model) else m for m in given]
        return wrap(given) if isinstance(given, Model) else given

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if not told:  # once per solver, not per sample
            told.append(True)
            unused = unused_roles(method, role, "models" in settings, model_roles())
            if unused:
                log.warning(unused)
        choices = [c.value for c in state.choices] if state.choices else None
        epoch = "" if state.epoch == 1 else f"@{state.epoch}"
        result = await arun(
            state.input_text,
            method=method,
            task=_task_of(state, task, choices),
            choices=choices,
            item_id=f"{state.sample_id}{epoch}",
            **_with_models(settings, debaters()),
        )
        answer = result.answer
        state.output = ModelOutput.from_content(model=f"debategraph/{method}", content=answer or "")
        state.messages.append(ChatMessageAssistant(content=answer or "(no answer)"))
        if choices and answer is not None and answer in LETTERS[: len(choices)]:
            state.choices.mark_choice(LETTERS.index(answer), True)
        state.metadata["debate"] = {
            **outcome(result), "agents": result.agents, "settings": result.settings,
        }  # fmt: skip
        return state

    return solve


def unused_roles(
    method: str, role: str | None, own_models: bool, bound: Mapping[str, Any]
) -> str | None:
    """What to tell a user whose eval binds model roles that the debaters do not use.

    Args:
        method: The solver's method.
        role: The solver's ``role`` argument.
        own_models: The solver was given ``models``.
        bound: The eval's model roles (``model_roles()``).

    Returns:
        One line naming the bound roles, where the debaters run instead and how to use a
        role; ``None`` when the debaters use a bound role or none is bound.
    """
    if not bound or (role is not None and role in bound):
        return None
    names = ", ".join(sorted(bound))
    runs_on = "the models= given" if own_models else "the model under evaluation"
    asked = f"its role {role!r} is not bound" if role is not None else "it was given no role"
    example = sorted(bound)[0]
    return (
        f"debate_solver({method!r}): the eval binds model role(s) {names}, but {asked}, so "
        f"the debaters run on {runs_on}; pass role={example!r} to debate_solver to debate "
        "on a role's models"
    )


def _with_models(settings: dict[str, Any], models: Any) -> dict[str, Any]:
    """``settings`` on ``models``; a list of models sets the agent count when none is given."""
    if isinstance(models, list) and "agents" not in settings:
        return {**settings, "models": models, "agents": len(models)}
    return {**settings, "models": models}


def _task_of(state: TaskState, task: TaskKind | None, choices: list[str] | None) -> TaskKind:
    if task is not None:
        return task
    if choices:
        return "choice"
    given = state.metadata.get("task", "number")
    if given not in TASKS:
        raise DebateConfigError(
            f"sample {state.sample_id}: metadata task {given!r} is none of {', '.join(TASKS)}"
        )
    return cast(TaskKind, given)
