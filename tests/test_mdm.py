"""CortexDebate MDM math, checked against hand-computed values."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from debategraph.policies.graphs import weighted_digraph
from debategraph.policies.mdm import (
    DEFAULT_MODEL_SIZE,
    ESTIMATED_MODEL_SIZES,
    MODEL_SIZES,
    NEUTRAL_CONFIDENCE,
    TABLE11_THRESHOLDS,
    McKinseyState,
    UnknownModelSizeWarning,
    chinchilla_loss,
    cosine_matrix,
    credibility,
    edge_weights,
    initial_state,
    intimacy,
    lookup_model_size,
    model_credibility,
    partners,
    prune,
    recalibrate_confidence,
    self_orientation,
    update_state,
)

T, F = True, False


def adjacency(n: int, edges: set[tuple[int, int]]) -> np.ndarray:
    """Boolean keep[head, tail] with the given (head, tail) edges."""
    keep = np.zeros((n, n), dtype=bool)
    for head, tail in edges:
        keep[head, tail] = True
    return keep


# --- Eq. 2: recalibration, every Table 11 configuration ---------------------------------------


@pytest.mark.parametrize(
    ("thresholds", "raw", "expected"),
    [
        # (0.8, 0.6, 0.3): the paper's default
        ((0.8, 0.6, 0.3), 0.95, 0.8),
        ((0.8, 0.6, 0.3), 0.8, 0.8),
        ((0.8, 0.6, 0.3), 0.7, 0.6),
        ((0.8, 0.6, 0.3), 0.6, 0.6),
        ((0.8, 0.6, 0.3), 0.45, 0.45),
        ((0.8, 0.6, 0.3), 0.3, 0.3),
        ((0.8, 0.6, 0.3), 0.1, 0.3),
        ((0.9, 0.7, 0.2), 0.95, 0.9),
        ((0.9, 0.7, 0.2), 0.85, 0.7),
        ((0.9, 0.7, 0.2), 0.5, 0.5),
        ((0.9, 0.7, 0.2), 0.2, 0.2),
        ((0.9, 0.7, 0.2), 0.1, 0.2),
        ((0.9, 0.6, 0.3), 0.95, 0.9),
        ((0.9, 0.6, 0.3), 0.75, 0.6),
        ((0.9, 0.6, 0.3), 0.55, 0.55),
        ((0.9, 0.6, 0.3), 0.25, 0.3),
        ((0.8, 0.6, 0.2), 0.85, 0.8),
        ((0.8, 0.6, 0.2), 0.65, 0.6),
        ((0.8, 0.6, 0.2), 0.25, 0.25),
        ((0.8, 0.6, 0.2), 0.15, 0.2),
        ((0.8, 0.5, 0.1), 0.9, 0.8),
        ((0.8, 0.5, 0.1), 0.55, 0.5),
        ((0.8, 0.5, 0.1), 0.45, 0.45),
        ((0.8, 0.5, 0.1), 0.05, 0.1),
        ((0.7, 0.5, 0.2), 0.75, 0.7),
        ((0.7, 0.5, 0.2), 0.6, 0.5),
        ((0.7, 0.5, 0.2), 0.3, 0.3),
        ((0.7, 0.5, 0.2), 0.0, 0.2),
        # w/o recalibration
        (None, 0.95, 0.95),
        (None, 0.1, 0.1),
    ],
)
def test_recalibration_bands(thresholds, raw, expected):
    assert recalibrate_confidence(raw, thresholds) == expected


def test_recalibration_default_is_the_paper_setting():
    assert recalibrate_confidence(0.99) == 0.8
    assert recalibrate_confidence(0.0) == 0.3
    assert recalibrate_confidence(NEUTRAL_CONFIDENCE) == 0.5


def test_table11_lists_all_seven_configurations():
    assert len(TABLE11_THRESHOLDS) == 7
    assert None in TABLE11_THRESHOLDS
    assert (0.8, 0.6, 0.3) in TABLE11_THRESHOLDS
    for config in TABLE11_THRESHOLDS:
        recalibrate_confidence(0.5, config)  # all valid


@pytest.mark.parametrize(
    "bad", [(0.6, 0.8, 0.3), (0.8, 0.8, 0.3), (0.8, 0.6, 0.6), (0.8, 0.6), (0.8, math.nan, 0.3)]
)
def test_recalibration_rejects_bad_thresholds(bad):
    with pytest.raises(ValueError, match="thresholds"):
        recalibrate_confidence(0.5, bad)


def test_recalibration_rejects_nan_confidence():
    with pytest.raises(ValueError, match="NaN"):
        recalibrate_confidence(math.nan)


# --- Eq. 3-4: credibility ---------------------------------------------------------------------
# Reference values computed with 40-digit decimal arithmetic:
# L = 406.4 * exp(-0.34 ln N) + 410.7 * exp(-0.28 ln M) + 1.69, C = 1/L.


def test_chinchilla_loss_and_credibility_of_qwen25_7b():
    assert chinchilla_loss(7.62e9, 18e12) == pytest.approx(1.9472636767240006, abs=1e-9)
    assert credibility(7.62e9, 18e12) == pytest.approx(0.5135411356731927, abs=1e-9)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Qwen/Qwen2.5-7B-Instruct", 0.5135411356731927),
        ("meta-llama/Meta-Llama-3.1-8B-Instruct-Turbo", 0.5135072022561821),
        ("google/gemma-2-9b-it", 0.5111560428852328),
        ("mistralai/Mistral-7B-Instruct-v0.3", 0.5074285715300661),
        ("6b_finetuning", 0.4702475698778416),  # GPT-3 6.7B, 300B tokens
        ("175b_verification", 0.4994286694545818),  # GPT-3 175B, 300B tokens
    ],
)
def test_model_credibility(name, expected):
    assert model_credibility(name) == pytest.approx(expected, abs=1e-9)


def test_chinchilla_rejects_non_positive_sizes():
    with pytest.raises(ValueError):
        chinchilla_loss(0, 1e12)
    with pytest.raises(ValueError):
        credibility(7e9, -1)


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("Qwen/Qwen2.5-7B-Instruct", "qwen2.5-7b"),
        ("qwen2.5-7b-instruct-turbo", "qwen2.5-7b"),
        ("ollama:qwen2.5:7b", "qwen2.5-7b"),
        ("QWEN2.5-7B", "qwen2.5-7b"),
        ("Qwen/Qwen2.5-72B-Instruct", "qwen2.5-72b"),
        ("qwen2.5:0.5b", "qwen2.5-0.5b"),
        ("llama3.1:8b", "llama-3.1-8b"),
        ("llama3.2:1b", "llama-3.2-1b"),
        ("mistral:7b", "mistral-7b"),
        ("typhoon-v1.5-8b-instruct", "typhoon-1.5-8b"),
        ("gemma2:9b", "gemma-2-9b"),
        ("gemma-2-27b-it", "gemma-2-27b"),
        ("phi3:mini", "phi-3-mini"),
        ("deepseek-ai/DeepSeek-V3", "deepseek-v3"),
        ("openai:gpt-4o-mini", "gpt-4o-mini"),
        ("GPT-3-175B", "gpt3-175b"),
        ("6b_verification", "gpt3-6b"),
        ("175b_finetuning", "gpt3-175b"),
    ],
)
def test_lookup_model_size_normalises_names(name, key):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert lookup_model_size(name) == MODEL_SIZES[key]


def test_lookup_unknown_model_warns_and_uses_default():
    with pytest.warns(UnknownModelSizeWarning, match=r"'my-own-model'.*7e\+09.*2e\+12"):
        assert lookup_model_size("my-own-model") == DEFAULT_MODEL_SIZE
    assert DEFAULT_MODEL_SIZE == (7e9, 2e12)


def test_lookup_does_not_confuse_sizes_of_one_family():
    assert lookup_model_size("qwen2.5-72b") != lookup_model_size("qwen2.5-7b")
    with pytest.warns(UnknownModelSizeWarning):
        lookup_model_size("llama-3.2-11b-vision")


def test_estimated_sizes_are_table_entries():
    assert MODEL_SIZES.keys() >= ESTIMATED_MODEL_SIZES
    assert MODEL_SIZES["deepseek-v3"][0] == 37e9  # activated, not total, parameters


# --- Eq. 5-8: running state -------------------------------------------------------------------


def test_cosine_matrix_normalises_and_handles_zero_rows():
    sim = cosine_matrix([[1, 0, 0], [3, 4, 0], [0, 0, 0]])
    expected = np.array([[1.0, 0.6, 0.0], [0.6, 1.0, 0.0], [0.0, 0.0, 0.0]])
    np.testing.assert_allclose(sim, expected, atol=1e-12)
    with pytest.raises(ValueError):
        cosine_matrix([1.0, 2.0])


def test_intimacy_and_self_orientation():
    np.testing.assert_allclose(intimacy([[1.0, 0.25], [0.25, 1.0]]), [[0.0, 0.75], [0.75, 0.0]])
    # (d-1)(n-1) - P with d=3, n=5: 2*4 = 8
    np.testing.assert_array_equal(self_orientation(3, 5, [0, 4, 8]), [8.0, 4.0, 0.0])
    assert self_orientation(1, 5, 0) == 0.0


# Worked example, 3 agents, credibilities C = (0.5, 0.4, 0.5).
C = [0.5, 0.4, 0.5]
# Round 0: raw confidences 0.95, 0.7, 0.2 -> recalibrated 0.8, 0.6, 0.3.
H0 = [0.95, 0.7, 0.2]
# Embeddings: cos(0,1) = 3/5 = 0.6, cos(0,2) = 0, cos(1,2) = 0.
V0: list[list[float]] = [[1, 0, 0], [3, 4, 0], [0, 0, 2]]
# Round 1: raw 0.85, 0.5, 0.65 -> 0.8, 0.5, 0.6; cos(0,1) = 1, cos(0,2) = 0.8, cos(1,2) = 0.8.
H1 = [0.85, 0.5, 0.65]
V1: list[list[float]] = [[1, 0, 0], [2, 0, 0], [0.8, 0.6, 0]]


def recal(raw: list[float]) -> list[float]:
    return [recalibrate_confidence(h) for h in raw]


def state_before_round(d: int) -> McKinseyState:
    state = update_state(initial_state(3), recal(H0), vectors=V0)
    if d == 2:
        state = update_state(state, recal(H1), vectors=V1, adjacency=KEEP_ROUND1)
    return state


# d = 1, add_one: S = 0*2 - 0 + 1 = 1, so W[i, j] = C_i * R_i * I_ij
#   W[0,1] = 0.5*0.8*(1-0.6) = 0.16   W[0,2] = 0.5*0.8*1 = 0.4
#   W[1,0] = 0.4*0.6*0.4     = 0.096  W[1,2] = 0.4*0.6*1 = 0.24
#   W[2,0] = 0.5*0.3*1       = 0.15   W[2,1] = 0.5*0.3*1 = 0.15
W_ROUND1: list[list[float]] = [[0, 0.16, 0.4], [0.096, 0, 0.24], [0.15, 0.15, 0]]
# tail 0: {0.096, 0.15}, mean 0.123 -> head 2;  tail 1: {0.16, 0.15}, mean 0.155 -> head 0
# tail 2: {0.4, 0.24}, mean 0.32 -> head 0
KEEP_ROUND1 = adjacency(3, {(2, 0), (0, 1), (0, 2)})
# After round 1: reads (in-degree) = (1, 1, 1); selections (out-degree) = (2, 0, 1).
# d = 2: R = ((0.8+0.8)/2, (0.6+0.5)/2, (0.3+0.6)/2) = (0.8, 0.55, 0.45)
# Sim01 = (0.6+1)/2 = 0.8, Sim02 = (0+0.8)/2 = 0.4, Sim12 = 0.4 -> I01 = 0.2, I02 = I12 = 0.6
# C*R = (0.4, 0.22, 0.225)


@pytest.mark.parametrize(
    ("round_", "reliability", "similarity", "reads", "selections"),
    [
        pytest.param(
            1, [0.8, 0.6, 0.3], [[1, 0.6, 0], [0.6, 1, 0], [0, 0, 1]], [0, 0, 0], [0, 0, 0],
            id="after-initial-answers",
        ),
        pytest.param(
            2, [0.8, 0.55, 0.45], [[1, 0.8, 0.4], [0.8, 1, 0.4], [0.4, 0.4, 1]], [1, 1, 1],
            [2, 0, 1], id="after-round-1",
        ),
    ],
)  # fmt: skip
def test_state_before_a_round(round_, reliability, similarity, reads, selections):
    state = state_before_round(round_)
    assert state.round == round_
    np.testing.assert_allclose(state.reliability, reliability)
    np.testing.assert_allclose(state.similarity, similarity, atol=1e-12)
    np.testing.assert_array_equal(state.reads, reads)
    np.testing.assert_array_equal(state.selections, selections)


def test_round1_weights_and_graph():
    state = state_before_round(1)
    weights = edge_weights(state, C)
    np.testing.assert_allclose(weights, W_ROUND1, atol=1e-12)
    np.testing.assert_array_equal(prune(weights), KEEP_ROUND1)
    assert partners(KEEP_ROUND1) == [[2], [0], [0]]


def test_round2_add_one_read():
    # S = (2-1)*(3-1) - 1 + 1 = 2 for every head: W = C*R*I / 2
    #   W[0,1] = 0.4*0.2/2 = 0.04     W[0,2] = 0.4*0.6/2 = 0.12
    #   W[1,0] = 0.22*0.2/2 = 0.022   W[1,2] = 0.22*0.6/2 = 0.066
    #   W[2,0] = 0.225*0.6/2 = 0.0675 W[2,1] = 0.0675
    weights = edge_weights(state_before_round(2), C)
    expected = [[0, 0.04, 0.12], [0.022, 0, 0.066], [0.0675, 0.0675, 0]]
    np.testing.assert_allclose(weights, expected, atol=1e-12)
    # tail 0: 0.022 < 0.0675 -> head 2; tail 1: {0.04, 0.0675}, mean 0.05375 -> head 2;
    # tail 2: 0.12 > 0.066 -> head 0
    np.testing.assert_array_equal(prune(weights), adjacency(3, {(2, 0), (2, 1), (0, 2)}))


def test_round2_add_one_selected():
    # P = selections = (2, 0, 1); S + 1 = 2 - P + 1 = (1, 3, 2)
    #   W[0,1] = 0.4*0.2/1 = 0.08      W[0,2] = 0.4*0.6/1 = 0.24
    #   W[1,0] = 0.22*0.2/3 = 0.044/3  W[1,2] = 0.22*0.6/3 = 0.044
    #   W[2,0] = W[2,1] = 0.225*0.6/2 = 0.0675
    weights = edge_weights(state_before_round(2), C, participation="selected")
    expected = [[0, 0.08, 0.24], [0.044 / 3, 0, 0.044], [0.0675, 0.0675, 0]]
    np.testing.assert_allclose(weights, expected, atol=1e-12)
    # tail 1 now prefers head 0 (0.08 > 0.0675), unlike the "read" meaning
    np.testing.assert_array_equal(prune(weights), adjacency(3, {(2, 0), (0, 1), (0, 2)}))


def test_round2_literal_read():
    # S = 2 - 1 = 1: W = C*R*I
    weights = edge_weights(state_before_round(2), C, smoothing="literal")
    expected = [[0, 0.08, 0.24], [0.044, 0, 0.132], [0.135, 0.135, 0]]
    np.testing.assert_allclose(weights, expected, atol=1e-12)


def test_round2_literal_selected_gives_mixed_infinities():
    # S = 2 - (2, 0, 1) = (0, 2, 1): head 0 has S = 0 -> +inf
    #   W[1,0] = 0.22*0.2/2 = 0.022, W[1,2] = 0.22*0.6/2 = 0.066, W[2,*] = 0.225*0.6 = 0.135
    weights = edge_weights(state_before_round(2), C, smoothing="literal", participation="selected")
    expected = [[0, math.inf, math.inf], [0.022, 0, 0.066], [0.135, 0.135, 0]]
    np.testing.assert_allclose(weights, expected, atol=1e-12)
    # tail 0: no inf -> mean rule keeps head 2; tails 1 and 2 keep only the inf head 0
    np.testing.assert_array_equal(prune(weights), adjacency(3, {(2, 0), (0, 1), (0, 2)}))


def test_literal_round1_is_fully_connected():
    # d = 1: S = 0 for all heads and every I > 0 -> every weight is +inf
    weights = edge_weights(state_before_round(1), C, smoothing="literal")
    assert np.isposinf(weights[~np.eye(3, dtype=bool)]).all()
    assert (np.diag(weights) == 0).all()
    np.testing.assert_array_equal(prune(weights), ~np.eye(3, dtype=bool))


def test_literal_round1_nan_counts_as_zero():
    # agents 0 and 1 say the same: I01 = 0 -> 0/0 = NaN -> weight 0; other edges C*R*I/0 = inf
    state = update_state(initial_state(3), [0.8, 0.8, 0.8], vectors=[[1, 0], [1, 0], [0, 1]])
    weights = edge_weights(state, smoothing="literal")
    expected = [[0, 0, math.inf], [0, 0, math.inf], [math.inf, math.inf, 0]]
    np.testing.assert_array_equal(weights, expected)
    assert not np.isnan(weights).any()
    # tails 0 and 1 read only head 2; tail 2 reads both (all inf)
    np.testing.assert_array_equal(prune(weights), adjacency(3, {(2, 0), (2, 1), (0, 2), (1, 2)}))


def test_add_one_round1_equals_literal_without_self_orientation():
    state = state_before_round(1)
    np.testing.assert_allclose(
        edge_weights(state, C),
        edge_weights(state, C, smoothing="literal", use_self_orientation=False),
    )


def test_ablation_without_intimacy_and_self_orientation():
    # Table 2 "MDM w/o I and S": W[i, j] = C_i * R_i = (0.4, 0.22, 0.225) per head
    weights = edge_weights(state_before_round(2), C, use_intimacy=False, use_self_orientation=False)
    expected = [[0, 0.4, 0.4], [0.22, 0, 0.22], [0.225, 0.225, 0]]
    np.testing.assert_allclose(weights, expected, atol=1e-12)
    # tail 0: 0.22 < 0.225 -> head 2; tail 1: 0.4 > 0.225 -> head 0; tail 2: head 0
    np.testing.assert_array_equal(prune(weights), adjacency(3, {(2, 0), (0, 1), (0, 2)}))


def test_ablation_without_credibility():
    # W = R*I/2: W[0,1] = 0.8*0.2/2, W[0,2] = 0.8*0.6/2, W[1,0] = 0.55*0.2/2, ...
    weights = edge_weights(state_before_round(2), C, use_credibility=False)
    expected = [[0, 0.08, 0.24], [0.055, 0, 0.165], [0.135, 0.135, 0]]
    np.testing.assert_allclose(weights, expected, atol=1e-12)


def test_ablation_without_reliability():
    # W = C*I/2: W[0,1] = 0.5*0.2/2, W[0,2] = 0.5*0.6/2, W[1,0] = 0.4*0.2/2, ...
    weights = edge_weights(state_before_round(2), C, use_reliability=False)
    expected = [[0, 0.05, 0.15], [0.04, 0, 0.12], [0.15, 0.15, 0]]
    np.testing.assert_allclose(weights, expected, atol=1e-12)


def test_all_factors_off_is_fully_connected():
    weights = edge_weights(
        state_before_round(2),
        C,
        use_credibility=False,
        use_reliability=False,
        use_intimacy=False,
        use_self_orientation=False,
    )
    np.testing.assert_array_equal(weights, 1 - np.eye(3))
    np.testing.assert_array_equal(prune(weights), ~np.eye(3, dtype=bool))


def test_identical_credibility_cancels():
    state = state_before_round(2)
    same = edge_weights(state, [0.5, 0.5, 0.5])
    np.testing.assert_allclose(same, 0.5 * edge_weights(state))
    np.testing.assert_array_equal(prune(same), prune(edge_weights(state)))


def test_update_with_similarity_matrix_matches_vectors():
    by_vectors = update_state(initial_state(3), recal(H0), vectors=V0)
    by_matrix = update_state(initial_state(3), recal(H0), similarity=cosine_matrix(V0))
    np.testing.assert_array_equal(by_vectors.similarity, by_matrix.similarity)


def test_update_ignores_diagonal_of_adjacency():
    state = update_state(initial_state(2), [0.5, 0.5], similarity=np.eye(2))
    state = update_state(state, [0.5, 0.5], similarity=np.eye(2), adjacency=np.ones((2, 2)))
    np.testing.assert_array_equal(state.reads, [1, 1])
    np.testing.assert_array_equal(state.selections, [1, 1])


def test_state_is_immutable():
    state = state_before_round(1)
    with pytest.raises(ValueError):
        state.reliability[0] = 1.0
    with pytest.raises(AttributeError):
        state.round = 5  # type: ignore[misc]


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"vectors": V0, "similarity": np.eye(3)},
        {"similarity": np.eye(2)},
        {"vectors": V0, "adjacency": np.ones((2, 2))},
    ],
)
def test_update_rejects_bad_input(kwargs):
    with pytest.raises(ValueError):
        update_state(initial_state(3), [0.5, 0.5, 0.5], **kwargs)


def test_edge_weights_rejects_bad_input():
    with pytest.raises(ValueError, match="initial answers"):
        edge_weights(initial_state(3))
    with pytest.raises(ValueError):
        edge_weights(state_before_round(1), [0.5, 0.5])
    with pytest.raises(ValueError):
        edge_weights(state_before_round(1), smoothing="plus_one")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        edge_weights(state_before_round(1), participation="both")  # type: ignore[arg-type]


# --- Eq. 10-11 and Table 9: pruning rules ------------------------------------------------------

INF = math.inf
# Columns are tails; per tail the in-weights of the other four heads (diagonal unused).
W5 = np.array(
    [
        # tail: 0     1     2     3     4
        [9.0, 1.0, 0.5, 0.3, 0.2],  # head 0
        [0.4, 9.0, 0.5, INF, 0.2],  # head 1
        [0.1, 0.1, 9.0, 0.2, 0.9],  # head 2
        [0.2, 0.2, 0.5, 9.0, math.nan],  # head 3
        [0.3, 0.3, 0.5, INF, 9.0],  # head 4
    ]
)
# tail 0: heads 1..4 = 0.4, 0.1, 0.2, 0.3 (mean 0.25, median 0.25)
# tail 1: heads 0,2,3,4 = 1.0, 0.1, 0.2, 0.3 (mean 0.4, median 0.25)
# tail 2: all 0.5 (ties)
# tail 3: heads 0,1,2,4 = 0.3, inf, 0.2, inf
# tail 4: heads 0..3 = 0.2, 0.2, 0.9, NaN->0 (mean 0.325, median 0.2)


@pytest.mark.parametrize(
    ("rule", "k", "edges"),
    [
        (
            "mean",
            3,
            {(1, 0), (4, 0), (0, 1), (0, 2), (1, 2), (3, 2), (4, 2), (1, 3), (4, 3), (2, 4)},
        ),
        (
            "median",
            3,
            {(1, 0), (4, 0), (0, 1), (4, 1), (0, 2), (1, 2), (3, 2), (4, 2), (1, 3), (4, 3)}
            | {(0, 4), (1, 4), (2, 4)},
        ),
        (
            "top_k",
            3,
            {(1, 0), (4, 0), (3, 0), (0, 1), (4, 1), (3, 1), (0, 2), (1, 2), (3, 2)}
            | {(1, 3), (4, 3), (0, 3), (2, 4), (0, 4), (1, 4)},
        ),
        ("bottom_k_excluded", 3, {(1, 0), (0, 1), (0, 2), (1, 3), (2, 4)}),
        ("top_k", 1, {(1, 0), (0, 1), (0, 2), (1, 3), (2, 4)}),
        (
            "bottom_k_excluded",
            1,
            {(1, 0), (4, 0), (3, 0), (0, 1), (4, 1), (3, 1), (0, 2), (1, 2), (3, 2)}
            | {(1, 3), (4, 3), (0, 3), (2, 4), (0, 4), (1, 4)},
        ),
        ("all", 3, {(i, j) for i in range(5) for j in range(5) if i != j}),
    ],
)
def test_prune_rules(rule, k, edges):
    np.testing.assert_array_equal(prune(W5, rule, k), adjacency(5, edges))


def test_prune_mean_tolerates_rounding_of_equal_weights():
    # mean(0.1, 0.1, 0.1) is 0.10000000000000002 in floating point; all must stay
    weights = np.full((4, 4), 0.1)
    np.testing.assert_array_equal(prune(weights), ~np.eye(4, dtype=bool))


@pytest.mark.parametrize("rule", ["mean", "median", "top_k", "bottom_k_excluded", "all"])
def test_two_agents_always_keep_the_single_edge(rule):
    weights = np.array([[5.0, 0.1], [0.0, 5.0]])
    np.testing.assert_array_equal(prune(weights, rule), [[F, T], [T, F]])


def test_prune_single_agent_and_errors():
    np.testing.assert_array_equal(prune([[1.0]]), [[False]])
    with pytest.raises(ValueError):
        prune(np.ones((3, 3)), "random")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        prune(np.ones((3, 3)), "top_k", k=0)
    with pytest.raises(ValueError):
        prune(np.ones((2, 3)))


# --- networkx view ----------------------------------------------------------------------------


def test_weighted_digraph():
    graph = weighted_digraph(W_ROUND1, ["a", "b", "c"], KEEP_ROUND1)
    assert list(graph.nodes) == ["a", "b", "c"]
    assert graph.number_of_edges() == 6
    assert graph["a"]["c"] == {"weight": 0.4, "kept": True}
    assert graph["b"]["a"] == {"weight": 0.096, "kept": False}
    kept = {(u, v) for u, v, data in graph.edges(data=True) if data["kept"]}
    assert kept == {("c", "a"), ("a", "b"), ("a", "c")}
    assert all(d["kept"] for _, _, d in weighted_digraph(W_ROUND1, "abc").edges(data=True))
    with pytest.raises(ValueError):
        weighted_digraph(W_ROUND1, ["a", "b"])
