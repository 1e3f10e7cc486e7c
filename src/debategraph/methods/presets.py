"""The sampling each paper ran its models with: the ``paper`` preset of every built-in method.

``--settings paper`` (``settings="paper"``) sends these; explicit ``temperature``, ``top_p``
and ``top_k`` win, key by key. A paper that states nothing gets the providers' defaults, said
as such, so that a run records what it relied on.
"""

from __future__ import annotations

from debategraph.policies.sampling import PAPER, Sampling, SamplingPreset, unstated

MADM2 = SamplingPreset(
    source="MAD-M², App. D.5",
    sampling=Sampling(temperature=1.0, top_p=1.0),
    per_model=(("qwen2.5-math", Sampling(temperature=0.2)),),
    note="the paper also caps output at 24,064 tokens (Qwen2.5-7B), 4,096 (the math models) "
    "and 131,072 (QwQ-32B): set max_tokens to match",
)
"""MAD-M² (and its ``mad`` baseline): T 1.0 and top-p 1.0; Qwen2.5-Math-7B at T 0.2."""

SVR_MAD = SamplingPreset(
    source="SVR-MAD, App. A",
    sampling=Sampling(temperature=1.0, top_p=0.95, top_k=40),
    note="the paper also caps output at 16,384 tokens and sets reasoning effort to medium",
)
"""SVR-MAD: T 1.0, top-p 0.95, top-k 40, for every method it compares."""

SVR_MAD_BASELINE = SamplingPreset(
    source="SVR-MAD, App. A, which runs this method as a baseline with these settings; the "
    "method's own paper is not in our sources",
    sampling=SVR_MAD.sampling,
    note=SVR_MAD.note,
)
"""S²-MAD and SID-ET as SVR-MAD measured them."""

FREE_MAD = SamplingPreset(
    source="Free-MAD, App. C: each API's default temperature",
    note="the paper keeps the providers' defaults on purpose",
)
"""Free-MAD: the providers' defaults, stated."""

MALLM = SamplingPreset(
    source="MALLM (Becker et al.): its code, v1.0.5, sends none",
    note="MALLM's code (mallm/models/Chat.py) leaves temperature and top-p to the endpoint "
    "and caps every reply at 1,024 tokens: set max_tokens to match",
)
"""MALLM's paradigms: the endpoint's defaults, as its code sends none."""

CORTEX = unstated("CortexDebate")
GROUPDEBATE = unstated("GroupDebate (GPT-3.5-turbo-0301); also its MAD baselines")
DU = unstated("Du et al.")
RECONCILE = unstated("RECONCILE")
CHATEVAL = unstated("ChatEval")
BASELINE = unstated("no single paper: a baseline")
COUNCIL = SamplingPreset(
    source="llm-council (karpathy): its code sends none, backend/openrouter.py query_model",
    note="its requests carry only the model and the messages, so each provider's defaults",
)
"""The LLM council: the providers' defaults, as llm-council's code sends none."""
MAD_JUDGE = SamplingPreset(
    source="Liang et al.'s code: Debate(temperature=0) in code/debate4tran.py and interactive.py",
    sampling=Sampling(temperature=0.0),
    note="every debater, the moderator and the final judge sample at temperature 0",
)
"""Liang et al.'s MAD: T 0 for every call, as its official code runs it."""

MOA = SamplingPreset(
    source="Mixture-of-Agents' code: temperature=0.7 in utils.py generate_with_references",
    sampling=Sampling(temperature=0.7),
    note="the code sends 0.7 to every proposer and the aggregator and caps each reply at "
    "2,048 tokens (utils.py): set max_tokens to match",
)
"""Mixture-of-Agents: T 0.7 for every call, as its official code runs it."""

SELF_MOA = unstated("Self-MoA (Li et al.): its sampling is not in our sources")

SELF_REFINE = SamplingPreset(
    source="Self-Refine's code: src/gsm/run.py sends temperature=0.7 to the feedback-and-fix "
    "calls of its math task",
    sampling=Sampling(temperature=0.7),
    note="one temperature for every call is our choice: the math code writes the first "
    "answer at --temperature (default 0.0), and other tasks differ (acronym, commongen, "
    "responsegen: 0.7 on every call; pie: its one --temperature, default 0.0, on every call)",
)
"""Self-Refine: T 0.7, as its math code samples feedback and fixes (its first answer: T 0)."""


def paper(preset: SamplingPreset) -> dict[str, SamplingPreset]:
    """The ``presets`` of a method whose paper's sampling is ``preset``."""
    return {PAPER: preset}
