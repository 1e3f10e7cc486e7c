"""Free-MAD (Cui et al., Findings of ACL 2026): ``freemad-n`` and ``freemad-c``.

Both are ``du``-style debates (every agent keeps its history and reads all peers) decided by
Free-MAD's score over the whole trajectory (decision rule ``freemad``) instead of a final
vote. ``freemad-n`` asks for anti-conformity in the debate prompt; ``freemad-c`` uses the
plain society-of-mind prompt. See ``docs/methods/freemad.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from debategraph.methods import Method, PromptInput, debate_planner, full_reads, presets
from debategraph.prompts import freemad


def _freemad(
    name: str, description: str, prompts: Mapping[str, Callable[[PromptInput], str]]
) -> Method:
    """A du-style debate with ``prompts``, decided by the ``freemad`` trajectory score."""
    return Method(
        name=name,
        presets=presets.paper(presets.FREE_MAD),
        description=description,
        prompts=prompts,
        plan=debate_planner(full_reads, history=True),
        decision="freemad",
        default_agents=4,
        default_rounds=1,
        card="docs/methods/freemad.md",
    )


FREEMAD_N = _freemad(
    "freemad-n",
    "Free-MAD: anti-conformity debate, then a score over the whole trajectory.",
    freemad.ANTI_CONFORMITY_PROMPTS,
)
FREEMAD_C = _freemad(
    "freemad-c",
    "Free-MAD with the plain (conformity) du debate prompt and the trajectory score.",
    freemad.CONFORMITY_PROMPTS,
)
