"""MAD-M²'s memory-masking rules: which of last round's answers the next round may read.

Pure functions over plain numbers and verdicts, one mask entry per memory (``True`` keeps it).

* Subjective masking: an evaluator's verdict per memory; ``unsure`` keeps the memory under
  the loose rule (the paper's default) and masks it under the strict rule.
* Objective masking (the paper): the sequence perplexity of each memory, ``exp(-mean log p)``
  of its sampled tokens; only the lowest is kept.
* Objective masking (the official code, ``code_compat``): a score ``exp(mean top-1 log p)``
  per memory; the scores strictly above the median-position score are kept, so a tie at the
  top keeps nothing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

Verdict = Literal["keep", "mask", "unsure"]
"""An evaluator's judgement of one memory: correct (keep), wrong (mask) or unsure."""


def subjective_mask(verdicts: Sequence[Verdict], *, strict: bool = False) -> list[bool]:
    """Keep the memories judged correct; ``unsure`` ones too unless the rule is strict.

    Args:
        verdicts: One verdict per memory, in memory order.
        strict: Treat ``unsure`` as wrong (MAD-M²(S)-Strict) instead of correct.

    Returns:
        One flag per memory, ``True`` where the memory is kept.

    Raises:
        ValueError: A verdict other than ``keep``, ``mask`` or ``unsure``.
    """
    flags = []
    for verdict in verdicts:
        if verdict == "keep":
            flags.append(True)
        elif verdict == "mask":
            flags.append(False)
        elif verdict == "unsure":
            flags.append(not strict)
        else:
            raise ValueError(f"a verdict is keep, mask or unsure, got {verdict!r}")
    return flags


def perplexity(mean_logprob: float) -> float:
    """Sequence perplexity from the mean logprob of the sampled tokens: ``exp(-mean)``.

    Args:
        mean_logprob: Mean natural-log probability of the sampled tokens (at most 0).

    Returns:
        The perplexity, at least 1 for a valid mean; ``inf`` for a mean of ``-inf``.
    """
    return math.exp(-mean_logprob) if math.isfinite(mean_logprob) else math.inf


def lowest_perplexity_mask(perplexities: Sequence[float]) -> list[bool]:
    """Keep only the memory with the lowest perplexity (MAD-M²(O) as the paper states it).

    Ties go to the first memory in memory order (agent order), so exactly one memory is kept
    whenever any perplexity is finite; non-finite perplexities are never kept.

    Args:
        perplexities: One perplexity per memory.

    Returns:
        One flag per memory: a single ``True``, or none when no perplexity is finite.
    """
    best: int | None = None
    for i, value in enumerate(perplexities):
        if math.isfinite(value) and (best is None or value < perplexities[best]):
            best = i
    return [i == best for i in range(len(perplexities))]


def top1_score(top1_mean_logprob: float) -> float:
    """The official code's per-memory score: ``exp(mean logprob of the top-1 token)``.

    It is the geometric mean of the most likely token's probability at each position (the
    code calls it "perplexity", but higher means more confident).

    Args:
        top1_mean_logprob: Mean logprob of the rank-1 token over the response's positions.

    Returns:
        The score, in ``(0, 1]`` for a valid mean.
    """
    return math.exp(top1_mean_logprob)


def median_threshold(scores: Sequence[float]) -> float | None:
    """The official code's threshold: index ``n // 2`` of the scores sorted high to low.

    Returns:
        The threshold score, or ``None`` with no scores.
    """
    if not scores:
        return None
    return sorted(scores, reverse=True)[len(scores) // 2]


def above_median_mask(scores: Sequence[float]) -> list[bool]:
    """Keep the memories whose score is strictly above :func:`median_threshold` (``code_compat``).

    With 3 memories this keeps the single highest score, but nothing at all when the top two
    scores tie; with ``n`` memories it keeps at most ``n // 2`` (even ``n``) or ``(n - 1) // 2``
    (odd ``n``), and a single memory is never kept.

    Args:
        scores: One :func:`top1_score` per memory.

    Returns:
        One flag per memory.
    """
    threshold = median_threshold(scores)
    return [threshold is not None and s > threshold for s in scores]


def kept(items: Sequence[str], mask: Sequence[bool]) -> list[str]:
    """The items a mask keeps, in order.

    Raises:
        ValueError: The mask and the items differ in length.
    """
    if len(items) != len(mask):
        raise ValueError(f"{len(items)} memories but a mask of {len(mask)}")
    return [item for item, keep in zip(items, mask, strict=True) if keep]
