"""A gate in front of any method: debate only when round 0's vote is not settled.

``gated(method, rule)`` returns a new :class:`Method` that runs the wrapped method unchanged
(its prompts, planner, observe hook, options, decision) with two hooks composed around its
own: after every phase of round 0 the ``observe`` hook records the gate in
``method_state["gate"]``, and the ``stop`` hook ends the debate after round 0 when the gate
holds. Then the wrapped method's ``decide`` picks the answer from round 0 alone; otherwise
the wrapped method debates as it always does. Round 0 is always paid, and its turns are in
the usage like any other.

Rules, as the command line gives them (:func:`gate_from_text`):

* ``unanimous``: settled when every agent gives the same answer;
* ``entropy<H``: settled when the Shannon entropy (bits) of round 0's answers is below ``H``;
* ``confidence>C``: settled when the mean stated confidence of the holders of the most
  common answer is above ``C`` (the gated method then asks every agent for a confidence).

Abstentions are categories of their own (``debategraph.policies.gate``). See
``docs/methods/gate.md``.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import re
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from debategraph.methods.contract import DebateView, Method
from debategraph.policies.gate import answer_entropy, majority_confidence, plurality_share
from debategraph.policies.types import Decision
from debategraph.state.context import DebateConfigError

GateKind = Literal["unanimous", "entropy", "confidence"]
"""What a gate measures: unanimity, the answers' entropy, or the majority's confidence."""

_NUMBER = r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)"
_FORMS = {
    "unanimous": re.compile(r"unanimous"),
    "entropy": re.compile(rf"entropy\s*<\s*{_NUMBER}"),
    "confidence": re.compile(rf"confidence\s*>\s*{_NUMBER}"),
}
RULE_HELP = (
    "unanimous, entropy<H (settled when the answers' entropy in bits is below H > 0, e.g. "
    "entropy<0.5) or confidence>C (settled when the majority's mean stated confidence is "
    "above C in [0, 1), e.g. confidence>0.8)"
)


@dataclass(frozen=True)
class GateRule:
    """When round 0's vote is settled enough to skip the debate.

    Attributes:
        kind: ``unanimous``, ``entropy`` or ``confidence``.
        bound: ``H`` (entropy, in bits, > 0) or ``C`` (confidence, in [0, 1)); ``None`` for
            ``unanimous``.
    """

    kind: GateKind
    bound: float | None = None

    def __post_init__(self) -> None:
        if self.kind == "unanimous":
            if self.bound is not None:
                raise ValueError("the unanimous gate takes no bound")
        elif self.kind == "entropy":
            if self.bound is None or not math.isfinite(self.bound) or self.bound <= 0:
                raise ValueError(
                    f"entropy<H needs H > 0 (bits; entropy<0 never holds), got {self.bound}"
                )
        elif self.kind == "confidence":
            if self.bound is None or not 0 <= self.bound < 1:
                raise ValueError(
                    f"confidence>C needs C in [0, 1) (confidence>1 never holds), got {self.bound}"
                )
        else:
            raise ValueError(f"unknown gate kind {self.kind!r}; use {RULE_HELP}")

    @property
    def text(self) -> str:
        """The rule as the command line writes it: ``unanimous``, ``entropy<0.5`` ..."""
        if self.kind == "unanimous":
            return "unanimous"
        sign = "<" if self.kind == "entropy" else ">"
        return f"{self.kind}{sign}{self.bound:g}"

    @property
    def slug(self) -> str:
        """The rule in a form fit for names and paths: ``unanimous``, ``entropy-0.5`` ..."""
        return self.kind if self.bound is None else f"{self.kind}-{self.bound:g}"

    def measure(self, answers: list[str | None], confidences: list[float | None]) -> float:
        """The value the rule compares: plurality share, entropy or majority confidence."""
        if self.kind == "unanimous":
            return plurality_share(answers)
        if self.kind == "entropy":
            return answer_entropy(answers)
        return majority_confidence(answers, confidences)

    def settled(self, value: float) -> bool:
        """Whether ``value`` settles the vote under this rule."""
        if self.kind == "unanimous":
            return value == 1.0
        assert self.bound is not None
        return value < self.bound if self.kind == "entropy" else value > self.bound

    def __str__(self) -> str:
        return self.text


def gate_from_text(text: str) -> GateRule:
    """A gate rule from its command-line form (``--gate unanimous|entropy<H|confidence>C``).

    Spaces around the sign are allowed (``entropy < 0.5``); case is ignored.

    Raises:
        ValueError: Text that is none of the forms, or a bound out of range; the message
            lists the forms.
    """
    cleaned = text.strip().lower()
    for kind, pattern in _FORMS.items():
        found = pattern.fullmatch(cleaned)
        if found is None:
            continue
        bound = float(found.group(1)) if found.groups() else None
        try:
            return GateRule(kind, bound)  # type: ignore[arg-type]
        except ValueError as exc:
            raise ValueError(f"gate rule {text!r}: {exc}") from None
    raise ValueError(f"gate rule {text!r} is not understood; use {RULE_HELP}")


def rule_from_slug(slug: str) -> GateRule:
    """A gate rule from its slug, as method names carry it (``entropy-0.5``).

    Raises:
        ValueError: Not a slug of any rule (:func:`gate_from_text`).
    """
    kind, _, bound = slug.partition("-")
    if kind == "entropy":
        return gate_from_text(f"entropy<{bound}")
    if kind == "confidence":
        return gate_from_text(f"confidence>{bound}")
    return gate_from_text(slug)


def gated_name(method: str, rule: str | GateRule) -> str:
    """The registered-style name of ``method`` behind ``rule``: ``du+gate-entropy-0.5``.

    Raises:
        ValueError: Bad rule text (:func:`gate_from_text`).
    """
    gate = gate_from_text(rule) if isinstance(rule, str) else rule
    return f"{method}+gate-{gate.slug}"


def gate_record(view: DebateView[Any], rule: GateRule) -> dict[str, Any]:
    """The gate over the answers given so far in round 0.

    Returns:
        ``rule`` (its text), ``value`` (what it measured), ``settled`` (the vote is settled:
        the debate ends after round 0) and ``fired`` (the gate let the debate go on past
        round 0: ``not settled``).
    """
    latest = {a: t for a, t in view.latest().items() if t["round"] == 0}
    answers = [latest[a]["answer"] if a in latest else None for a in view.agents]
    confidences = [latest[a]["confidence"] if a in latest else None for a in view.agents]
    value = rule.measure(answers, confidences)
    settled = rule.settled(value)
    return {"rule": rule.text, "value": round(value, 12), "settled": settled, "fired": not settled}


def gate_method(
    method: Method[Any], rule: str | GateRule = "unanimous", *, name: str | None = None
) -> Method[Any]:
    """``method`` behind a gate: debate only when round 0's vote is not settled.

    :func:`debategraph.gated` takes the method by name as well.

    Args:
        method: The method.
        rule: A :class:`GateRule` or its text: ``unanimous``, ``entropy<H``, ``confidence>C``.
        name: The gated method's name (default ``"<method>+gate-<rule>"``, e.g.
            ``du+gate-entropy-0.5``); register it to use it by name.

    Returns:
        A new method; the wrapped one is unchanged.

    Raises:
        ValueError: Bad rule text (:func:`gate_from_text`).
        DebateConfigError: A method that does not debate (round 0 is all it does), or one
            that is gated already.
    """
    inner = method
    gate = gate_from_text(rule) if isinstance(rule, str) else rule
    if not inner.debates:
        raise DebateConfigError(
            f"{inner.name} cannot be gated: it does not debate (debates=False), so there is "
            "no debate for a gate to skip"
        )
    if getattr(inner, "_gate", None) is not None:
        raise DebateConfigError(
            f"{inner.name} is gated already ({inner._gate}); gate the method itself instead"  # type: ignore[attr-defined]
        )
    wrapped_observe, wrapped_stop, wrapped_decide = inner.observe, inner.stop, inner.decide

    def observe(
        view: DebateView[Any],
    ) -> Mapping[str, Any] | Awaitable[Mapping[str, Any] | None] | None:
        found = wrapped_observe(view) if wrapped_observe is not None else None
        if view.round != 0:
            return found
        record = {"gate": gate_record(view, gate)}
        if inspect.isawaitable(found):
            pending = found

            async def merged() -> Mapping[str, Any]:
                return {**((await pending) or {}), **record}

            return merged()
        return {**(found or {}), **record}

    def stop(view: DebateView[Any]) -> bool:
        if view.round == 0 and gate_record(view, gate)["settled"]:
            return True
        return wrapped_stop(view)

    def decide(view: DebateView[Any]) -> Decision:
        decision = wrapped_decide(view)
        record = view.method_state.get("gate")
        if record is None:
            return decision
        return Decision(decision.answer, decision.rule, {**decision.evidence, "gate": record})

    result = dataclasses.replace(
        inner,
        name=name or gated_name(inner.name, gate),
        description=f"{inner.description} Gated: debates only if round 0 is not settled "
        f"({gate.text}).",
        observe=observe,
        stop=stop,
        decide=decide,
        takes_decision=inner.honours_decision,
        confidence=inner.confidence or gate.kind == "confidence",
        card="docs/methods/gate.md",
    )
    object.__setattr__(result, "_gate", gate)
    return result
