"""Majority vote with an explicit tie policy, and per-item seeds for random tie-breaks.

Random tie-breaks must be random per item, not per run: with one seed for every item, a
``random`` tie between the same sorted candidates would go the same way on every item of a
dataset. :func:`derive_seed` gives each item its own seed from the run seed and the item's
key; the engine passes it as ``seed`` to :func:`majority_vote` (``tie_policy="random"``) and
to the Free-MAD decision.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Sequence
from typing import Literal

from debategraph.policies.types import Answer, Decision

TiePolicy = Literal["first", "random", "confidence"]
"""``first``: the tied answer held by the lowest agent index (Du et al., MAD-M², RECONCILE);
``random``: uniform among tied answers, seeded; ``confidence``: highest summed confidence,
then ``first``."""


def derive_seed(run_seed: int, item_key: str) -> int:
    """A stable per-item seed for random tie-breaks.

    The seed is the first 8 bytes (big-endian) of ``blake2b(f"{run_seed}:{item_key}")``
    (digest size 16, UTF-8), so it is the same on every machine, Python version and process
    (unlike ``hash``, which is salted per process), differs between items of one run, and
    changes with the run seed.

    Args:
        run_seed: The run's seed (``--seed``).
        item_key: What identifies the item within the run, e.g. the dataset item id; a
            single question can use its text.

    Returns:
        A non-negative integer below ``2**64``.
    """
    digest = hashlib.blake2b(f"{run_seed}:{item_key}".encode(), digest_size=16).digest()
    return int.from_bytes(digest[:8], "big")


def unanimous(answers: Sequence[Answer]) -> bool:
    """Every agent gave the same, non-abstaining answer (an empty list is not unanimous)."""
    return bool(answers) and answers[0] is not None and all(a == answers[0] for a in answers)


def vote_counts(answers: Sequence[Answer]) -> Counter[str]:
    """Votes per answer in first-seen order, abstentions left out."""
    return Counter(a for a in answers if a is not None)


def break_tie(
    tied: Sequence[str],
    answers: Sequence[Answer],
    policy: TiePolicy,
    *,
    confidences: Sequence[float | None] | None = None,
    seed: int = 0,
) -> str:
    """Pick one of ``tied`` (given in first-seen order) by ``policy``.

    ``random`` draws ``random.Random(seed).choice(sorted(tied))``; pass a per-item seed from
    :func:`derive_seed` so that ties are not all broken toward the same sorted position.

    Args:
        tied: The tied answers, in first-seen order.
        answers: Every agent's answer (for the ``confidence`` policy).
        policy: The tie policy.
        confidences: Per agent confidence (``confidence`` policy).
        seed: Seed of the ``random`` policy.

    Returns:
        The chosen answer.
    """
    if policy == "random":
        return random.Random(seed).choice(sorted(tied))
    if policy == "confidence" and confidences is not None:

        def mass(answer: str) -> float:
            return sum(c or 0.0 for a, c in zip(answers, confidences, strict=True) if a == answer)

        best = max(mass(a) for a in tied)
        tied = [a for a in tied if mass(a) == best]
    return tied[0]


def majority_vote(
    answers: Sequence[Answer],
    *,
    tie_policy: TiePolicy = "first",
    confidences: Sequence[float | None] | None = None,
    seed: int = 0,
    no_answer_if_all_differ: bool = False,
) -> Decision:
    """Plurality vote over canonical answers.

    Abstentions are excluded and counted. When every agent abstains the decision is
    "no answer" (``None``).

    Args:
        answers: One canonical answer (or ``None``) per agent, in agent order.
        tie_policy: How a tie between the most voted answers is broken.
        confidences: Per agent confidence, used by the ``confidence`` tie policy.
        seed: Seed of the ``random`` tie policy; use :func:`derive_seed` (run seed, item).
        no_answer_if_all_differ: CortexDebate's rule: with two or more votes that all differ,
            return "no answer".

    Returns:
        The decision with evidence ``votes``, ``abstentions``, ``tie`` and ``tie_policy``.
    """
    counts = vote_counts(answers)
    evidence: dict[str, object] = {
        "votes": dict(counts),
        "abstentions": sum(a is None for a in answers),
        "tie_policy": tie_policy,
        "tie": False,
    }
    if not counts:
        return Decision(None, "majority", {**evidence, "reason": "every agent abstained"})
    top = max(counts.values())
    if no_answer_if_all_differ and top == 1 and len(counts) >= 2:
        return Decision(None, "majority", {**evidence, "reason": "all answers differ"})
    tied = [a for a, c in counts.items() if c == top]
    if len(tied) == 1:
        return Decision(tied[0], "majority", evidence)
    chosen = break_tie(tied, answers, tie_policy, confidences=confidences, seed=seed)
    return Decision(chosen, "majority", {**evidence, "tie": True, "tied": tied})


def prefix_majorities(answers: Sequence[Answer]) -> list[Answer]:
    """The first-seen majority of every prefix: ``majority_vote(answers[:k]).answer``, k = 1..n.

    One pass instead of n votes: only the new answer's count grows, so the leader either
    stays or is overtaken by it (or ties it while seen earlier). The same rule as
    :func:`majority_vote` with ``tie_policy="first"``, for the votes of every number of
    samples (``maj@k`` for each k).

    Args:
        answers: Canonical answers (``None``: abstained), in agent order.

    Returns:
        One decided answer per prefix (``None`` while every answer so far abstained).
    """
    if answers and answers[0] is not None and answers.count(answers[0]) == len(answers):
        return [answers[0]] * len(answers)  # unanimous: every prefix's majority is that answer
    counts: dict[str, int] = {}
    first: dict[str, int] = {}
    leader: str | None = None
    lead = 0  # the leader's count
    out: list[Answer] = []
    for position, answer in enumerate(answers):
        if answer is not None:
            count = counts.get(answer, 0) + 1
            counts[answer] = count
            if count == 1:
                first[answer] = position
            if answer == leader:
                lead = count
            elif (
                leader is None or count > lead or (count == lead and first[answer] < first[leader])
            ):
                leader, lead = answer, count
        out.append(leader)
    return out
