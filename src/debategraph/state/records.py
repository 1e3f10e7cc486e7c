"""Records kept in the debate state."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

TurnKind = Literal["answer", "summary", "evaluation"]


class Turn(TypedDict):
    """One model call and what came of it. Turns are append-only.

    Attributes:
        id: Unique id, ``r{round}:{agent}`` for answers (``r2:a3``).
        agent: The speaker (an agent name, or e.g. ``summarizer`` for summaries).
        round: 0 is the initial, independent round; debate rounds count from 1.
        kind: ``answer``, ``summary`` or ``evaluation``.
        text: The raw model response.
        prompt: The last user message the model was given.
        answer: Canonical parsed answer; ``None`` means the agent abstained (unparseable).
        confidence: Self-reported confidence in [0, 1], if asked for and parseable.
        read: Ids of the other turns shown to this call (peers' answers, summaries).
        input_tokens: Prompt tokens of the call.
        output_tokens: Completion tokens of the call.
        usage_estimated: True when the model reported no usage and tokens were estimated.
        latency_s: Wall time of the model call.
        model: Label of the model that answered (never a key or secret).
        logprobs: Optional statistics of the sampled tokens' logprobs (``mean``, ``min``, ``n``).
    """

    id: str
    agent: str
    round: int
    kind: TurnKind
    text: str
    prompt: str
    answer: str | None
    confidence: float | None
    read: list[str]
    input_tokens: int
    output_tokens: int
    usage_estimated: bool
    latency_s: float
    model: str
    logprobs: NotRequired[dict[str, float] | None]
    extra: NotRequired[dict[str, Any]]


class AgentPlan(TypedDict):
    """What one speaker does in the coming round.

    Attributes:
        reads: Ids of the turns this agent is shown this round.
        prompt: Which prompt of the method to use (``initial``, ``debate``, ``reflect``, ...).
    """

    reads: list[str]
    prompt: str
