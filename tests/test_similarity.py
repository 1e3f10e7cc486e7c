"""Grouping free-text answers by meaning (faiss range search) before a vote."""

import math

import pytest

import debategraph as dg
from debategraph.policies.similarity import meaning_groups

from .helpers import Scripted


def test_linked_answers_join_one_group_with_the_first_as_representative():
    answers = ["paris", "city of paris", "lyon", "rome"]
    c = 1 / math.sqrt(2)
    vectors = [[1, 0, 0], [c, c, 0], [0, 1, 0], [0, 0, 1]]
    # paris~city of paris ~0.71, city of paris~lyon ~0.71: one chain of three at 0.7.
    assert meaning_groups(answers, vectors, 0.7) == {
        "paris": "paris", "city of paris": "paris", "lyon": "paris", "rome": "rome",
    }  # fmt: skip
    assert meaning_groups(answers, vectors, 0.75) == {a: a for a in answers}
    # The threshold itself links (cosine exactly at it), and a zero vector links nothing.
    assert meaning_groups(["a", "b"], [[1, 0], [1, 0]], 1.0) == {"a": "a", "b": "a"}
    assert meaning_groups(["a", "b"], [[0, 0], [1, 0]], 0.1) == {"a": "a", "b": "b"}
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        meaning_groups(answers, vectors, 0)
    with pytest.raises(ValueError, match="4 answers but 3 vectors"):
        meaning_groups(answers, vectors[:3], 0.5)


def test_a_text_vote_counts_answers_that_mean_the_same_once():
    replies = ["Answer: Paris", "Answer: Paris, France", "Answer: Lyon", "Answer: Lyon"]
    models = [Scripted(replies=[r]) for r in replies]
    plain = dg.run("Capital of France?", method="mav", agents=4, models=models, task="text")
    assert plain.decision["evidence"]["tie"] is False and plain.answer == "lyon"
    grouped = dg.run(
        "Capital of France?", method="mav", agents=4, models=models, task="text",
        decision_options={"group_by_meaning": 0.5},
    )  # fmt: skip
    assert grouped.decision["evidence"]["merged"] == {"paris, france": "paris"}
    assert grouped.decision["evidence"]["votes"] == {"paris": 2, "lyon": 2}
    with pytest.raises(dg.DebateConfigError, match="group_by_meaning"):
        dg.run("Capital?", method="mav", agents=4, models=models, task="text",
               decision_options={"group_by_meaning": 2})  # fmt: skip
