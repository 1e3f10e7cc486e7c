"""What the peers' official code sends, as each method's ``paper`` sampling preset."""

from __future__ import annotations

import re

import pytest

import debategraph as dg
from debategraph.testing import ScriptedChatModel

ARITH = "What is the result of 3+4*5+6-7*2?"

SENT = {
    # togethercomputer/MoA, utils.py: temperature=0.7 for every proposer and the aggregator.
    "moa": {"temperature": 0.7},
    # Skytliang/Multi-Agents-Debate: Debate(..., temperature=0) in both entry points.
    "mad-judge": {"temperature": 0.0},
    # madaan/self-refine, src/gsm/run.py: the feedback-and-fix calls at 0.7.
    "self-refine": {"temperature": 0.7},
    # karpathy/llm-council, backend/openrouter.py: the request carries no sampling.
    "council": {},
}


@pytest.mark.parametrize("name", sorted(SENT))
def test_settings_paper_sends_what_the_official_code_sends(name):
    model = ScriptedChatModel(respond=lambda prompt: "3 + 20 + 6 - 14 = 15.\nRanking: A, B")
    agents = {"moa": 2, "council": 2}.get(name)
    options = {"layers": 2} if name == "moa" else None
    r = dg.run(ARITH, method=name, models=model, settings="paper", agents=agents,
               options=options)  # fmt: skip
    assert model.calls and all(c["kwargs"] == SENT[name] for c in model.calls), model.calls
    recorded = r.settings.get("sampling", {})
    assert recorded.get("source") == dg.get_method(name).presets["paper"].source
    assert re.search(r"\b[\w/]+\.py\b", recorded["source"]), recorded  # names the file
