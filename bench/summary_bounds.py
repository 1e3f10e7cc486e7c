"""The GroupDebate paper's closed-form token bounds (App. B), beside the benchmarks.

The library measures tokens against the paper's exact formulas
(:mod:`debategraph.policies.summary_cost`); these bounds are what the paper derives from
them, kept here for the tests that check the measured totals reach them (equal groups at
maximal lengths) and for benchmark write-ups. ``M`` agents, ``T`` total rounds (the initial
answer counts), ``N`` groups of ``K`` agents, ``R`` rounds per stage, ``S = ceil(T / R)``
stages, ``Q`` question tokens.
"""

from __future__ import annotations

from debategraph.policies.grouping import stage_count


def mad_summary_bound(
    agents: int, total_rounds: int, question: int, output_max: int, summary_max: int
) -> float:
    """The paper's bound on summarised MAD (App. B.1, Eq. 4, second line).

    ``M·T·Q + (3/2·M²T − 3/2·M² + M)·Output_max + (M²T + 1/2·MT² − M² − 3/2·MT + M)·Summary_max``.
    It bounds :func:`mad_summary_tokens` when ``M ≥ T`` (all of the paper's settings): the
    exact coefficient of ``Output_max`` is ``M²T − M² + M + (MT² − MT)/2``, which the
    printed one exceeds by ``M(T−1)(M−T)/2``.
    """
    m, t = agents, total_rounds
    out = 1.5 * m * m * t - 1.5 * m * m + m
    summ = m * m * t + 0.5 * m * t * t - m * m - 1.5 * m * t + m
    return m * t * question + out * output_max + summ * summary_max


def mad_summary_order_bound(
    agents: int, total_rounds: int, question: int, output_max: int, summary_max: int
) -> int:
    """The paper's looser bound on summarised MAD: ``MTQ + 2M²T·Output_max + (M²T + MT²)·S``.

    This is the bound behind ``O(MTQ + (M²T + MT²)C)``; like :func:`mad_summary_bound` it
    holds for ``M ≥ T``.
    """
    m, t = agents, total_rounds
    return m * t * question + 2 * m * m * t * output_max + (m * m * t + m * t * t) * summary_max


def groupdebate_bound(
    agents: int,
    total_rounds: int,
    groups: int,
    stage_rounds: int,
    question: int,
    output_max: int,
    summary_max: int,
    group_size: float | None = None,
) -> float:
    """The paper's bound on GroupDebate (App. B.2, after Eq. 5).

    ``MTQ + [3MS − 2M + (T−S)(K+1)M]·Output_max + (S−1)(M+1)N·Summary_max``, with ``K`` the
    agents per group. With ``N`` equal groups and ``K = M/N`` (the default) it is exact when
    every output and summary has its maximal length. With uneven groups pass the largest
    group as ``group_size`` for a true upper bound (the intra-group term is ``Σ_j |G_j|²``).
    """
    m, t, n = agents, total_rounds, groups
    s = stage_count(t, stage_rounds)
    k = m / n if group_size is None else group_size
    out = 3 * m * s - 2 * m + (t - s) * (k + 1) * m
    return m * t * question + out * output_max + (s - 1) * (m + 1) * n * summary_max


def groupdebate_order_bound(
    agents: int,
    total_rounds: int,
    groups: int,
    stage_rounds: int,
    question: int,
    output_max: int,
    summary_max: int,
) -> float:
    """The paper's looser bound on GroupDebate: ``MTQ + (2M²T/N)·Output_max + 2MSN·Summary_max``.

    This is the bound behind ``O(MTQ + (M²T/N + MSN)C)``. It needs ``K ≥ 1`` and holds
    when ``3S − 2 + (T−S)(K+1) ≤ 2KT``, which the paper's settings (``R = 2``) satisfy; with
    ``R = 1`` and many stages it can fail.
    """
    m, t, n = agents, total_rounds, groups
    s = stage_count(t, stage_rounds)
    return m * t * question + 2 * m * m * t / n * output_max + 2 * m * s * n * summary_max
