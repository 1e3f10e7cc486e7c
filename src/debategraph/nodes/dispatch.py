"""The router of a round: one ``Send`` per speaker, carrying its rendered prompt."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NotRequired, TypedDict

from langgraph.graph import END
from langgraph.runtime import Runtime
from langgraph.types import Send

from debategraph.nodes.method import Method
from debategraph.policies.types import TaskKind
from debategraph.prompts.common import ADVERSARY_INSTRUCTION, PromptInput
from debategraph.state.context import DebateContext
from debategraph.state.debate import DebateState
from debategraph.state.views import by_agent


class AgentTask(TypedDict):
    """The payload of one agent call; everything it needs, so caching keys on all of it."""

    agent: str
    index: int
    round: int
    prompt: str
    system: str | None
    history: list[tuple[str, str]]
    read: list[str]
    task: TaskKind
    num_choices: int | None
    single_model: bool
    seed: int
    extra: NotRequired[dict[str, Any]]


def with_adversary(prompt: str, agent: str, adversaries: Mapping[str, str]) -> str:
    """``prompt``, with the adversary instruction appended when ``agent`` is an adversary.

    Args:
        prompt: The rendered prompt of the method.
        agent: The speaking agent.
        adversaries: Adversarial agents, each mapped to the wrong answer it argues for.

    Returns:
        The prompt the agent is given.
    """
    if agent not in adversaries:
        return prompt
    return f"{prompt}\n\n{ADVERSARY_INSTRUCTION.format(answer=adversaries[agent])}"


def make_dispatch(method: Method, after: str = END) -> Any:
    """Conditional edge that fans the plan out to the ``agent`` node.

    With no speaker it goes to ``after`` instead, so a round never stalls.
    """

    def dispatch(state: DebateState, runtime: Runtime[DebateContext]) -> list[Send] | str:
        ctx = runtime.context
        turns = {t["id"]: t for t in state.get("turns", [])}
        own = by_agent(state.get("turns", [])) if method.history else {}
        index = {a: i for i, a in enumerate(ctx.agent_names)}
        task = state.get("task", "number")
        choices = state.get("choices") or None
        sends = []
        for agent, plan in state["plan"].items():
            view = PromptInput(
                question=state["question"],
                task=task,
                choices=choices,
                peers=[turns[i] for i in plan["reads"]],
                agent=agent,
                round=state["round"],
                anonymize=ctx.anonymize,
                confidence=method.confidence,
                options=ctx.options,
            )
            payload = AgentTask(
                agent=agent,
                index=index[agent],
                round=state["round"],
                prompt=with_adversary(method.prompts[plan["prompt"]](view), agent, ctx.adversaries),
                system=method.system,
                history=[(t["prompt"], t["text"]) for t in own.get(agent, [])],
                read=list(plan["reads"]),
                task=task,
                num_choices=len(choices) if choices else None,
                single_model=method.single_model,
                seed=ctx.seed,
            )
            sends.append(Send("agent", payload))
        return sends or after

    return dispatch
