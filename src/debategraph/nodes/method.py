"""What a debate method is made of; graphs are wired from one of these."""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from typing import Any

from debategraph.prompts.common import PromptInput
from debategraph.state.context import DebateContext
from debategraph.state.debate import DebateState
from debategraph.state.records import AgentPlan

PromptFn = Callable[[PromptInput], str]
Planner = Callable[[DebateState, DebateContext, int], dict[str, Any]]
"""``(state, context, round) -> update``; the update holds ``plan`` and may hold
``method_state``. Called for debate rounds (round >= 1)."""
AfterRound = Callable[[DebateState, DebateContext], Coroutine[Any, Any, dict[str, Any]]]


@dataclass(frozen=True, kw_only=True)
class Method:
    """A debate method: topology, prompts, memory, stop rule and decision rule.

    Attributes:
        name: Registry name (``du``, ``cortex``, ...).
        description: One line for ``--help`` and docs.
        prompts: Prompt templates by name; ``initial`` is used in round 0.
        plan: Planner for the debate rounds.
        history: Agents keep their own chat history across rounds.
        decision: Default decision rule name.
        confidence: Ask agents for a confidence line.
        default_agents: Agents when the caller gives none.
        default_rounds: Debate rounds when the caller gives none.
        stop_on_consensus: Stop early once every agent agrees.
        single_model: Every agent is a sample of one model (self-consistency).
        after_round: Optional step after each round's agents (e.g. summaries).
        system: Optional system prompt for every agent call.
        no_answer_if_all_differ: The vote returns "no answer" when all answers differ.
    """

    name: str
    description: str
    prompts: Mapping[str, PromptFn]
    plan: Planner
    history: bool = False
    decision: str = "majority"
    confidence: bool = False
    default_agents: int = 3
    default_rounds: int = 2
    stop_on_consensus: bool = False
    single_model: bool = False
    after_round: AfterRound | None = None
    system: str | None = None
    no_answer_if_all_differ: bool = False


def plan_from_reads(
    reads: Mapping[str, list[str]], cut_off: frozenset[str] | set[str] = frozenset()
) -> dict[str, AgentPlan]:
    """Debate prompts for agents with something to read, reflection for the rest.

    Cut-off agents (the communication attack) read nothing and reflect on their own answer.
    """
    plan: dict[str, AgentPlan] = {}
    for agent, ids in reads.items():
        shown = [] if agent in cut_off else list(ids)
        plan[agent] = AgentPlan(reads=shown, prompt="debate" if shown else "reflect")
    return plan
