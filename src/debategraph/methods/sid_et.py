"""SID-ET as SVR-MAD uses it (Chen et al., arXiv 2510.06843; SVR-MAD App. A): ``sid-et``.

Round 0 has two phases. Phase 0: only the first agent answers, asked for token logprobs.
The ``observe`` hook reads its confidence signal, the *min-LL* (the least log-likelihood
among the answer's sampled tokens); the first agent is confident when the min-LL is above
``threshold``. Phase 1: unless it is confident (and ``mode`` is ``skip``), the other agents
answer alone too. Then all-to-all debate rounds as ``du`` (every agent keeps its history and
reads every other agent's latest answer), and a majority vote. A confident first agent ends
the debate at round 0 with its own answer.

With ``mode=record`` the debate always runs and the record still says whether the first
agent was confident: ``debategraph.policies.sid_et`` computes SID-ET at any dataset-level
skip rate (the form SVR-MAD reports) from such runs without new calls.

``method_state["sid_et"]`` (JSON-safe): ``agent``, ``min_ll``, ``mean_ll``, ``answer``,
``input_tokens``, ``output_tokens`` (the first agent's first call), ``threshold``, ``mode``,
``confident`` and ``skipped``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from debategraph.methods import (
    LOGPROBS_HELP,
    Call,
    DebateConfigError,
    DebateView,
    Decision,
    Method,
    MethodOptions,
    call,
    debate_calls,
    decide_by_rule,
    default_stop,
    full_reads,
    logprob_request,
    presets,
)
from debategraph.prompts import du

SKIP_THRESHOLD = -2.5
"""The default min-LL threshold: SID's released code treats an answer as confident when its
largest token NLL is below 2.5, i.e. its least token log-likelihood above -2.5."""


@dataclass(frozen=True, kw_only=True)
class SidEtOptions(MethodOptions):
    """SID-ET's parameters; see ``docs/methods/sid-et.md``.

    Attributes:
        threshold: The first agent is confident when the least log-likelihood of its
            answer's tokens is above this (a log-probability, at most 0).
        mode: ``"skip"``: a confident first agent's answer is returned without debate (the
            per-debate form); ``"record"``: always debate, and record what SID-ET at any
            dataset-level skip rate needs (``debategraph.policies.sid_et``).
    """

    threshold: float = SKIP_THRESHOLD
    mode: Literal["skip", "record"] = "skip"

    def __post_init__(self) -> None:
        super().__post_init__()
        if not math.isfinite(self.threshold) or self.threshold > 0:
            raise ValueError(
                f"threshold is a token log-probability: a finite number at most 0, "
                f"got {self.threshold}"
            )


View = DebateView[SidEtOptions]


def first_agent(view: View) -> str:
    """The agent whose first answer decides whether the debate runs (the first in order)."""
    return view.agents[0]


def plan_sid_et(view: View) -> list[Call] | None:
    """Round 0: the first agent, then (unless it skips) the others; later rounds as ``du``."""
    if view.round == 0:
        first = first_agent(view)
        if view.phase == 0:
            return [call(view, first, template="initial")]
        if view.method_state.get("sid_et", {}).get("skipped"):
            return None
        return [call(view, a, template="initial") for a in view.agents if a != first] or None
    if view.phase > 0:
        return None
    return debate_calls(view, full_reads(view.agents, view.latest_ids()), history=True)


def bind_sid_et(view: View, c: Call) -> dict[str, Any]:
    """Token logprobs for the first agent's first answer, and for no other call."""
    if c["round"] == 0 and c["speaker"] == first_agent(view) and c["kind"] == "answer":
        return logprob_request()
    return {}


def observe_sid_et(view: View) -> dict[str, Any] | None:
    """After the first agent's answer: its min-LL, whether it is confident, whether to skip.

    Raises:
        DebateConfigError: The first answer came back without token logprobs.
    """
    if view.round != 0 or view.phase != 0:
        return None
    agent = first_agent(view)
    turn = next(t for t in view.turns if t["round"] == 0 and t["agent"] == agent)
    stats = turn.get("logprobs") or {}
    if "min" not in stats:
        raise DebateConfigError(
            f"sid-et reads the first agent's confidence from the token log-likelihoods of its "
            f"first answer, but the model of {agent} ({turn['model']}) returned no token "
            f"logprobs although sid-et asked for them: {LOGPROBS_HELP}"
        )
    options = view.options
    confident = float(stats["min"]) > options.threshold
    return {
        "sid_et": {
            "agent": agent,
            "min_ll": float(stats["min"]),
            "mean_ll": float(stats["mean"]) if "mean" in stats else None,
            "answer": turn["answer"],
            "input_tokens": turn["input_tokens"],
            "output_tokens": turn["output_tokens"],
            "threshold": options.threshold,
            "mode": options.mode,
            "confident": confident,
            "skipped": confident and options.mode == "skip",
        }
    }


def stop_sid_et(view: View) -> bool:
    """Stop at round 0 when the first agent skipped the debate; else as ``du`` does."""
    if view.round == 0 and view.method_state.get("sid_et", {}).get("skipped"):
        return True
    return default_stop(view)


def debated(view: View) -> bool:
    """Whether the debate ran (the first agent was not confident enough to skip it)."""
    return not view.method_state.get("sid_et", {}).get("skipped")


def decide_sid_et(view: View) -> Decision:
    """The first agent's answer when the debate was skipped; else the decision rule's vote.

    Either way the evidence carries ``sid_et``: the outcome and the first agent's min-LL.
    """
    record = view.method_state.get("sid_et", {})
    evidence = {
        "outcome": "skipped" if record.get("skipped") else "debated",
        "min_ll": record.get("min_ll"),
        "threshold": record.get("threshold"),
        "confident": record.get("confident"),
    }
    if record.get("skipped"):
        return Decision(record["answer"], "sid-et", {"sid_et": evidence, "agent": record["agent"]})
    decision = decide_by_rule(view)
    return Decision(decision.answer, decision.rule, {**decision.evidence, "sid_et": evidence})


SID_ET = Method(
    name="sid-et",
    presets=presets.paper(presets.SVR_MAD_BASELINE),
    description="SID-ET: one agent answers first; if its least token log-likelihood says it "
    "is confident its answer stands, else every agent answers and debates all-to-all (du); "
    "needs token logprobs.",
    prompts=du.PROMPTS,
    plan=plan_sid_et,
    observe=observe_sid_et,
    stop=stop_sid_et,
    decide=decide_sid_et,
    takes_decision=True,
    rule_applies=debated,
    options=SidEtOptions,
    bind=bind_sid_et,
    default_agents=6,
    default_rounds=2,
    max_phases=2,
    plan_node="early_exit",
    card="docs/methods/sid-et.md",
)
"""The ``sid-et`` method; configure it with ``SidEtOptions`` (``--option KEY=VALUE``)."""
