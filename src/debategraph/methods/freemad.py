"""Free-MAD (Cui et al., Findings of ACL 2026): ``freemad-n`` and ``freemad-c``.

Both are ``du``-style debates (every agent keeps its history and reads all peers) decided by
Free-MAD's score over the whole trajectory (decision rule ``freemad``) instead of a final
vote. ``freemad-n`` asks for anti-conformity in the debate prompt; ``freemad-c`` uses the
plain society-of-mind prompt. See ``docs/methods/freemad.md``.
"""

from __future__ import annotations

from debategraph.methods import Method, debate_planner, full_reads, presets
from debategraph.prompts import freemad

FREEMAD_N = Method(
    name="freemad-n",
    presets=presets.paper(presets.FREE_MAD),
    description="Free-MAD: anti-conformity debate, then a score over the whole trajectory.",
    prompts=freemad.ANTI_CONFORMITY_PROMPTS,
    plan=debate_planner(full_reads, history=True),
    decision="freemad",
    default_agents=4,
    default_rounds=1,
    card="docs/methods/freemad.md",
)
FREEMAD_C = Method(
    name="freemad-c",
    presets=presets.paper(presets.FREE_MAD),
    description="Free-MAD with the plain (conformity) du debate prompt and the trajectory score.",
    prompts=freemad.CONFORMITY_PROMPTS,
    plan=debate_planner(full_reads, history=True),
    decision="freemad",
    default_agents=4,
    default_rounds=1,
    card="docs/methods/freemad.md",
)
