"""Self-MoA (Li, Lin, Xia and Jin, 2025, arXiv 2502.00674): method ``self-moa``.

One model is sampled ``agents`` times (round 0; the agents are samples of one model, as in
``sc``); an ``aggregator`` on the same model synthesises one answer from the samples. With
``window=w`` the samples are aggregated sequentially (Self-MoA-Seq): step ``k`` (round
``k``, call ``r{k}:aggregator``) reads the previous step's synthesis, if any, then the next
``w`` samples in agent order, so no prompt holds more than ``w + 1`` responses; the last
step's answer is the decision. Without a window, one step reads every sample.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from debategraph.methods import (
    Call,
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


View = DebateView[SelfMoaOptions]


def steps(view: View) -> int:
    """Aggregation steps: one, or ``ceil(samples / window)`` with a window."""
    window = view.options.window
    n = len(view.agents)
    return 1 if window is None or window >= n else math.ceil(n / window)


def step_reads(view: View) -> list[str]:
    """What step ``view.round`` reads: the previous synthesis, then its window of samples."""
    samples = [t["id"] for t in view.turns if t["round"] == 0 and t["kind"] == "answer"]
    window = view.options.window
    if steps(view) == 1 or window is None:
        return samples
    k = view.round
    previous = [f"r{k - 1}:{AGGREGATOR}"] if k > 1 else []
    return previous + samples[(k - 1) * window : k * window]


def plan(view: View) -> list[Call]:
    """Round 0: the samples; each later round, one aggregation step."""
    if view.round == 0:
        return initial_calls(view)
    return [call(view, AGGREGATOR, reads=step_reads(view), template="aggregate")]


def stop(view: View) -> bool:
    """After the last aggregation step."""
    return view.round >= steps(view)


def decide(view: View) -> Decision:
    """The last step's answer, or the run's decision rule over the samples."""
    if view.context.decision is not None:
        return decide_by_rule(view)
    samples = [t["answer"] for t in view.turns if t["round"] == 0]
    made = [t for t in view.turns if t["agent"] == AGGREGATOR and t["kind"] == "answer"]
    return role_decision(view, AGGREGATOR, samples=samples, steps=len(made))


def initial(p: PromptInput) -> str:
    """One sample."""
    return f"Solve this problem step by step.\n\n{question_block(p)}\n\n{answer_format(p)}"


def aggregate(p: PromptInput) -> str:
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


def round_bound(view: View) -> int:
    """Aggregation steps."""
    return steps(view)


SELF_MOA = Method(
    name="self-moa",
    presets=presets.paper(presets.SELF_MOA),
    description="Self-MoA: one model sampled k times, the same model synthesises one answer "
    "from the samples (sequentially, a window at a time, with --option window=W).",
    prompts={"initial": initial, "aggregate": aggregate},
    plan=plan,
    stop=stop,
    decide=decide,
    takes_decision=True,
    options=SelfMoaOptions,
    roles=(AGGREGATOR,),
    decision=AGGREGATOR,
    default_agents=6,
    default_rounds=1,
    single_model=True,
    debates=False,
    round_bound=round_bound,
    plan_node="windows",
    card="docs/methods/self-moa.md",
)
"""The ``self-moa`` method."""
