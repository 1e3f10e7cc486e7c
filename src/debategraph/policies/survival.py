"""SVR-MAD's math: prior signals, survival rate, correctness scores, budget, fallback vote.

SVR-MAD (Jiang et al., arXiv 2605.23099) scores each agent's chance of being right. Before an
agent has been challenged its score is a *prior* from its initial answer (token likelihood or
stated confidence, mapped to [0, 1]); once it has been challenged, the score is its *survival
rate* ``SVR = (retained - changed) / debates`` in [-1, 1]. Each iteration picks the agent
with the highest score as the receiver and lets up to ``S`` disagreeing agents challenge it.
The debate ends when a receiver keeps its answer against at least ``C`` challengers, or when
the budget ``B_max = S * (k + m)`` is spent; then a two-level vote decides.

Pure functions over plain values, no LangGraph; ``debategraph.methods.svr`` runs them.
Agents are identified by their index in agent order; an answer of ``None`` is an abstention.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from debategraph.policies.types import Answer, Decision

PriorKind = Literal["min_ll", "ppl", "confidence"]
"""Which pre-debate signal seeds the correctness scores: ``min_ll`` (the least likely sampled
token, ``exp(min logprob)``), ``ppl`` (``1 / perplexity = exp(mean logprob)``) or
``confidence`` (the agent's stated confidence)."""

NEEDS_LOGPROBS: frozenset[str] = frozenset({"min_ll", "ppl"})
"""The prior signals computed from token logprobs."""

NEUTRAL_CONFIDENCE = 0.5
"""The confidence prior of an agent whose stated confidence could not be read."""


class MissingLogprobs(ValueError):
    """A logprob prior was asked of a turn that carries no token logprobs."""


def min_ll_prior(min_logprob: float) -> float:
    """The min-LL prior: ``exp(min logprob)``, the probability of the least likely token.

    Args:
        min_logprob: The smallest log-probability among the sampled tokens (``<= 0``).

    Returns:
        A value in [0, 1] (a positive logprob, from a rounding server, is clipped to 1).

    Raises:
        ValueError: ``min_logprob`` is NaN.
    """
    if math.isnan(min_logprob):
        raise ValueError("min_logprob is NaN")
    return min(1.0, math.exp(min_logprob))


def ppl_prior(mean_logprob: float) -> float:
    """The perplexity prior: ``1 / PPL = exp(mean logprob)`` of the sampled tokens.

    Args:
        mean_logprob: The mean log-probability of the sampled tokens (``<= 0``).

    Returns:
        A value in [0, 1] (clipped to 1 like :func:`min_ll_prior`).

    Raises:
        ValueError: ``mean_logprob`` is NaN.
    """
    if math.isnan(mean_logprob):
        raise ValueError("mean_logprob is NaN")
    return min(1.0, math.exp(mean_logprob))


def confidence_prior(confidence: float | None) -> float:
    """The confidence prior: the stated confidence, clipped to [0, 1].

    Args:
        confidence: The agent's stated confidence, or ``None`` when none could be read.

    Returns:
        The confidence in [0, 1]; :data:`NEUTRAL_CONFIDENCE` when there is none.
    """
    if confidence is None or math.isnan(confidence):
        return NEUTRAL_CONFIDENCE
    return min(1.0, max(0.0, float(confidence)))


def prior_signal(
    kind: PriorKind, logprobs: Mapping[str, float] | None, confidence: float | None
) -> float:
    """An agent's prior correctness score from its initial answer, in [0, 1].

    Args:
        kind: ``min_ll``, ``ppl`` or ``confidence``.
        logprobs: The turn's logprob statistics (``min`` and ``mean`` of the sampled tokens),
            or ``None`` when the model returned none.
        confidence: The turn's stated confidence, or ``None``.

    Returns:
        The prior.

    Raises:
        MissingLogprobs: ``kind`` needs logprobs and ``logprobs`` has none.
        ValueError: An unknown ``kind``.
    """
    if kind == "confidence":
        return confidence_prior(confidence)
    if kind not in NEEDS_LOGPROBS:
        raise ValueError(f"unknown prior {kind!r}; valid: min_ll, ppl, confidence")
    key = "min" if kind == "min_ll" else "mean"
    if not logprobs or key not in logprobs:
        raise MissingLogprobs(f"the {kind} prior needs token logprobs")
    value = float(logprobs[key])
    return min_ll_prior(value) if kind == "min_ll" else ppl_prior(value)


def survival_rate(debates: int, retained: int, changed: int) -> float:
    """``SVR = (retained - changed) / debates``, in [-1, 1].

    Args:
        debates: Debates the agent received (``D``).
        retained: Debates after which it kept its initial answer (``r``).
        changed: Debates after which it did not (``c``).

    Returns:
        The survival rate.

    Raises:
        ValueError: ``debates < 1`` or ``retained + changed != debates``.
    """
    if debates < 1:
        raise ValueError(f"a survival rate needs at least one debate, got {debates}")
    if retained < 0 or changed < 0 or retained + changed != debates:
        raise ValueError(
            f"retained ({retained}) and changed ({changed}) must add up to debates ({debates})"
        )
    return (retained - changed) / debates


def correctness_score(prior: float, debates: int, retained: int, changed: int) -> float:
    """The posterior-dominant score: the prior until challenged, the survival rate after.

    Args:
        prior: The agent's prior in [0, 1].
        debates: Debates it received.
        retained: Debates after which it kept its initial answer.
        changed: Debates after which it did not.

    Returns:
        ``prior`` when ``debates == 0``, else :func:`survival_rate`.
    """
    return prior if debates == 0 else survival_rate(debates, retained, changed)


def accepts(
    debates: int, retained: int, changed: int, *, accept_after: int, threshold: float = 1.0
) -> bool:
    """The acceptance rule: ``SVR >= threshold`` after at least ``accept_after`` challengers.

    With the paper's ``threshold = 1`` this is "the agent kept its answer in every one of at
    least ``C`` debates".

    Args:
        debates: Debates the agent received.
        retained: Debates after which it kept its initial answer.
        changed: Debates after which it did not.
        accept_after: ``C``, the fewest debates before an answer may be accepted (``>= 1``).
        threshold: ``tau``, the survival rate needed, in [-1, 1].

    Returns:
        Whether the agent's initial answer is accepted.
    """
    if accept_after < 1:
        raise ValueError(f"accept_after must be at least 1, got {accept_after}")
    if debates < accept_after:
        return False
    return survival_rate(debates, retained, changed) >= threshold


def answer_clusters(answers: Sequence[Answer]) -> tuple[int, int]:
    """``(k, m)``: the number of distinct answers and the size of the largest group.

    Abstentions (``None``) form no group.

    Args:
        answers: The initial answers, one per agent.

    Returns:
        ``k`` and ``m`` (both 0 when every agent abstained).
    """
    counts = Counter(a for a in answers if a is not None)
    return len(counts), max(counts.values(), default=0)


def communication_budget(challengers: int, answers: Sequence[Answer]) -> int:
    """``B_max = S * (k + m)`` (SVR-MAD App. A).

    ``k`` pays for probing one representative of every answer group, ``m`` for probing every
    member of the largest group.

    Args:
        challengers: ``S``, the challengers per iteration.
        answers: The initial answers, one per agent.

    Returns:
        The budget, in pairwise debates.
    """
    k, m = answer_clusters(answers)
    return challengers * (k + m)


def iterations_for(budget: int, challengers: int) -> int:
    """How many iterations a budget allows: each costs ``S``, and one runs while ``B > 0``.

    Args:
        budget: ``B_max`` (``<= 0`` allows none).
        challengers: ``S`` (``>= 1``).

    Returns:
        ``ceil(budget / S)``, at least 0.
    """
    return max(0, -(-budget // challengers))


def ranked(scores: Sequence[float], among: Collection[int]) -> list[int]:
    """The agents of ``among``, highest score first, ties to the lower agent index."""
    return sorted(among, key=lambda i: (-scores[i], i))


@dataclass(frozen=True)
class Selection:
    """One iteration's receiver and challengers.

    Attributes:
        receiver: The agent challenged (the highest score among those that can be).
        challengers: Up to ``S`` agents that disagree with it, strongest first.
        exhausted: Higher-scored agents passed over: nobody is left to challenge them.
    """

    receiver: int
    challengers: tuple[int, ...]
    exhausted: tuple[int, ...] = ()


def select(
    scores: Sequence[float],
    answers: Sequence[Answer],
    debated: Collection[tuple[int, int]],
    challengers: int,
    *,
    repeat_pairs: bool = False,
) -> Selection | None:
    """Pick the next receiver and its challengers (SVR-MAD Alg. 1, lines 6-8).

    The receiver is the agent with the highest score (ties: lower index) that still has a
    challenger: an agent whose initial answer differs from the receiver's and that has not
    challenged it yet (``(challenger, receiver)`` not in ``debated``, unless
    ``repeat_pairs``). Its challengers are the ``S`` highest-scored such agents (fewer when
    fewer disagree). Agents that abstained (``None``) neither receive nor challenge.

    Args:
        scores: Each agent's correctness score.
        answers: Each agent's initial answer.
        debated: ``(challenger, receiver)`` pairs that have already debated.
        challengers: ``S``.
        repeat_pairs: Let a pair debate again (the literal Alg. 1; fresh samples).

    Returns:
        The selection, or ``None`` when no pair is left to debate.
    """
    answered = [i for i, a in enumerate(answers) if a is not None]
    order = ranked(scores, answered)
    done = set() if repeat_pairs else {(int(s), int(r)) for s, r in debated}
    passed: list[int] = []
    for receiver in order:
        eligible = [
            j for j in order if answers[j] != answers[receiver] and (j, receiver) not in done
        ]
        if eligible:
            return Selection(receiver, tuple(eligible[:challengers]), tuple(passed))
        passed.append(receiver)
    return None


def _by_holders(
    candidates: Sequence[str], holders: Sequence[Answer], scores: Sequence[float]
) -> tuple[str, str]:
    """The candidate held by the highest-scored agent (then the lowest index), and why.

    A candidate held by nobody ranks below every held one; among those, the first given.
    """

    def rank(candidate: str) -> tuple[float, int, int]:
        held = [i for i, a in enumerate(holders) if a == candidate]
        if not held:
            return (math.inf, len(holders), candidates.index(candidate))
        return (-max(scores[i] for i in held), min(held), 0)

    ranks = {c: rank(c) for c in candidates}
    best = min(candidates, key=lambda c: ranks[c])
    runner_up = sorted(ranks[c] for c in candidates)[1]
    reason = "score" if ranks[best][0] != runner_up[0] else "agent_order"
    return best, reason


def agent_vote(
    initial: Answer,
    post_debate: Sequence[Answer],
    *,
    holders: Sequence[Answer] = (),
    scores: Sequence[float] = (),
) -> Answer:
    """One agent's vote: the most frequent of its post-debate answers.

    An agent never challenged (or whose post-debate answers were all unreadable) votes its
    initial answer. A tie that includes the initial answer goes to it (the paper's rule);
    a tie without it goes to the answer held (as an initial answer) by the highest-scored
    agent, then by the lowest agent index, then to the answer seen first.

    Args:
        initial: The agent's initial answer.
        post_debate: Its answers after each debate it received, in order (``None``:
            unreadable, left out).
        holders: Every agent's initial answer (for a tie without the initial answer).
        scores: Every agent's correctness score (same).

    Returns:
        The vote (``None`` only when the agent abstained and never answered since).
    """
    counts = Counter(a for a in post_debate if a is not None)
    if not counts:
        return initial
    top = max(counts.values())
    tied = [a for a, n in counts.items() if n == top]
    if len(tied) == 1:
        return tied[0]
    if initial in tied:
        return initial
    return _by_holders(tied, holders, scores)[0]


def post_debate_votes(
    initial: Sequence[Answer],
    post_debate: Sequence[Sequence[Answer]],
    scores: Sequence[float],
) -> list[Answer]:
    """Every agent's :func:`agent_vote`, in agent order.

    Args:
        initial: Every agent's initial answer, in agent order.
        post_debate: Every agent's post-debate answers (empty if never challenged).
        scores: Every agent's correctness score.

    Returns:
        One vote per agent (``None``: it abstains).
    """
    return [
        agent_vote(y, post, holders=initial, scores=scores)
        for y, post in zip(initial, post_debate, strict=True)
    ]


def fallback_vote(
    initial: Sequence[Answer],
    post_debate: Sequence[Sequence[Answer]],
    scores: Sequence[float],
) -> Decision:
    """SVR-MAD's fallback majority vote (paper §4, "Fallback majority-voting").

    Each agent casts :func:`agent_vote`; the answer with the most votes wins. Ties go to the
    answer with the most *initial* answers (the pre-debate majority); if that ties too, to
    the answer whose voters include the highest-scored agent, then the lowest agent index.

    Args:
        initial: Every agent's initial answer, in agent order.
        post_debate: Every agent's post-debate answers (empty if never challenged).
        scores: Every agent's correctness score at the end.

    Returns:
        A decision (rule ``"svr"``) whose evidence has ``outcome: "fallback"``, every agent's
        ``agent_votes``, the ``votes`` per answer, ``abstentions``, ``tie`` and, for a tie,
        ``tied`` and ``tie_break`` (``initial_majority``, ``score`` or ``agent_order``).
    """
    votes = post_debate_votes(initial, post_debate, scores)
    counts = Counter(v for v in votes if v is not None)
    evidence: dict[str, object] = {
        "outcome": "fallback",
        "agent_votes": votes,
        "votes": dict(counts),
        "abstentions": sum(v is None for v in votes),
        "tie": False,
    }
    if not counts:
        return Decision(None, "svr", {**evidence, "reason": "every agent abstained"})
    top = max(counts.values())
    tied = [a for a, n in counts.items() if n == top]
    if len(tied) == 1:
        return Decision(tied[0], "svr", evidence)
    evidence.update(tie=True, tied=list(tied))
    before = Counter(a for a in initial if a is not None)
    most = max(before[a] for a in tied)
    leaders = [a for a in tied if before[a] == most]
    if len(leaders) == 1:
        return Decision(leaders[0], "svr", {**evidence, "tie_break": "initial_majority"})
    chosen, reason = _by_holders(leaders, votes, scores)
    return Decision(chosen, "svr", {**evidence, "tie_break": reason})
