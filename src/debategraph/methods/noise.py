"""The noise-control arm: any debating method, its peers' words replaced by unrelated ones.

:func:`noise_method` wraps a method so that every turn a speaker reads from another agent
(answers, summaries, reports: whatever is not its own) is shown with the text of a
rationale from another item of the same dataset instead, drawn with
:func:`debategraph.policies.noise.noise_rationale`, seeded per run, question, reader, round
and peer turn. The plan, the calls, the speaker's own earlier answers and the decision are
the method's own, so the arm makes the same calls as the debate it controls: what differs
is only whether the extra context is about this question.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any, cast

from debategraph.methods import DebateConfigError, Method, PromptInput, Turn
from debategraph.policies.noise import noise_rationale

NOISE_MARK = "+noise"
"""What names a noise-control method: ``<method>+noise`` (``du+noise``)."""


def noise_method(
    method: Method[Any],
    pool: Sequence[tuple[str, str]],
    *,
    seed: int = 0,
    name: str | None = None,
) -> Method[Any]:
    """``method`` with every peer turn it shows replaced by another item's rationale.

    Args:
        method: A debating method (``debates=True``).
        pool: ``(question, rationale)`` pairs of the dataset's items, in dataset order.
        seed: The draw's seed (use the run's).
        name: The new method's name (default ``"<method>+noise"``).

    Returns:
        A new method; the wrapped one is unchanged.

    Raises:
        DebateConfigError: A method that does not debate, or an empty pool.
    """
    if not method.debates:
        raise DebateConfigError(
            f"{method.name} does not debate (debates=False): its agents read no peer, so there "
            "is nothing for a noise control to replace"
        )
    if not any(text.strip() for _, text in pool):
        raise DebateConfigError(
            "the noise control needs rationales of the dataset's items; this dataset has none"
        )
    pairs = list(pool)

    def swap(p: PromptInput) -> PromptInput:
        shown = []
        for turn in p.peers:
            if turn["agent"] == p.agent:
                shown.append(turn)
                continue
            key = f"{seed}\x1f{p.question}\x1f{p.agent}\x1f{p.round}\x1f{turn['id']}"
            text = noise_rationale(pairs, p.question, key)
            shown.append(cast(Turn, {**turn, "text": text}))
        return dataclasses.replace(p, peers=shown)

    def wrap(template: Callable[[PromptInput], str]) -> Callable[[PromptInput], str]:
        return lambda p: template(swap(p))

    return dataclasses.replace(
        method,
        name=name or f"{method.name}{NOISE_MARK}",
        description=f"{method.description} Noise control: peers' words replaced by "
        "rationales of other items.",
        prompts={key: wrap(template) for key, template in method.prompts.items()},
        takes_decision=method.honours_decision,
        card="docs/methods/noise-control.md",
    )
