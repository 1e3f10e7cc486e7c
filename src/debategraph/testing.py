r"""Helpers for testing debate methods and decision rules, offline and deterministic.

* :func:`make_turn` and :func:`make_trajectory` build records by hand;
* :func:`make_view` builds the :class:`~debategraph.methods.DebateView` a hook receives, so a
  planner, observer or rule can be tested without a graph;
* :class:`ScriptedChatModel` is a chat model that answers with given replies (or a function
  of the prompt) and records every call it was sent;
* :func:`registered` registers a method (or rule) for the length of a ``with`` block.

Example::

    from debategraph.testing import ScriptedChatModel, make_view

    model = ScriptedChatModel(replies=["\\boxed{4}"])
    result = dg.run("What is 2+2?", method=MY_METHOD, agents=2, models=model)
    assert model.calls[0]["prompt"].startswith("Solve")
"""

from __future__ import annotations

import dataclasses
import re
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, ClassVar

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict, Field, PrivateAttr

from debategraph.methods.contract import DebateView, Method
from debategraph.methods.registry import (
    register_method,
    register_rule,
    unregister_method,
    unregister_rule,
)
from debategraph.policies.decisions import RuleFn
from debategraph.policies.tokens import estimate_tokens
from debategraph.policies.types import Answer, Trajectory
from debategraph.state.context import DebateContext
from debategraph.state.options import MethodOptions
from debategraph.state.records import Turn, TurnKind

__all__ = [
    "ScriptedChatModel",
    "make_trajectory",
    "make_turn",
    "make_view",
    "registered",
]

_ID_RE = re.compile(r"r(\d+):([^:<>]+)")


def make_turn(
    id: str,
    *,
    agent: str | None = None,
    round: int | None = None,
    kind: TurnKind = "answer",
    answer: str | None = None,
    text: str | None = None,
    confidence: float | None = None,
    reads: Sequence[str] = (),
    input_tokens: int = 0,
    output_tokens: int = 0,
    model: str = "scripted",
    **extra: Any,
) -> Turn:
    """A turn record built by hand.

    ``agent`` and ``round`` are read from an id of the form ``r{round}:{agent}`` when not
    given; ``text`` defaults to a reply declaring ``answer``.

    Args:
        id: The turn's id (``r1:a2``).
        agent: The speaker.
        round: The round.
        kind: ``answer``, ``summary``, ``evaluation`` or ``pairwise``.
        answer: The canonical answer (``None``: an abstention).
        text: The reply text.
        confidence: The stated confidence.
        reads: Ids of the turns the call read.
        input_tokens: Prompt tokens.
        output_tokens: Completion tokens.
        model: The model label.
        **extra: Optional turn fields (``logprobs``, ``label``, ``vars`` ...).

    Raises:
        ValueError: No agent or round given and none in the id.
    """
    found = _ID_RE.match(id)
    if agent is None or round is None:
        if found is None:
            raise ValueError(f"give agent= and round=, or an id like 'r1:a2' (got {id!r})")
        round = int(found.group(1)) if round is None else round
        agent = found.group(2) if agent is None else agent
    if text is None:
        text = f"\\boxed{{{answer}}}" if answer is not None else "I cannot tell."
    turn = Turn(
        id=id,
        agent=agent,
        round=round,
        kind=kind,
        text=text,
        prompt="",
        answer=answer,
        answer_source="declared" if answer is not None else "none",
        confidence=confidence,
        reads=list(reads),
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        usage_estimated=False,
        latency_s=0.0,
        model=model,
    )
    turn.update(extra)  # type: ignore[typeddict-item]
    return turn


def make_trajectory(
    answers: Sequence[Sequence[Answer]],
    confidences: Sequence[Sequence[float | None]] | None = None,
    agents: Sequence[str] | None = None,
) -> Trajectory:
    """A trajectory: ``answers[i][k]`` is agent ``i``'s answer after round ``k``.

    Agents are named ``a1`` .. ``aN`` unless given.
    """
    names = list(agents) if agents is not None else [f"a{i}" for i in range(1, len(answers) + 1)]
    if len(names) != len(answers):
        raise ValueError(f"{len(answers)} rows of answers for {len(names)} agents")
    return Trajectory(
        agents=names,
        answers=[list(row) for row in answers],
        confidences=[list(row) for row in confidences] if confidences is not None else (),
    )


def make_view(
    method: Method[Any],
    *,
    turns: Sequence[Turn] = (),
    round: int = 0,
    phase: int = 0,
    agents: Sequence[str] | int | None = None,
    context: DebateContext | Mapping[str, Any] | None = None,
    options: MethodOptions | Mapping[str, Any] | None = None,
    method_state: Mapping[str, Any] | None = None,
    question: str = "What is 2+2?",
    cut_off: Sequence[str] = (),
    **state: Any,
) -> DebateView[Any]:
    """The view a hook of ``method`` receives at ``round`` / ``phase`` of a debate.

    Args:
        method: The method.
        turns: The turns so far.
        round: The round being planned (or just observed).
        phase: The phase of the round.
        agents: Agent names, or a count (``a1`` .. ``aN``); the method's default count.
        context: The run's settings (a ``DebateContext`` or a dict of its fields).
        options: The method's options (replacing the context's ``method_options``).
        method_state: What the method kept so far.
        question: The question.
        cut_off: Agents cut off from their peers.
        **state: Other state keys (``task``, ``choices``, ``item_id``).
    """
    if agents is None:
        agents = method.default_agents
    names = [f"a{i}" for i in range(1, agents + 1)] if isinstance(agents, int) else list(agents)
    ctx = DebateContext.of(context)
    if options is not None:
        given = options if isinstance(options, MethodOptions) else dict(options)
        ctx = dataclasses.replace(ctx, method_options=given)
    full = {
        "question": question,
        "agents": names,
        "cut_off": list(cut_off),
        "turns": list(turns),
        "round": round,
        "phase": phase,
        "method_state": dict(method_state or {}),
        **state,
    }
    return DebateView(
        method=method,
        state=full,
        context=ctx,
        options=method.options_for(ctx),
        agents=tuple(names),
        round=round,
        phase=phase,
    )


Reply = str | Callable[[str], str]


class ScriptedChatModel(BaseChatModel):
    """A chat model that answers from a script and records what it was sent.

    ``replies[k]`` answers the ``k``-th call (the last reply repeats once they run out); a
    reply may be a function of the prompt (the last user message), and ``respond`` answers
    every call from the prompt instead, which stays deterministic when calls run
    concurrently. Every call is recorded in :attr:`calls` with its ``messages`` (role and
    text), its ``prompt`` and the keyword arguments bound to it (``temperature``,
    ``logprobs`` ...). Usage is reported from an offline token estimate.

    Attributes:
        replies: The replies, in call order.
        respond: Answers from the prompt (wins over ``replies``).
        logprobs: Token logprobs to return when a call asks for them (``logprobs=True``).
        label: The model's name in turns and results.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)
    sends_top_k: ClassVar[bool] = True  # records top_k like any other call setting

    replies: list[Reply] = Field(default_factory=list)
    respond: Callable[[str], str] | None = None
    logprobs: list[float] | None = None
    label: str = "scripted"
    _calls: list[dict[str, Any]] = PrivateAttr(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def calls(self) -> list[dict[str, Any]]:
        """Every call so far: ``messages`` (``(role, text)`` pairs), ``prompt``, ``kwargs``."""
        return list(self._calls)

    def _reply(self, prompt: str, index: int) -> str:
        if self.respond is not None:
            return self.respond(prompt)
        if not self.replies:
            raise ValueError("ScriptedChatModel needs replies= or respond=")
        reply = self.replies[min(index, len(self.replies) - 1)]
        return reply(prompt) if callable(reply) else reply

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        prompt = str(messages[-1].content) if messages else ""
        with self._lock:
            index = len(self._calls)
            self._calls.append(
                {
                    "messages": [(m.type, str(m.content)) for m in messages],
                    "prompt": prompt,
                    "kwargs": {"stop": stop, **kwargs} if stop is not None else dict(kwargs),
                }
            )
        text = self._reply(prompt, index)
        n_in = sum(estimate_tokens(str(m.content)) for m in messages)
        n_out = estimate_tokens(text)
        message = AIMessage(
            content=text,
            usage_metadata=UsageMetadata(
                input_tokens=n_in, output_tokens=n_out, total_tokens=n_in + n_out
            ),
            response_metadata={"model_name": self.label, "finish_reason": "stop"},
        )
        if kwargs.get("logprobs") and self.logprobs is not None:
            content = [{"token": f"t{i}", "logprob": lp} for i, lp in enumerate(self.logprobs)]
            message.response_metadata["logprobs"] = {"content": content}
        return ChatResult(generations=[ChatGeneration(message=message)])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._generate(messages, stop, **kwargs)


@contextmanager
def registered(
    method: Method[Any] | None = None, *, rules: Mapping[str, RuleFn] | None = None
) -> Iterator[None]:
    """Register a method (and rules) inside the block, and forget them after it.

    Example::

        with registered(MY_METHOD, rules={"my-rule": my_rule}):
            dg.run("What is 2+2?", method="my-method", decision="my-rule")
    """
    names = dict(rules or {})
    if method is not None:
        register_method(method)
    for name, rule in names.items():
        register_rule(name, rule)
    try:
        yield
    finally:
        if method is not None:
            unregister_method(method.name)
        for name in names:
            unregister_rule(name)
