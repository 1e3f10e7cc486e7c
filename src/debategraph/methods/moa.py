"""Mixture-of-Agents and Self-MoA: methods ``moa`` and ``self-moa``.

**moa** (Wang et al., ICLR 2025, arXiv 2406.04692): ``layers`` layers (capped by
``rounds + 1`` when a run gives ``rounds``); the last is one aggregator. Layer 1 (round 0):
every proposer (agent) answers alone. Each later proposer layer (rounds ``1 .. layers - 2``):
every proposer reads all of the previous layer's responses, its own among them, under an
aggregate-and-synthesise instruction, and answers again; no proposer keeps a chat history.
The final layer (round ``layers - 1``): the ``aggregator`` role reads the last proposer
layer's responses the same way and writes the answer (call ``r{k}:aggregator``). Proposers
may run on different models (``models=[...]``, one per agent: the paper's heterogeneous
mixture); the aggregator runs on the first agent's model unless
``role_models={"aggregator": ...}`` names one.

**self-moa** (Li, Lin, Xia and Jin, 2025, arXiv 2502.00674): one model is sampled ``agents``
times (round 0; the agents are samples of one model, as in ``sc``); an ``aggregator`` on the
same model synthesises one answer from the samples. With ``window=w`` the samples are
aggregated sequentially (Self-MoA-Seq): step ``k`` (round ``k``, call ``r{k}:aggregator``)
reads the previous step's synthesis, if any, then the next ``w`` samples in agent order, so
no prompt holds more than ``w + 1`` responses. Without a window, one step reads every sample.

In both the decision is the aggregator's last answer; a decision rule named for the run
(``decision=...``) is applied to the proposers' answers (the samples) instead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from debategraph.methods import (
    MAX_ROUNDS,
    Call,
    DebateConfigError,
    DebateView,
    Decision,
    Method,
    MethodOptions,
    PromptInput,
    answer_format,
    call,
    decide_by_rule,
    fenced,
    initial_calls,
    presets,
    question_block,
    role_decision,
)

AGGREGATOR = "aggregator"


@dataclass(frozen=True, kw_only=True)
class MoaOptions(MethodOptions):
    """Options of ``moa``.

    Attributes:
        layers: Layers, the final aggregator's included (the paper's default 3: two layers
            of proposers, then the aggregator; 2 is "MoA-Lite").
    """

    layers: int = 3

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.layers < 2:
            raise ValueError(f"layers must be at least 2 (proposers, then the aggregator), "
                             f"got {self.layers}")  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class SelfMoaOptions(MethodOptions):
    """Options of ``self-moa``.

    Attributes:
        window: New samples each sequential aggregation step reads (Self-MoA-Seq), besides
            the previous step's synthesis; ``None`` (the default) aggregates every sample
            in one step.
    """

    window: int | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.window is not None and self.window < 1:
            raise ValueError(f"window must be at least 1 (or unset), got {self.window}")


def aggregator_decision(view: DebateView[Any], **evidence: Any) -> Decision:
    """The aggregator's last answer, with ``evidence``, or the run's decision rule."""
    if view.context.decision is not None:
        return decide_by_rule(view)
    return role_decision(view, AGGREGATOR, **evidence)


def answers_of(view: DebateView[Any], round_: int) -> list[Any]:
    """The answers of one round, in turn order."""
    return [t["answer"] for t in view.turns if t["round"] == round_]


def initial(p: PromptInput) -> str:
    """A proposer's (a sample's) first, independent response."""
    return f"Solve this problem step by step.\n\n{question_block(p)}\n\n{answer_format(p)}"


# moa


def layers(view: DebateView[MoaOptions]) -> int:
    """Layers in force: ``layers``, capped by ``rounds + 1`` when a run gives ``rounds``.

    Raises:
        DebateConfigError: Fewer than two layers (``rounds=0``).
    """
    count = min(view.options.layers, view.rounds + 1)
    if count < 2:
        raise DebateConfigError(
            f"moa needs at least one round after the proposers' first answers (the "
            f"aggregator's), got rounds={view.rounds}"
        )
    return count


def aggregator_round(view: DebateView[MoaOptions]) -> int:
    """The aggregator's round, the last: ``layers - 1``."""
    return layers(view) - 1


def plan_moa(view: DebateView[MoaOptions]) -> list[Call] | None:
    """Layer ``round + 1``: the proposers, reading the previous layer; last, the aggregator."""
    if view.round == 0:
        layers(view)
        return initial_calls(view)
    previous = [t["id"] for t in view.turns if t["round"] == view.round - 1]
    if view.round == aggregator_round(view):
        return [call(view, AGGREGATOR, reads=previous, template="aggregate")]
    calls = []
    for agent in view.agents:
        # A cut-off proposer (the communication attack) reads only its own last response.
        own = [i for i in previous if i == f"r{view.round - 1}:{agent}"]
        reads = own if agent in view.cut_off else previous
        calls.append(call(view, agent, reads=reads, template="synthesize"))
    return calls


def stop_moa(view: DebateView[MoaOptions]) -> bool:
    """After the aggregator's layer."""
    return view.round >= aggregator_round(view)


def decide_moa(view: DebateView[MoaOptions]) -> Decision:
    """The aggregator's answer, or the run's decision rule over the last proposers' answers."""
    return aggregator_decision(view, proposals=answers_of(view, view.round - 1))


def responses_block(p: PromptInput) -> str:
    """The previous layer's responses, numbered, each in a fenced block."""
    return "\n\n".join(
        f"Response {i}:\n{fenced(t['text'])}" for i, t in enumerate(p.peers, start=1)
    )


SYNTHESIS = (
    "Several models have answered the problem below; their responses follow. Treat them as "
    "material, not as authority: some may be wrong, and agreement between them proves "
    "nothing. Check their reasoning, keep what holds, correct what does not, and combine it "
    "into one response of your own that is more accurate and complete than any of them."
)


def synthesize(p: PromptInput) -> str:
    """A later proposer layer: one response built from all of the previous layer's."""
    return f"{SYNTHESIS}\n\n{responses_block(p)}\n\n{question_block(p)}\n\n{answer_format(p)}"


def aggregate(p: PromptInput) -> str:
    """The final aggregator: the answer built from the last proposer layer's responses."""
    return (
        f"{SYNTHESIS} Yours is the final answer.\n\n{responses_block(p)}\n\n"
        f"{question_block(p)}\n\n{answer_format(p)}"
    )


MOA = Method(
    name="moa",
    presets=presets.paper(presets.MOA),
    description="Mixture-of-Agents: layers of proposers, each reading all of the previous "
    "layer's responses to synthesise its own; a final aggregator writes the answer.",
    prompts={"initial": initial, "synthesize": synthesize, "aggregate": aggregate},
    plan=plan_moa,
    stop=stop_moa,
    decide=decide_moa,
    takes_decision=True,
    options=MoaOptions,
    roles=(AGGREGATOR,),
    decision=AGGREGATOR,
    default_agents=6,
    default_rounds=MAX_ROUNDS,
    debates=False,
    round_bound=aggregator_round,
    plan_node="layers",
    card="docs/methods/moa.md",
)
"""The ``moa`` method."""


# self-moa


def steps(view: DebateView[SelfMoaOptions]) -> int:
    """Aggregation steps: one, or ``ceil(samples / window)`` with a window."""
    window = view.options.window
    n = len(view.agents)
    return 1 if window is None or window >= n else math.ceil(n / window)


def step_reads(view: DebateView[SelfMoaOptions]) -> list[str]:
    """What step ``view.round`` reads: the previous synthesis, then its window of samples."""
    samples = [t["id"] for t in view.turns if t["round"] == 0 and t["kind"] == "answer"]
    window = view.options.window
    if steps(view) == 1 or window is None:
        return samples
    k = view.round
    previous = [f"r{k - 1}:{AGGREGATOR}"] if k > 1 else []
    return previous + samples[(k - 1) * window : k * window]


def plan_self_moa(view: DebateView[SelfMoaOptions]) -> list[Call]:
    """Round 0: the samples; each later round, one aggregation step."""
    if view.round == 0:
        return initial_calls(view)
    return [call(view, AGGREGATOR, reads=step_reads(view), template="aggregate")]


def stop_self_moa(view: DebateView[SelfMoaOptions]) -> bool:
    """After the last aggregation step."""
    return view.round >= steps(view)


def decide_self_moa(view: DebateView[SelfMoaOptions]) -> Decision:
    """The last step's answer, or the run's decision rule over the samples."""
    made = [t for t in view.turns if t["agent"] == AGGREGATOR and t["kind"] == "answer"]
    return aggregator_decision(view, samples=answers_of(view, 0), steps=len(made))


def aggregate_samples(p: PromptInput) -> str:
    """One aggregation step over samples (and the previous step's synthesis)."""
    blocks = []
    for i, turn in enumerate((t for t in p.peers if t["agent"] != AGGREGATOR), start=1):
        blocks.append(f"Attempt {i}:\n{fenced(turn['text'])}")
    earlier = [t for t in p.peers if t["agent"] == AGGREGATOR]
    if earlier:
        blocks.insert(0, f"Your synthesis of the earlier attempts:\n{fenced(earlier[-1]['text'])}")
    return (
        "Below are several independent attempts at the problem, all written by the same "
        "model. They may disagree, and any of them may contain errors. Work out where they "
        "differ and which reasoning is sound, then write a single solution of your own that "
        "keeps the correct steps and fixes the wrong ones.\n\n"
        + "\n\n".join(blocks)
        + f"\n\n{question_block(p)}\n\n{answer_format(p)}"
    )


SELF_MOA = Method(
    name="self-moa",
    presets=presets.paper(presets.SELF_MOA),
    description="Self-MoA: one model sampled k times, the same model synthesises one answer "
    "from the samples (sequentially, a window at a time, with --option window=W).",
    prompts={"initial": initial, "aggregate": aggregate_samples},
    plan=plan_self_moa,
    stop=stop_self_moa,
    decide=decide_self_moa,
    takes_decision=True,
    options=SelfMoaOptions,
    roles=(AGGREGATOR,),
    decision=AGGREGATOR,
    default_agents=6,
    default_rounds=1,
    single_model=True,
    debates=False,
    round_bound=steps,
    plan_node="windows",
    card="docs/methods/self-moa.md",
)
"""The ``self-moa`` method."""
