"""What a debate produced: :class:`DebateResult`, and its JSON form."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from debategraph.policies.accounting import (
    answer_sources,
    mean_input_tokens_per_call,
    ncomm,
    usage_by_kind,
    usage_by_source,
    usage_totals,
)
from debategraph.policies.answers import answers_match
from debategraph.policies.types import TaskKind
from debategraph.state.records import Turn
from debategraph.state.views import answer_turns

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["TURN_FIELDS", "DebateResult"]

TURN_FIELDS = (
    "id",
    "agent",
    "round",
    "kind",
    "answer",
    "answer_source",
    "confidence",
    "reads",
    "input_tokens",
    "output_tokens",
    "cached_input_tokens",
    "reasoning_tokens",
    "reasoning_field",
    "usage_estimated",
    "cached",
    "latency_s",
    "model",
    "label",
    "logprobs",
    "ballot",
    "text",
    "reasoning",
)

TEXT_FIELDS = frozenset({"text", "reasoning"})
"""The turn fields that hold model text: kept only on request (``include_text``)."""


@dataclass
class DebateResult:
    """What a debate produced.

    Attributes:
        method: Method name.
        question: The question asked.
        answer: The decided canonical answer, or ``None`` for "no answer".
        decision: ``rule`` and ``evidence`` (votes or scores, ties, abstentions).
        rounds: Debate rounds after the initial round in which a call was made
            (:func:`~debategraph.policies.accounting.rounds_with_calls`).
        agents: Each agent's name and model label.
        turns: Every turn record, in order.
        cut_off: Agents that received no peer turns (communication attack).
        adversaries: Adversarial agents and the wrong answer each argued for.
        method_state: Method-specific state (e.g. per-round graphs).
        reference: The reference answer, if given (for evaluation).
        settings: The settings the debate ran with (JSON-safe).
        task: The answer kind (grading of ``math`` answers is symbolic).
    """

    method: str
    question: str
    answer: str | None
    decision: dict[str, Any]
    rounds: int
    agents: list[dict[str, str]]
    turns: list[Turn]
    cut_off: list[str] = field(default_factory=list)
    adversaries: dict[str, str] = field(default_factory=dict)
    method_state: dict[str, Any] = field(default_factory=dict)
    reference: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    task: TaskKind = "number"

    @property
    def usage(self) -> dict[str, int]:
        """Input, output and total tokens, model calls, calls with estimated usage, cached calls.

        ``cached_calls`` are the calls replayed from the call cache (no request made). The
        provider's ``cached_input_tokens`` (part of the input) and ``reasoning_tokens``
        (part of the output) are there when it stated them.
        """
        return usage_totals(self.turns)

    @property
    def ncomm(self) -> int:
        """Peer turns delivered to debating agents (pairwise communications)."""
        return ncomm(self.turns)

    @property
    def abstentions(self) -> int:
        """Agents whose last answer was unparseable."""
        return int(self.decision.get("evidence", {}).get("abstentions", 0))

    @property
    def parse_failures(self) -> int:
        """Answer turns, in any round, whose response had no parseable answer."""
        return sum(t["answer"] is None for t in answer_turns(self.turns))

    @property
    def answer_sources(self) -> dict[str, int]:
        """How the answer turns' answers were found: ``declared``, ``fallback``, ``none``."""
        return answer_sources(self.turns)

    @property
    def correct(self) -> bool | None:
        """Whether the answer matches the reference (``None`` without a reference).

        ``math`` answers are graded by symbolic equivalence, every other kind by equality of
        canonical forms; "no answer" is never correct.
        """
        if self.reference is None:
            return None
        return answers_match(self.answer, self.reference, self.task)

    def round_answers(self) -> list[list[str | None]]:
        """Per round, every agent's answer (agents that did not speak carry theirs).

        A method whose agents take stances outside answer turns (SVR-MAD's pairwise debates)
        keeps them in ``method_state["stances"]``: they follow the answer turns' rounds.
        """
        from debategraph.state.views import trajectory

        path = trajectory(self.turns, [a["name"] for a in self.agents])
        rounds = [list(col) for col in zip(*path.answers, strict=True)] if path.answers else []
        return rounds + [list(r) for r in self._stances("answers")] if rounds else rounds

    def round_confidences(self) -> list[list[float | None]]:
        """Per round, every agent's stated confidence (``None`` where none was read)."""
        from debategraph.state.views import trajectory

        path = trajectory(self.turns, [a["name"] for a in self.agents])
        if not path.confidences:
            return []
        rounds = [list(col) for col in zip(*path.confidences, strict=True)]
        return rounds + [list(r) for r in self._stances("confidences")]

    def _stances(self, key: str) -> list[list[Any]]:
        stances = self.method_state.get("stances")
        return list(stances.get(key) or []) if isinstance(stances, dict) else []

    def graphs(self) -> list[nx.DiGraph]:
        """Per debate round, who read whom, as networkx digraphs.

        Methods that weigh their graph (``cortex``) give every candidate edge with its
        ``weight`` and ``kept`` (the tail read the head), ``svr`` its communication graph so
        far with each debate's outcome; for the others an edge ``head -> tail`` means the
        tail's call read the head's turn, with the turn ids in ``turns``.
        ``graph.graph["round"]`` is the debate round; a stored graph's other keys (such as
        ``receiver`` and ``title``) are graph attributes too.
        """
        from debategraph.policies.graphs import digraph_from_edges, read_graphs

        stored = self.method_state.get("graphs")
        if not stored:
            return read_graphs(self.turns, [a["name"] for a in self.agents])
        graphs = []
        for entry in stored:
            graph = digraph_from_edges(entry["agents"], entry["edges"])
            graph.graph.update({k: v for k, v in entry.items() if k not in ("agents", "edges")})
            graphs.append(graph)
        return graphs

    def __repr__(self) -> str:
        answer = "no answer" if self.answer is None else repr(self.answer)
        return (
            f"DebateResult(method={self.method!r}, answer={answer}, rule="
            f"{self.decision.get('rule')!r}, agents={len(self.agents)}, rounds={self.rounds}, "
            f"calls={self.usage['calls']}, tokens={self.usage['total_tokens']})"
        )

    def _repr_html_(self) -> str:
        """A notebook view: the decision, then one table of turns per round."""
        from debategraph.eval.report.html import result_html

        return result_html(self)

    def turn_records(
        self, *, include_text: bool = False, include_prompts: bool = False
    ) -> list[dict[str, Any]]:
        """Every turn as JSON (the ``TURN_FIELDS``); responses and prompts only on request.

        A response's thinking (``reasoning``) is text: kept only with ``include_text``.
        """
        fields = [f for f in TURN_FIELDS if include_text or f not in TEXT_FIELDS]
        turns = []
        for t in self.turns:
            row: dict[str, Any] = {f: t.get(f) for f in fields if f in t}
            if include_prompts:
                row["prompt"] = t["prompt"]
            turns.append(row)
        return turns

    def to_dict(
        self, *, include_text: bool = False, include_prompts: bool = False
    ) -> dict[str, Any]:
        """A JSON-ready dict; model responses and prompts only on request."""
        turns = self.turn_records(include_text=include_text, include_prompts=include_prompts)
        answers = answer_turns(self.turns)
        return {
            "method": self.method,
            "question": self.question,
            "task": self.task,
            "answer": self.answer,
            "reference": self.reference,
            "correct": self.correct,
            "decision": self.decision,
            "rounds": self.rounds,
            "agents": self.agents,
            "cut_off": self.cut_off,
            "adversaries": self.adversaries,
            "settings": self.settings,
            "turns": turns,
            "usage": self.usage,
            "usage_by_kind": usage_by_kind(self.turns),
            "usage_by_source": usage_by_source(self.turns),
            "ncomm": self.ncomm,
            "mean_input_tokens_per_call": mean_input_tokens_per_call(self.turns),
            "abstentions": self.abstentions,
            "parse_failures": self.parse_failures,
            "parse_failure_rate": self.parse_failures / len(answers) if answers else 0.0,
            "answer_sources": self.answer_sources,
            "round_answers": self.round_answers(),
            "round_confidences": self.round_confidences(),
            "method_state": self.method_state,
        }
