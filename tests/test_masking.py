"""MAD-M²'s masking rules and token formulas, on hand-computed fixtures."""

import math

import pytest
from langchain_core.messages import AIMessage

from debategraph.nodes.call import logprob_stats
from debategraph.policies.masking import (
    above_median_mask,
    kept,
    lowest_perplexity_mask,
    median_threshold,
    perplexity,
    subjective_mask,
    top1_score,
)

from .bench_modules import bench_module


def reply(sampled, top1=None):
    """A model reply whose tokens have these sampled (and top-1) logprobs."""
    content = []
    for i, lp in enumerate(sampled):
        tops = [] if top1 is None else [{"token": "t", "logprob": top1[i], "bytes": [116]}]
        content.append({"token": "t", "logprob": lp, "bytes": [116], "top_logprobs": tops})
    return AIMessage(content="x", response_metadata={"logprobs": {"content": content}})


def test_subjective_loose_keeps_unsure_and_strict_masks_it():
    verdicts = ["keep", "mask", "unsure"]
    assert subjective_mask(verdicts) == [True, False, True]
    assert subjective_mask(verdicts, strict=True) == [True, False, False]
    assert subjective_mask(["mask", "mask"]) == [False, False]  # an empty mask
    assert subjective_mask([]) == []
    with pytest.raises(ValueError, match="keep, mask or unsure"):
        subjective_mask(["maybe"])


def test_perplexity_from_a_reply_by_hand():
    # Sampled logprobs -0.1, -0.2, -0.3: mean -0.2, perplexity e^0.2.
    stats = logprob_stats(reply([-0.1, -0.2, -0.3]))
    assert stats == {"mean": pytest.approx(-0.2), "min": -0.3, "n": 3.0}
    assert perplexity(stats["mean"]) == pytest.approx(1.2214027581601699)
    assert perplexity(0.0) == 1.0
    assert perplexity(-math.inf) == math.inf


@pytest.mark.parametrize(
    ("perplexities", "kept"),
    [
        ([1.5, 1.2, 1.8], [False, True, False]),
        ([1.2, 1.2, 1.8], [True, False, False]),
        ([1.8, 1.2, 1.2], [False, True, False]),
        ([3.0], [True]),
        ([math.inf, 2.0], [False, True]),
        ([math.inf, math.nan], [False, False]),
        ([], []),
    ],
)
def test_lowest_perplexity_keeps_exactly_one_and_the_first_on_a_tie(perplexities, kept):
    assert lowest_perplexity_mask(perplexities) == kept


@pytest.mark.parametrize(
    ("scores", "kept"),
    [
        # Scores sorted high to low; the threshold is the one at index n // 2.
        ([0.9, 0.8, 0.7], [True, False, False]),
        ([0.7, 0.9, 0.8], [False, True, False]),
        # A tie at the top keeps nothing; a tie at the bottom does not matter.
        ([0.9, 0.9, 0.7], [False, False, False]),
        ([0.9, 0.7, 0.7], [True, False, False]),
        ([0.5, 0.5, 0.5], [False, False, False]),
        # Four memories: sorted [0.9, 0.8, 0.7, 0.6], threshold 0.7, the top two kept.
        ([0.6, 0.9, 0.7, 0.8], [False, True, False, True]),
        ([0.5, 0.6], [False, True]),
        ([0.5], [False]),  # a single memory is never kept
        ([], []),
    ],
)
def test_code_compat_keeps_scores_strictly_above_the_median_position(scores, kept):
    assert above_median_mask(scores) == kept


def test_the_median_threshold_is_the_score_at_position_n_over_2():
    assert median_threshold([0.9, 0.8, 0.7]) == 0.8
    assert median_threshold([0.6, 0.9, 0.7, 0.8]) == 0.7
    assert median_threshold([]) is None


def test_paper_and_code_can_keep_different_memories():
    # A: sampled mean -0.2, top-1 mean -0.15. B: sampled -0.3, top-1 -0.05. C: -0.5, -0.3.
    replies = [
        reply([-0.1, -0.3], top1=[-0.1, -0.2]),
        reply([-0.3, -0.3], top1=[-0.05, -0.05]),
        reply([-0.5, -0.5], top1=[-0.3, -0.3]),
    ]
    stats = [logprob_stats(r) for r in replies]
    assert [s["top1_mean"] for s in stats] == pytest.approx([-0.15, -0.05, -0.3])
    ppl = [perplexity(s["mean"]) for s in stats]
    assert ppl == pytest.approx([math.exp(0.2), math.exp(0.3), math.exp(0.5)])
    scores = [top1_score(s["top1_mean"]) for s in stats]
    assert scores == pytest.approx([math.exp(-0.15), math.exp(-0.05), math.exp(-0.3)])
    assert lowest_perplexity_mask(ppl) == [True, False, False]  # the paper keeps A
    assert above_median_mask(scores) == [False, True, False]  # the official code keeps B


def test_kept_items():
    assert kept(["r0:a1", "r0:a2", "r0:a3"], [True, False, True]) == ["r0:a1", "r0:a3"]
    assert kept(["r0:a1"], [False]) == []
    with pytest.raises(ValueError, match="3 memories but a mask of 2"):
        kept(["a", "b", "c"], [True, False])


_TOKENS = bench_module("madm2_tokens")
mad_tokens, madm2_tokens = _TOKENS.mad_tokens, _TOKENS.madm2_tokens

# T^q = 10; outputs 5, 6, 7 in the initial round and 8, 9, 10 in the next (N_a 3, N_round 2).
OUTPUTS = [[5, 6, 7], [8, 9, 10]]


def test_token_formulas_by_hand():
    # MAD: 3*2*10 + 3*(5+6+7) + (18 + 27) = 60 + 54 + 45.
    assert mad_tokens(10, OUTPUTS) == 159
    # MAD-M² bound: 60 + 2*3*18 + 45.
    assert madm2_tokens(10, OUTPUTS) == 213
    # Shared evaluation (1 per memory), only a2's memory (6 tokens) kept: 60 + 18 + 3*6 + 45.
    assert madm2_tokens(10, OUTPUTS, [[False, True, False]], evaluators=1) == 141
    # Objective masking: no evaluation calls.
    assert madm2_tokens(10, OUTPUTS, [[False, True, False]], evaluators=0) == 123
    # Nothing kept: the debate round reads only the query.
    assert madm2_tokens(10, OUTPUTS, [[False] * 3], evaluators=0) == 105
    # One round only: both are N_a T^q + outputs.
    assert mad_tokens(10, [[5, 6, 7]]) == madm2_tokens(10, [[5, 6, 7]]) == 48


def test_token_formulas_check_shapes():
    with pytest.raises(ValueError, match="initial round"):
        mad_tokens(10, [])
    with pytest.raises(ValueError, match="one output count per agent"):
        mad_tokens(10, [[1, 2], [3]])
    with pytest.raises(ValueError, match="one row per debate round"):
        madm2_tokens(10, OUTPUTS, [[True, True]])
