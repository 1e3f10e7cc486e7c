"""Mixture-of-Agents (Wang et al., ICLR 2025, arXiv 2406.04692): method ``moa``.

``layers`` layers (capped by ``rounds + 1`` when a run gives ``rounds``); the last is one
aggregator. Layer 1 (round 0): every proposer (agent)
answers alone. Each later proposer layer (rounds ``1 .. layers - 2``): every proposer reads
all of the previous layer's responses, its own among them, under an aggregate-and-synthesise
instruction, and answers again; no proposer keeps a chat history. The final layer (round
``layers - 1``): the ``aggregator`` role reads the last proposer layer's responses the same
way and writes the answer (call ``r{k}:aggregator``).

Proposers may run on different models (``models=[...]``, one per agent: the paper's
heterogeneous mixture); the aggregator runs on the first agent's model unless
``role_models={"aggregator": ...}`` names one. The decision is the aggregator's answer; a
decision rule named for the run (``decision=...``) is applied to the proposers' answers
instead.
"""

from __future__ import annotations

from dataclasses import dataclass

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


View = DebateView[MoaOptions]


def layers(view: View) -> int:
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


def plan(view: View) -> list[Call] | None:
    """Layer ``round + 1``: the proposers, reading the previous layer; last, the aggregator."""
    if view.round == 0:
        layers(view)
        return initial_calls(view)
    previous = [t["id"] for t in view.turns if t["round"] == view.round - 1]
    if view.round == layers(view) - 1:
        return [call(view, AGGREGATOR, reads=previous, template="aggregate")]
    calls = []
    for agent in view.agents:
        # A cut-off proposer (the communication attack) reads only its own last response.
        own = [i for i in previous if i == f"r{view.round - 1}:{agent}"]
        reads = own if agent in view.cut_off else previous
        calls.append(call(view, agent, reads=reads, template="synthesize"))
    return calls


def stop(view: View) -> bool:
    """After the aggregator's layer."""
    return view.round >= layers(view) - 1


def round_bound(view: View) -> int:
    """Rounds after the first layer: ``layers - 1``."""
    return layers(view) - 1


def decide(view: View) -> Decision:
    """The aggregator's answer, or the run's decision rule over the proposers' answers."""
    if view.context.decision is not None:
        return decide_by_rule(view)
    proposers = [t["answer"] for t in view.turns if t["round"] == view.round - 1]
    return role_decision(view, AGGREGATOR, proposals=proposers)


def responses_block(p: PromptInput) -> str:
    """The previous layer's responses, numbered, each in a fenced block."""
    return "\n\n".join(
        f"Response {i}:\n{fenced(t['text'])}" for i, t in enumerate(p.peers, start=1)
    )


def initial(p: PromptInput) -> str:
    """A proposer's first, independent response."""
    return f"Solve this problem step by step.\n\n{question_block(p)}\n\n{answer_format(p)}"


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
    plan=plan,
    stop=stop,
    decide=decide,
    takes_decision=True,
    options=MoaOptions,
    roles=(AGGREGATOR,),
    decision=AGGREGATOR,
    default_agents=6,
    default_rounds=MAX_ROUNDS,
    debates=False,
    round_bound=round_bound,
    plan_node="layers",
    card="docs/methods/moa.md",
)
"""The ``moa`` method."""
