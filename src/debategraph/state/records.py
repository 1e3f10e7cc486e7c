"""Records kept in the debate state: the calls a planner issues and the turns they produce."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any, Literal, NotRequired, cast

from typing_extensions import TypedDict

CallKind = Literal["answer", "summary", "evaluation", "pairwise", "decision"]
"""What a model call is for: an agent's answer, a summary of other turns, a judgement of
another turn, one side of a pairwise debate (SVR-MAD), or a decision rule's own call (the
``judge`` rule's, after the last round)."""

TurnKind = CallKind
"""A turn has the kind of the call that produced it."""

AnswerSource = Literal["declared", "fallback", "none", "cut_off"]
"""How a turn's answer was found: an explicit declaration, the task's fallback rule (e.g. the
last number), or not at all (an abstention); ``cut_off`` is an abstention whose reply ended
inside its thinking (no answer part came), never an answer read from the thinking."""


class Call(TypedDict):
    """One model call in a phase of a round, as a planner issues it.

    Attributes:
        id: Unique in the debate; it becomes the id of the turn the call produces.
        kind: ``answer``, ``summary``, ``evaluation``, ``pairwise`` or ``decision``.
        speaker: Who makes the call: an agent name, or a role of the method
            (``summarizer``, ``evaluator``); the call is sent to the node of that name.
        round: The round the call belongs to (0 is the initial round).
        reads: Ids of the turns shown to the speaker, in the order they are shown.
        template: Name of the method's prompt template to render (the rendered text is the
            turn's ``prompt``).
        vars: Extra prompt variables (JSON-safe), e.g. which summary is the reader's own group.
        history: Show the speaker its own earlier answer turns as chat history (an
            ``evaluation`` call, a judge's, also its own earlier evaluation turns).
    """

    id: str
    kind: CallKind
    speaker: str
    round: int
    reads: list[str]
    template: str
    vars: dict[str, Any]
    history: bool


class Turn(TypedDict):
    """One model call and what came of it. Turns are append-only.

    Attributes:
        id: The id of the call that produced it (``r2:a3`` for an answer of ``a3`` in round 2).
        agent: The speaker: an agent name, or a role such as ``summarizer``.
        round: 0 is the initial, independent round; debate rounds count from 1.
        kind: ``answer``, ``summary``, ``evaluation``, ``pairwise`` or ``decision``.
        text: The answer part of the model's response: its thinking (``<think>`` tags, a
            reasoning field or block) taken out. Peers, judges and parsers read this.
        prompt: The last user message the model was given (the call's rendered template).
        answer: Canonical parsed answer; ``None`` means no answer could be read (abstention).
        answer_source: ``declared``, ``fallback``, ``none`` or ``cut_off`` (how ``answer``
            was found; ``cut_off``: the reply ended inside its thinking).
        confidence: Self-reported confidence in [0, 1], if one could be read.
        reads: Ids of the other turns shown to this call (peers' answers, summaries).
        input_tokens: Prompt tokens of the call.
        output_tokens: Completion tokens of the call.
        usage_estimated: True when the model reported no usage and tokens were estimated.
        latency_s: Wall time of the model call.
        model: Label of the model that answered (never a key or secret).
        logprobs: Statistics of the sampled tokens' logprobs (``mean``, ``min``, ``n``), when
            the model returned them.
        label: An evaluation's verdict (``keep``, ``mask`` or ``unsure``).
        vars: The call's prompt variables, when it had any.
        attempts: How many times the call was tried (more than 1 after retries).
        confidence_unparsed: The response stated a confidence that could not be read.
        ballot: The ballot a decision rule asked for: ``kind``, ``candidates`` (the answers
            its labels stand for) and ``vote`` (the ballot read, ``None`` when spoiled).
        cached_input_tokens: Of ``input_tokens``, those the provider served from its prompt
            cache (billed at its cached-input price), when the provider says.
        reasoning_tokens: Of ``output_tokens``, the model's hidden reasoning, when the
            provider says.
        reasoning: The model's thinking before its answer part, when it sent any (in
            ``<think>`` tags, a ``reasoning_content`` or ``reasoning`` field, or reasoning
            content blocks). Only the speaker's own history sends it back, and peers see it
            only with ``peer_reasoning="full"``.
        reasoning_field: The message field the thinking came in (``reasoning_content`` or
            ``reasoning``), where the agent's history sends it back; absent for thinking
            that came in the text or in content blocks.
        cached: True when the turn was replayed from the call cache (``--cache``): no request
            was made, and its tokens and latency are those of the run that paid for it.
    """

    id: str
    agent: str
    round: int
    kind: TurnKind
    text: str
    prompt: str
    answer: str | None
    answer_source: AnswerSource
    confidence: float | None
    reads: list[str]
    input_tokens: int
    output_tokens: int
    usage_estimated: bool
    latency_s: float
    model: str
    logprobs: NotRequired[dict[str, float] | None]
    label: NotRequired[str | None]
    vars: NotRequired[dict[str, Any]]
    attempts: NotRequired[int]
    confidence_unparsed: NotRequired[bool]
    ballot: NotRequired[dict[str, Any]]
    cached_input_tokens: NotRequired[int]
    reasoning_tokens: NotRequired[int]
    reasoning: NotRequired[str]
    reasoning_field: NotRequired[str]
    cached: NotRequired[bool]


def _upgraded(record: Mapping[str, Any], kind: str, old: str, new: str) -> Mapping[str, Any]:
    """``record`` with its ``old`` key renamed ``new`` (warned), or as it is."""
    if new in record or old not in record:
        return record
    warnings.warn(
        f"a {kind} record's {old!r} key is now {new!r}; {old!r} is accepted until 0.3",
        DeprecationWarning,
        stacklevel=3,
    )
    fixed = {k: v for k, v in record.items() if k != old}
    fixed[new] = record[old]
    return fixed


def upgrade_call(call: Mapping[str, Any]) -> Call:
    """A call record in today's vocabulary (``prompt`` is read as ``template``, with a warning)."""
    return cast(Call, _upgraded(call, "call", "prompt", "template"))


def upgrade_turn(turn: Mapping[str, Any]) -> Turn:
    """A turn record in today's vocabulary (``read`` is read as ``reads``, with a warning)."""
    return cast(Turn, _upgraded(turn, "turn", "read", "reads"))
