"""The noise control's draw: a rationale from another item, seeded per reader and peer turn.

"The Cost of Consensus" (arXiv 2605.00914) tells "debate helped" apart from "any extra
context helped" by an arm in which what each agent reads from its peers is replaced by
rationales taken from unrelated items. Pure, standard library only.
"""

from __future__ import annotations

import random
from collections.abc import Sequence


def noise_rationale(pool: Sequence[tuple[str, str]], question: str, key: str) -> str:
    """A rationale of an item other than ``question``, drawn from ``pool`` by ``key``.

    Args:
        pool: ``(question, rationale)`` pairs, one per item of the dataset (order matters
            for the draw, so pass it in dataset order).
        question: The question being debated; its own rationales are never drawn.
        key: The draw's seed text (the run's seed, the question, the reader, the round and
            the peer turn's id), so a rerun draws the same rationale.

    Raises:
        ValueError: No rationale of another item in the pool.
    """
    others = [text for asked, text in pool if asked != question and text.strip()]
    if not others:
        raise ValueError(
            "the noise control needs rationales of other items of the dataset, and the pool "
            "has none besides this question's"
        )
    return random.Random(key).choice(others)
