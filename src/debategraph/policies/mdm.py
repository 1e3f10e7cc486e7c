"""CortexDebate's McKinsey-trust module (MDM): pure edge-weight and pruning math.

CortexDebate (Sun et al., arXiv 2507.03928) builds, in each debate round ``d``, a directed
graph over the ``n`` agents. Edge ``i -> j`` means tail ``j`` reads head ``i``'s previous
output. Its weight follows the McKinsey trust formula (paper Eq. 9)::

    W[i, j] = C_i * R_i * I_ij / S_i

with credibility ``C`` (Eq. 3-4), reliability ``R`` (Eq. 5), intimacy ``I = 1 - Sim``
(Eq. 6-7) and self-orientation ``S`` (Eq. 8). Each tail then keeps the in-edges whose
weight reaches the mean of its in-weights (Eq. 10-11).

All matrices are indexed ``[head, tail]``. Nothing here imports LangGraph or LangChain.
Typical use by an engine::

    state = initial_state(n)
    state = update_state(state, recalibrated_h0, vectors=embeddings_of_o0)
    for d in range(1, rounds + 1):  # state.round == d here
        keep = prune(edge_weights(state, credibilities))
        ...  # agent j regenerates from the outputs of heads i with keep[i, j]
        state = update_state(state, recalibrated_hd, vectors=embeddings_of_od, adjacency=keep)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

# The scalar half (recalibration, credibility, option literals) lives in mdm_scalar, which
# needs no numpy; it is re-exported here.
from debategraph.policies.mdm_scalar import (
    DEFAULT_MODEL_SIZE,
    ESTIMATED_MODEL_SIZES,
    MODEL_ALIASES,
    MODEL_SIZES,
    NEUTRAL_CONFIDENCE,
    PAPER_THRESHOLDS,
    TABLE11_THRESHOLDS,
    Participation,
    PruneRule,
    Smoothing,
    Thresholds,
    UnknownModelSizeWarning,
    chinchilla_loss,
    credibility,
    label_credibility,
    lookup_model_size,
    model_credibility,
    recalibrate_confidence,
    validate_thresholds,
)

__all__ = [
    "DEFAULT_MODEL_SIZE",
    "ESTIMATED_MODEL_SIZES",
    "MODEL_ALIASES",
    "MODEL_SIZES",
    "NEUTRAL_CONFIDENCE",
    "PAPER_THRESHOLDS",
    "TABLE11_THRESHOLDS",
    "BoolArray",
    "FloatArray",
    "McKinseyState",
    "Participation",
    "PruneRule",
    "Smoothing",
    "Thresholds",
    "UnknownModelSizeWarning",
    "chinchilla_loss",
    "cosine_matrix",
    "credibility",
    "edge_weights",
    "initial_state",
    "intimacy",
    "label_credibility",
    "lookup_model_size",
    "model_credibility",
    "partners",
    "prune",
    "recalibrate_confidence",
    "self_orientation",
    "update_state",
    "validate_thresholds",
]

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]


# --- Eq. 5-8: running state ------------------------------------------------------------------


def cosine_matrix(vectors: ArrayLike) -> FloatArray:
    """Pairwise cosine similarity of the rows of ``vectors``.

    Rows are L2-normalised first; a zero row has similarity 0 with every row (itself
    included). Values are clipped to ``[-1, 1]``.

    Args:
        vectors: Array of shape ``(n, dim)``.

    Returns:
        Symmetric ``(n, n)`` array.
    """
    matrix = np.asarray(vectors, dtype=np.float64)
    if matrix.ndim != 2:
        raise ValueError(f"vectors must be 2-D (n, dim), got shape {matrix.shape}")
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
    clipped: NDArray[np.float64] = np.clip(unit @ unit.T, -1.0, 1.0)
    return clipped


def _frozen(array: np.ndarray) -> np.ndarray:
    array = np.array(array, copy=True)
    array.flags.writeable = False
    return array


@dataclass(frozen=True, eq=False)
class McKinseyState:
    """Running means of MDM after ``round`` observed outputs per agent.

    When ``round == d``, the state holds what debate round ``d`` needs: the outputs of
    rounds ``0 .. d-1`` (round 0 is the initial answer) have been folded in. Arrays are
    read-only; ``update_state`` returns a new state.

    Attributes:
        round: ``d``, the number of output rounds observed (0: nothing yet).
        reliability: ``R_d`` per agent (Eq. 5): mean recalibrated confidence ``H^0..H^{d-1}``.
        similarity: ``Sim_d`` (Eq. 6): symmetric ``(n, n)`` mean pairwise cosine similarity.
        reads: Per agent, how many heads it read (in-degree) over debate rounds ``1..d-1``.
        selections: Per agent, how many tails read it (out-degree) over the same rounds.
    """

    round: int
    reliability: FloatArray
    similarity: FloatArray
    reads: NDArray[np.int64]
    selections: NDArray[np.int64]

    @property
    def n(self) -> int:
        """Number of agents."""
        return len(self.reliability)

    def participation(self, kind: Participation = "read") -> NDArray[np.int64]:
        """``P_d`` per agent: ``reads`` for ``"read"``, ``selections`` for ``"selected"``."""
        if kind == "read":
            return self.reads
        if kind == "selected":
            return self.selections
        raise ValueError(f"participation must be 'read' or 'selected', got {kind!r}")


def initial_state(n: int) -> McKinseyState:
    """The empty state (``round == 0``) for ``n`` agents: ``R_0 = 0``, ``Sim_0 = 0``, ``P = 0``."""
    if n < 1:
        raise ValueError(f"need at least one agent, got n={n}")
    return McKinseyState(
        round=0,
        reliability=_frozen(np.zeros(n)),
        similarity=_frozen(np.zeros((n, n))),
        reads=_frozen(np.zeros(n, dtype=np.int64)),
        selections=_frozen(np.zeros(n, dtype=np.int64)),
    )


def update_state(
    state: McKinseyState,
    confidences: ArrayLike,
    *,
    vectors: ArrayLike | None = None,
    similarity: ArrayLike | None = None,
    adjacency: ArrayLike | None = None,
) -> McKinseyState:
    """Fold one round of outputs into the running means (Eq. 5, Eq. 6 and the counts ``P``).

    Call it once with the initial answers (``adjacency=None``) and then after every debate
    round with the graph that round used. With ``d' = state.round + 1``::

        R_{d'} = (R_d * d + H) / d'        Sim_{d'} = (Sim_d * d + cos) / d'

    Args:
        state: The state before this round's outputs.
        confidences: Per agent, the recalibrated confidence of this round's output
            (``recalibrate_confidence``; use ``NEUTRAL_CONFIDENCE`` when unparseable).
        vectors: Per agent, an embedding of this round's output, shape ``(n, dim)``;
            compared with ``cosine_matrix``. Give exactly one of ``vectors`` and ``similarity``.
        similarity: A precomputed ``(n, n)`` similarity matrix instead of ``vectors``.
        adjacency: Boolean ``keep[i, j]`` (head ``i`` read by tail ``j``) of the debate round
            that produced these outputs; ``None`` for the initial answers (nobody read anyone).
            The diagonal is ignored.

    Returns:
        The new state, with ``round`` one higher.
    """
    n = state.n
    h = np.asarray(confidences, dtype=np.float64)
    if h.shape != (n,):
        raise ValueError(f"expected {n} confidences, got shape {h.shape}")
    if (vectors is None) == (similarity is None):
        raise ValueError("give exactly one of vectors= and similarity=")
    if vectors is not None:
        cos = cosine_matrix(vectors)
    else:
        cos = np.asarray(similarity, dtype=np.float64)
    if cos.shape != (n, n):
        raise ValueError(f"similarity must be ({n}, {n}), got shape {cos.shape}")
    if adjacency is None:
        keep = np.zeros((n, n), dtype=bool)
    else:
        keep = np.asarray(adjacency, dtype=bool)
        if keep.shape != (n, n):
            raise ValueError(f"adjacency must be ({n}, {n}), got shape {keep.shape}")
        keep = keep & ~np.eye(n, dtype=bool)
    d = state.round
    return McKinseyState(
        round=d + 1,
        reliability=_frozen((state.reliability * d + h) / (d + 1)),
        similarity=_frozen((state.similarity * d + cos) / (d + 1)),
        reads=_frozen(state.reads + keep.sum(axis=0)),
        selections=_frozen(state.selections + keep.sum(axis=1)),
    )


def intimacy(similarity: ArrayLike) -> FloatArray:
    """Intimacy ``I = 1 - Sim`` (Eq. 7): larger when two agents' outputs differ more."""
    return 1.0 - np.asarray(similarity, dtype=np.float64)


def self_orientation(d: int, n: int, participation: ArrayLike) -> FloatArray:
    """Self-orientation ``S_d = (d - 1)(n - 1) - P_d`` (Eq. 8), per agent.

    Args:
        d: The debate round (1-based).
        n: Number of agents.
        participation: ``P_d`` per agent (an int or an array).

    Returns:
        ``S_d``, the unused share of the maximum participation ``(d - 1)(n - 1)``.
    """
    return (d - 1) * (n - 1) - np.asarray(participation, dtype=np.float64)


# --- Eq. 9: edge weights ----------------------------------------------------------------------


def edge_weights(
    state: McKinseyState,
    credibilities: ArrayLike | None = None,
    *,
    smoothing: Smoothing = "add_one",
    participation: Participation = "read",
    use_credibility: bool = True,
    use_reliability: bool = True,
    use_intimacy: bool = True,
    use_self_orientation: bool = True,
) -> FloatArray:
    """Edge weights ``W[i, j] = C_i * R_i * I_ij / S_i`` of debate round ``state.round`` (Eq. 9).

    Head ``i`` is the sender whose answer is read, tail ``j`` the receiver. The diagonal is 0.

    Args:
        state: The state after ``d >= 1`` observed rounds (``state.round == d``).
        credibilities: ``C_i`` per agent (``model_credibility``); ``None`` means all equal,
            which prunes exactly like identical models do (``C`` is then a common factor).
        smoothing: ``"add_one"`` (default) divides by ``S + 1``, so round 1 weighs ``C R I``.
            ``"literal"`` divides by ``S`` as printed: ``S = 0`` gives ``+inf`` and ``0/0``
            gives 0, so round 1 is fully connected (and stays so while every agent reads
            everyone).
        participation: Meaning of ``P``: ``"read"`` (default) counts the heads the agent read
            as a tail; ``"selected"`` counts the tails that read it as a head.
        use_credibility: Include ``C``; off replaces it by 1.
        use_reliability: Include ``R``; off replaces it by 1.
        use_intimacy: Include ``I``; off replaces it by 1.
        use_self_orientation: Include ``S``; off replaces it (smoothed or not) by 1.

    Returns:
        ``(n, n)`` weights, ``W[head, tail]``, never NaN.
    """
    if state.round < 1:
        raise ValueError("observe the initial answers with update_state before weighting edges")
    if smoothing not in ("add_one", "literal"):
        raise ValueError(f"smoothing must be 'add_one' or 'literal', got {smoothing!r}")
    n = state.n
    ones = np.ones(n)
    c = np.ones(n) if credibilities is None else np.asarray(credibilities, dtype=np.float64)
    if c.shape != (n,):
        raise ValueError(f"expected {n} credibilities, got shape {c.shape}")
    c = c if use_credibility else ones
    r = state.reliability if use_reliability else ones
    i_mat = intimacy(state.similarity) if use_intimacy else np.ones((n, n))
    s = self_orientation(state.round, n, state.participation(participation))
    if smoothing == "add_one":
        s = s + 1.0
    s = s if use_self_orientation else ones
    numerator = (c * r)[:, None] * i_mat
    with np.errstate(divide="ignore", invalid="ignore"):
        weights = numerator / s[:, None]
    weights = np.where(np.isnan(weights), 0.0, weights)
    np.fill_diagonal(weights, 0.0)
    return weights


# --- Eq. 10-12: sparse graph ------------------------------------------------------------------


def _keep_at_least(w: FloatArray, threshold: float) -> BoolArray:
    """``w >= threshold``, tolerant of rounding (a column of equal weights keeps all)."""
    if math.isinf(threshold):
        return w >= threshold
    return (w >= threshold) | np.isclose(w, threshold, rtol=1e-9, atol=1e-15)


def _ranked(w: FloatArray) -> NDArray[np.intp]:
    """Candidate positions by decreasing weight; ties by lower agent index."""
    return np.argsort(-w, kind="stable")


def prune(weights: ArrayLike, rule: PruneRule = "mean", k: int = 3) -> BoolArray:
    """Which edges each tail keeps: ``keep[i, j]`` is True when tail ``j`` reads head ``i``.

    Rules (paper Eq. 10-11 and the alternatives of Table 9 / App. D.1), applied per tail
    ``j`` to its in-weights ``W[i, j]``, ``i != j``:

    * ``"mean"`` (AAT, the paper's rule): keep ``W[i, j] >= mean``. With ``+inf`` weights
      only those are kept (all of them when every weight is ``+inf``).
    * ``"median"`` (AMT): keep ``W[i, j] >= median``.
    * ``"top_k"`` (Top-3 for ``k=3``): keep the ``k`` largest (all when fewer).
    * ``"bottom_k_excluded"`` (Bot-3 for ``k=3``): drop the ``k`` smallest and keep the rest,
      but never fewer than one (with the paper's 5 agents Bot-3 keeps one head, Top-3 three).
    * ``"all"``: keep every edge (the fully-connected graph of Table 2).

    Every rule keeps at least one in-edge per tail, so with 2 agents the single edge is always
    kept. Ties in ``top_k``/``bottom_k_excluded`` go to the lower head index; mean and median
    comparisons tolerate rounding (equal weights keep all). NaN weights count as 0. Self-edges
    are never kept.

    Args:
        weights: ``(n, n)`` matrix ``W[head, tail]``; the diagonal is ignored.
        rule: The pruning rule.
        k: ``k`` of ``top_k`` and ``bottom_k_excluded`` (at least 1).

    Returns:
        Boolean ``(n, n)`` adjacency ``keep[head, tail]`` with a False diagonal.
    """
    w_all = np.asarray(weights, dtype=np.float64)
    w_all = np.where(np.isnan(w_all), 0.0, w_all)
    n = w_all.shape[0]
    if w_all.shape != (n, n):
        raise ValueError(f"weights must be square, got shape {w_all.shape}")
    if rule in ("top_k", "bottom_k_excluded") and k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    keep = np.zeros((n, n), dtype=bool)
    for j in range(n):
        heads = np.array([i for i in range(n) if i != j], dtype=np.intp)
        if heads.size == 0:
            continue
        w = w_all[heads, j]
        if rule == "mean":
            inf = np.isposinf(w)
            chosen = inf if inf.any() else _keep_at_least(w, float(np.mean(w)))
        elif rule == "median":
            chosen = _keep_at_least(w, float(np.median(w)))
        elif rule in ("top_k", "bottom_k_excluded"):
            count = k if rule == "top_k" else max(w.size - k, 1)
            chosen = np.zeros(w.size, dtype=bool)
            chosen[_ranked(w)[:count]] = True
        elif rule == "all":
            chosen = np.ones(w.size, dtype=bool)
        else:
            raise ValueError(f"unknown prune rule {rule!r}")
        keep[heads[chosen], j] = True
    return keep


def partners(keep: ArrayLike) -> list[list[int]]:
    """Per tail ``j``, the heads it reads (``Deb_j``, Eq. 12), in agent order."""
    adjacency = np.asarray(keep, dtype=bool)
    n = adjacency.shape[0]
    return [[i for i in range(n) if i != j and adjacency[i, j]] for j in range(n)]
