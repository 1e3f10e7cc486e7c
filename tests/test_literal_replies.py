"""Every built-in prompt that asks for a format, read back from replies a literal model writes.

Table-driven: (prompt, reply shape) -> the reading. For each prompt the shapes are the format
on its own line after the reasoning, Markdown around it, the format twice (which one counts
is decided per prompt: the prompts say "end with", so the last, except MAD-M²'s
``first_label`` reading, which reproduces the official code), a preamble before it, and the
format missing, which must read as an abstention or "unparsed", never as a side, a member or
a verdict. Plain answer formats (``\\boxed{}``, ``Answer:``, letters, confidence) are the
answer reader's and are tested with it; the engine strips thinking before any of these run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import debategraph as dg
from debategraph.methods.council import COUNCIL, parse_ranking
from debategraph.methods.mad_judge import MAD_JUDGE, read_preference
from debategraph.methods.self_refine import SELF_REFINE
from debategraph.policies.ballots import parse_ballot
from debategraph.policies.verdicts import parse_verdict
from debategraph.prompts import madm2
from debategraph.prompts.decision import ballot_request
from debategraph.testing import make_turn

Q = "What is the result of 3+4*5+6-7*2?"
CANDIDATES = ["15", "14", "16"]
MEMBERS = ["a1", "a2", "a3"]
REASONING = "Step 1: 4*5 = 20 and 7*2 = 14.\nStep 2: 3 + 20 + 6 - 14 = 15."
PREAMBLE = "Sure! I read every part carefully before deciding.\n\n"

READERS: dict[str, Callable[[str], Any]] = {
    "mad-judge moderate": read_preference,
    "council rank": lambda text: parse_ranking(text, MEMBERS).ranked,
    "ballot approval": lambda text: parse_ballot(text, "approval", CANDIDATES, own="15"),
    "ballot cumulative": lambda text: parse_ballot(text, "cumulative", CANDIDATES, own="15"),
    "ballot ranked": lambda text: parse_ballot(text, "ranked", CANDIDATES, own="15"),
    "madm2 evaluate (last_label)": lambda text: parse_verdict(text),
    "madm2 evaluate (first_label)": lambda text: parse_verdict(text, "first_label"),
    "self-refine feedback": lambda text: parse_verdict(text),
}
"""How the engine reads each prompt's format (what the method or the call node calls)."""

CASES: list[tuple[str, str, str, Any]] = [
    # mad-judge: one decision line, the last counts, none is "missing" (no side).
    ("mad-judge moderate", "own line", f"{REASONING}\nPreference: negative", "negative"),
    ("mad-judge moderate", "bold label", "**Preference:** Affirmative", "affirmative"),
    ("mad-judge moderate", "bold line", f"{REASONING}\n**Preference: none**", "none"),
    ("mad-judge moderate", "heading", "### Preference: the negative side", "negative"),
    ("mad-judge moderate", "list item", "- Preference: `affirmative`.", "affirmative"),
    ("mad-judge moderate", "twice, last wins",
     "Preference: affirmative\nOn reflection the negative is right.\nPreference: negative",
     "negative"),
    ("mad-judge moderate", "preamble", f"{PREAMBLE}Preference: negative", "negative"),
    ("mad-judge moderate", "format quoted, not given",
     "I must pick 'Preference: affirmative' or 'Preference: negative'; I cannot yet.",
     "missing"),
    ("mad-judge moderate", "both old endings",
     "No preference yet.\nThe final answer is \\boxed{15}.", "missing"),
    ("mad-judge moderate", "missing", REASONING, "missing"),
    ("mad-judge moderate", "note in brackets", "Preference: negative (it multiplies first)",
     "negative"),
    ("mad-judge moderate", "note after a dash", "**Preference:** affirmative - step 2 holds.",
     "affirmative"),
    ("mad-judge moderate", "no preference spelled out", "Preference: no preference", "none"),
    # council: the letters on the label's line, or the list under it; the last label counts.
    ("council rank", "own line", f"{REASONING}\nRanking: C, A, B", ["a3", "a1", "a2"]),
    ("council rank", "bold label", f"{REASONING}\n**Ranking:** C > A > B", ["a3", "a1", "a2"]),
    ("council rank", "bold line", f"{REASONING}\n**Ranking: B, C, A**", ["a2", "a3", "a1"]),
    ("council rank", "response words", "Ranking: Response C, Response A, Response B",
     ["a3", "a1", "a2"]),
    ("council rank", "llm-council numbered list",
     f"{REASONING}\n\nFINAL RANKING:\n1. Response C\n2. Response A\n3. Response B",
     ["a3", "a1", "a2"]),
    ("council rank", "list under the label, bold, with notes",
     "**Ranking:**\n\n1. **Response B** - sound steps\n2. Response C\n3. Response A\n\nDone.",
     ["a2", "a3", "a1"]),
    ("council rank", "heading and bullets", "## Final ranking\n- C\n- B\n- A", ["a3", "a2", "a1"]),
    ("council rank", "twice, last wins", "Ranking: A, B, C\nOn reflection:\nRanking: C, B, A",
     ["a3", "a2", "a1"]),
    ("council rank", "preamble", f"{PREAMBLE}Ranking: B, A, C", ["a2", "a1", "a3"]),
    ("council rank", "missing (responses named in passing)",
     "Response A is careless; Response C is right; Response B slips in step 2.", []),
    ("council rank", "unknown and repeated letters", "Ranking: C, C, E, A", ["a3", "a1"]),
    # Ballots: the last 'Ballot:' line; anything unreadable spoils the ballot (None).
    ("ballot approval", "own line", f"{REASONING}\nBallot: C1, C3", ["15", "16"]),
    ("ballot approval", "bold label", f"{REASONING}\n**Ballot:** C1", ["15"]),
    ("ballot approval", "bold line", f"{REASONING}\n**Ballot: C1, C3**", ["15", "16"]),
    ("ballot approval", "code and full stop", f"{REASONING}\n`Ballot: C1, C2`.", ["15", "14"]),
    ("ballot approval", "list item", f"{REASONING}\n- Ballot: C1", ["15"]),
    ("ballot approval", "twice, last wins", "Ballot: C2\nOn reflection:\nBallot: C1", ["15"]),
    ("ballot approval", "preamble", f"{PREAMBLE}The answer is 15.\nBallot: C0", ["15"]),
    ("ballot approval", "missing", REASONING, None),
    ("ballot approval", "unknown label", "Ballot: C7", None),
    ("ballot cumulative", "own line", f"{REASONING}\nBallot: C1=7, C2=3", {"15": 7, "14": 3}),
    ("ballot cumulative", "bold label", "**Ballot:** C1=10", {"15": 10}),
    ("ballot cumulative", "bold line", "**Ballot: C1=6, C3=4**", {"15": 6, "16": 4}),
    ("ballot cumulative", "colons and full stop", "Ballot: C1: 8, C2: 2.", {"15": 8, "14": 2}),
    ("ballot cumulative", "twice, last wins", "Ballot: C2=10\nBallot: C1=10", {"15": 10}),
    ("ballot cumulative", "preamble", f"{PREAMBLE}Ballot: C3=5, C1=5", {"16": 5, "15": 5}),
    ("ballot cumulative", "missing", REASONING, None),
    ("ballot cumulative", "over the budget", "Ballot: C1=8, C2=8", None),
    ("ballot ranked", "own line", f"{REASONING}\nBallot: C1 > C3 > C2", ["15", "16", "14"]),
    ("ballot ranked", "bold label", "**Ballot:** C2 > C1", ["14", "15"]),
    ("ballot ranked", "bold line", "**Ballot: C3 > C1**", ["16", "15"]),
    ("ballot ranked", "code and full stop", "`Ballot: C1 > C2`.", ["15", "14"]),
    ("ballot ranked", "twice, last wins", "Ballot: C2 > C1\nBallot: C1 > C2", ["15", "14"]),
    ("ballot ranked", "preamble", f"{PREAMBLE}Ballot: C1", ["15"]),
    ("ballot ranked", "missing", REASONING, None),
    ("ballot ranked", "repeated label", "Ballot: C1 > C1", None),
    # Verdicts: the last <label> (the paper's "end with"); none is unsure, and said so.
    ("madm2 evaluate (last_label)", "own line", f"{REASONING}\n<label>YES</label>", ("keep", True)),
    ("madm2 evaluate (last_label)", "bold around", "Wrong in step 2.\n**<label>NO</label>**",
     ("mask", True)),
    ("madm2 evaluate (last_label)", "bold inside", "<label>**NOT SURE**</label>", ("unsure", True)),
    ("madm2 evaluate (last_label)", "code", "`<label>no</label>`", ("mask", True)),
    ("madm2 evaluate (last_label)", "twice, last wins",
     "<label>YES</label> at first sight, but step 2 fails.\n<label>NO</label>", ("mask", True)),
    ("madm2 evaluate (last_label)", "preamble", f"{PREAMBLE}<label>YES</label>", ("keep", True)),
    ("madm2 evaluate (last_label)", "missing", "The solution looks right.", ("unsure", False)),
    ("madm2 evaluate (last_label)", "unknown word", "<label>MAYBE</label>", ("unsure", False)),
    # The official code's reading: the first label, tags in lower case, its word as written.
    ("madm2 evaluate (first_label)", "own line", f"{REASONING}\n<label>YES</label>",
     ("keep", True)),
    ("madm2 evaluate (first_label)", "bold around", "**<label>NO</label>**", ("mask", True)),
    ("madm2 evaluate (first_label)", "bold inside", "<label>**NO**</label>", ("unsure", False)),
    ("madm2 evaluate (first_label)", "twice, first wins",
     "<label>YES</label> at first sight, but step 2 fails.\n<label>NO</label>", ("keep", True)),
    ("madm2 evaluate (first_label)", "preamble", f"{PREAMBLE}<label>NO</label>", ("mask", True)),
    ("madm2 evaluate (first_label)", "missing", "The solution looks right.", ("unsure", False)),
    ("self-refine feedback", "own line", "Every step holds.\n<label>YES</label>", ("keep", True)),
    ("self-refine feedback", "bold around", "Step 2 is wrong.\n**<label>NO</label>**",
     ("mask", True)),
    ("self-refine feedback", "twice, last wins",
     "<label>YES</label> would be my first answer; but step 2 fails.\n<label>NO</label>",
     ("mask", True)),
    ("self-refine feedback", "preamble", f"{PREAMBLE}<label>YES</label>", ("keep", True)),
    ("self-refine feedback", "missing", "Step 2 needs a check.", ("unsure", False)),
]  # fmt: skip


@pytest.mark.parametrize(
    ("prompt", "shape", "reply", "expected"),
    CASES,
    ids=[f"{prompt}: {shape}" for prompt, shape, _, _ in CASES],
)
def test_a_literal_reply_is_read_as_its_format_says(prompt, shape, reply, expected):
    assert READERS[prompt](reply) == expected


def test_every_reader_meets_every_shape():
    shapes = {"own line", "twice", "preamble", "missing"}
    for prompt in READERS:
        seen = {shape for p, shape, _, _ in CASES if p == prompt}
        assert {s for s in shapes if any(x.startswith(s) for x in seen)} == shapes, prompt
        assert any("bold" in shape for shape in seen), prompt


def _council_rank_prompt() -> str:
    peers = [make_turn(f"r0:a{i}", agent=f"a{i}", text=f"\\boxed{{{i}}}") for i in (1, 2, 3)]
    return COUNCIL.prompts["rank"](dg.methods.PromptInput(question=Q, peers=peers))


PROMPT_ASKS: list[tuple[str, Callable[[], str], list[str]]] = [
    (
        "mad-judge moderate",
        lambda: MAD_JUDGE.prompts["moderate"](
            dg.methods.PromptInput(question=Q, peers=[make_turn("r0:a1"), make_turn("r0:a2")])
        ),
        ["'Preference: affirmative'", "'Preference: negative'", "'Preference: none'"],
    ),
    ("council rank", _council_rank_prompt, ["'Ranking: C, B, A'"]),
    ("ballot approval", lambda: ballot_request({"kind": "approval", "candidates": CANDIDATES}),
     ["'Ballot:'", "'Ballot: C1, C3'"]),
    ("ballot cumulative",
     lambda: ballot_request({"kind": "cumulative", "candidates": CANDIDATES, "points": 10}),
     ["'Ballot: C1=7, C2=3'"]),
    ("ballot ranked", lambda: ballot_request({"kind": "ranked", "candidates": CANDIDATES}),
     ["'Ballot: C2 > C1 > C3'"]),
    ("madm2 evaluate (last_label)",
     lambda: madm2.evaluate(dg.methods.PromptInput(question=Q, peers=[make_turn("r0:a1")])),
     ["<label>YES</label>", "<label>NO</label>", "<label>NOT SURE</label>"]),
    ("self-refine feedback",
     lambda: SELF_REFINE.prompts["feedback"](
         dg.methods.PromptInput(question=Q, peers=[make_turn("r0:a1")])
     ),
     ["<label>YES</label>", "<label>NO</label>"]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("prompt", "render", "asked"), PROMPT_ASKS, ids=[p for p, *_ in PROMPT_ASKS]
)
def test_the_prompt_asks_for_the_format_its_reader_reads(prompt, render, asked):
    text = render()
    for form in asked:
        assert form in text
    example = asked[-1].strip("'")
    if prompt in READERS and "<label>" not in example:
        assert READERS[prompt](example) not in (None, [], "missing")


def test_the_pronoun_i_on_a_ranking_line_is_no_letter():
    reading = parse_ranking("Ranking: I think C, A, B", MEMBERS)
    assert (reading.ranked, reading.unknown) == (["a3", "a1", "a2"], [])
    nine = [f"a{k}" for k in range(1, 10)]
    assert parse_ranking("Ranking: I, C, A", nine).ranked == ["a9", "a3", "a1"]
    assert parse_ranking("Ranking: C, A, I", nine).ranked == ["a3", "a1", "a9"]
