"""The scalar half of CortexDebate's McKinsey-trust module (MDM): no numpy needed.

Confidence recalibration (Eq. 2), credibility from the Chinchilla scaling law (Eq. 3-4) with
its model-size table, and the option literals. :mod:`debategraph.policies.mdm` re-exports
everything here; the ``cortex`` method object and its options import this module only, so
that listing or configuring methods does not load numpy.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Mapping
from typing import Literal

Thresholds = tuple[float, float, float]
"""Recalibration thresholds ``(t0, t1, t2)`` with ``t0 > t1 > t2`` (paper Eq. 2)."""

PAPER_THRESHOLDS: Thresholds = (0.8, 0.6, 0.3)
"""The paper's default (and best) recalibration thresholds."""

TABLE11_THRESHOLDS: tuple[Thresholds | None, ...] = (
    None,
    (0.9, 0.7, 0.2),
    (0.9, 0.6, 0.3),
    (0.8, 0.6, 0.2),
    (0.8, 0.5, 0.1),
    (0.7, 0.5, 0.2),
    (0.8, 0.6, 0.3),
)
"""Every configuration of the paper's Table 11; ``None`` is "w/o recalibration"."""

NEUTRAL_CONFIDENCE = 0.5
"""Confidence to use when an agent's confidence cannot be parsed (middle, unchanged band)."""

Smoothing = Literal["add_one", "literal"]
Participation = Literal["read", "selected"]
PruneRule = Literal["mean", "median", "top_k", "bottom_k_excluded", "all"]


# --- Eq. 2: confidence recalibration -------------------------------------------------------


def validate_thresholds(thresholds: Thresholds) -> Thresholds:
    """Check that ``thresholds`` is three finite numbers in strictly decreasing order.

    Args:
        thresholds: ``(t0, t1, t2)``.

    Returns:
        The thresholds as a tuple of floats.

    Raises:
        ValueError: If there are not three finite values with ``t0 > t1 > t2``.
    """
    values = tuple(float(t) for t in thresholds)
    if len(values) != 3 or not all(math.isfinite(t) for t in values):
        raise ValueError(f"thresholds must be three finite numbers, got {thresholds!r}")
    t0, t1, t2 = values
    if not t0 > t1 > t2:
        raise ValueError(f"thresholds must satisfy t0 > t1 > t2, got {thresholds!r}")
    return t0, t1, t2


def recalibrate_confidence(h: float, thresholds: Thresholds | None = PAPER_THRESHOLDS) -> float:
    """Recalibrate a self-reported confidence into the paper's bands (Eq. 2).

    With ``(t0, t1, t2)``: ``h >= t0`` gives ``t0``; ``t1 <= h < t0`` gives ``t1``;
    ``t2 <= h < t1`` keeps ``h``; ``h < t2`` gives ``t2``.

    Args:
        h: The agent's confidence (normally in ``[0, 1]``).
        thresholds: One of the Table 11 configurations; ``None`` switches recalibration off
            (the "w/o recalibration" row) and returns ``h`` unchanged.

    Returns:
        The recalibrated confidence.

    Raises:
        ValueError: If ``h`` is NaN or the thresholds are not strictly decreasing.
    """
    if math.isnan(h):
        raise ValueError("confidence is NaN; use NEUTRAL_CONFIDENCE for an unparseable one")
    if thresholds is None:
        return float(h)
    t0, t1, t2 = validate_thresholds(thresholds)
    if h >= t0:
        return t0
    if h >= t1:
        return t1
    if h >= t2:
        return float(h)
    return t2


# --- Eq. 3-4: credibility from the Chinchilla scaling law -----------------------------------


def chinchilla_loss(n_params: float, n_tokens: float) -> float:
    """Chinchilla pre-training loss ``L(N, M) = 406.4/N^0.34 + 410.7/M^0.28 + 1.69`` (Eq. 3).

    Args:
        n_params: Parameter count ``N`` (activated parameters for a mixture of experts).
        n_tokens: Pre-training tokens ``M``.

    Returns:
        The predicted loss.

    Raises:
        ValueError: If either count is not positive.
    """
    if not (n_params > 0 and n_tokens > 0):
        raise ValueError(f"n_params and n_tokens must be positive, got {n_params}, {n_tokens}")
    return float(406.4 / n_params**0.34 + 410.7 / n_tokens**0.28 + 1.69)


def credibility(n_params: float, n_tokens: float) -> float:
    """Credibility ``C = 1 / L(N, M)`` (Eq. 4); about 0.45 to 0.55 for 0.5B-70B models."""
    return 1.0 / chinchilla_loss(n_params, n_tokens)


MODEL_SIZES: dict[str, tuple[float, float]] = {
    # (N parameters, M pre-training tokens), from the model reports.
    "qwen2.5-0.5b": (0.49e9, 18e12),
    "qwen2.5-1.5b": (1.54e9, 18e12),
    "qwen2.5-3b": (3.09e9, 18e12),
    "qwen2.5-7b": (7.62e9, 18e12),
    "qwen2.5-14b": (14.7e9, 18e12),
    "qwen2.5-32b": (32.5e9, 18e12),
    "qwen2.5-72b": (72.7e9, 18e12),
    "qwen2-7b": (7.07e9, 7e12),
    "qwen3-8b": (8.2e9, 36e12),
    "mistral-7b": (7.24e9, 8e12),  # M undisclosed: estimate
    "llama-2-7b": (6.74e9, 2e12),
    "llama-3-8b": (8.03e9, 15e12),
    "llama-3.1-8b": (8.03e9, 15.6e12),
    "llama-3.2-1b": (1.24e9, 9e12),
    "llama-3.2-3b": (3.21e9, 9e12),
    "typhoon-1.5-8b": (8.03e9, 15e12),  # Llama-3-8B base; Thai continued pre-training ignored
    "gemma-2-2b": (2.61e9, 2e12),
    "gemma-2-9b": (9.24e9, 8e12),
    "gemma-2-27b": (27.2e9, 13e12),
    "phi-3-mini": (3.82e9, 3.3e12),
    "deepseek-v3": (37e9, 14.8e12),  # mixture of experts: activated parameters
    "gpt3-6b": (6.7e9, 300e9),  # GPT-3 "6B" is the 6.7B model of the GPT-3 family
    "gpt3-175b": (175e9, 300e9),
    "gpt-4o-mini": (8e9, 15e12),  # undisclosed: third-party size estimate, assumed tokens
}
"""``(N, M)`` per canonical model name; see ``ESTIMATED_MODEL_SIZES`` for the guessed ones."""

ESTIMATED_MODEL_SIZES: frozenset[str] = frozenset({"mistral-7b", "gpt-4o-mini"})
"""Entries of ``MODEL_SIZES`` whose figures are estimates, not published values."""

MODEL_ALIASES: dict[str, str] = {
    "6b_finetuning": "gpt3-6b",
    "6b_verification": "gpt3-6b",
    "175b_finetuning": "gpt3-175b",
    "175b_verification": "gpt3-175b",
    "deepseek-chat": "deepseek-v3",
}
"""Names that do not contain their model's name (e.g. the GSM8K replay agents)."""

DEFAULT_MODEL_SIZE: tuple[float, float] = (7e9, 2e12)
"""``(N, M)`` used for unknown models: a generic 7B model on 2T tokens (C ~= 0.495)."""

_PROVIDERS = frozenset(
    [
        "openai",
        "ollama",
        "together",
        "togetherai",
        "together_ai",
        "groq",
        "fireworks",
        "anthropic",
        "google",
        "google_genai",
        "huggingface",
        "hf",
        "vllm",
        "azure",
        "azure_openai",
        "openrouter",
        "deepseek",
        "bedrock",
        "mistralai",
        "replay",
        "simulated",
        "sim",
        "fake",
    ]
)


class UnknownModelSizeWarning(UserWarning):
    """A model name was not found in ``MODEL_SIZES``; the default size was used."""


def _name_tokens(name: str) -> list[str]:
    """Tokens of a model name, e.g. ``"ollama:qwen2.5:7b"`` -> ``["qwen", "2.5", "7b"]``."""
    text = name.strip().lower()
    provider, sep, rest = text.partition(":")
    if sep and provider in _PROVIDERS:
        text = rest
    text = text.rsplit("/", 1)[-1]
    text = re.sub(r"[^a-z0-9.]+", "-", text)
    text = re.sub(r"(?<=[a-z])(?=\d)", "-", text)  # "llama3.1" -> "llama-3.1"
    tokens = [t.strip(".") for t in text.split("-")]
    tokens = [t for t in tokens if t]
    # Drop a version marker "v" before a number: "v0.3" and "0.3" match alike.
    return [
        t
        for k, t in enumerate(tokens)
        if not (t == "v" and k + 1 < len(tokens) and tokens[k + 1][0].isdigit())
    ]


def _match(key: list[str], name: list[str]) -> tuple[int, bool] | None:
    """Score of ``key`` as an in-order subsequence of ``name``: (length, contiguous)."""
    positions: list[int] = []
    start = 0
    for token in key:
        try:
            start = name.index(token, start) + 1
        except ValueError:
            return None
        positions.append(start)
    contiguous = positions[-1] - positions[0] == len(positions) - 1
    return len(key), contiguous


def _find_size(
    model_name: str, sizes: Mapping[str, tuple[float, float]]
) -> tuple[float, float] | None:
    tokens = _name_tokens(model_name)
    for alias, target in MODEL_ALIASES.items():
        if tokens == _name_tokens(alias) and target in sizes:
            return sizes[target]
    best: tuple[tuple[int, bool], str] | None = None
    for key in sizes:
        score = _match(_name_tokens(key), tokens)
        if score is not None and (best is None or score > best[0]):
            best = (score, key)
    return sizes[best[1]] if best is not None else None


def lookup_model_size(
    model_name: str,
    table: Mapping[str, tuple[float, float]] | None = None,
    *,
    warn: bool = True,
) -> tuple[float, float]:
    """``(N, M)`` of a model, matched leniently by name.

    Matching is case-insensitive and ignores a provider prefix (``ollama:``, ``openai:``,
    ...), an organisation (``Qwen/``), separators and suffixes, so ``"Qwen/Qwen2.5-7B-Instruct"``,
    ``"qwen2.5-7b-instruct-turbo"`` and ``"ollama:qwen2.5:7b"`` all resolve to ``qwen2.5-7b``.
    A table name matches when its tokens appear in order in the model name's tokens; the
    longest match wins, a contiguous one first. Aliases (``MODEL_ALIASES``) are tried first.

    Args:
        model_name: Any spelling of the model's name.
        table: Sizes to search; defaults to ``MODEL_SIZES``.
        warn: Warn when the default size is used (the engine records it instead).

    Returns:
        ``(n_params, n_tokens)``; ``DEFAULT_MODEL_SIZE`` for an unknown name.

    Warns:
        UnknownModelSizeWarning: When the name matches nothing and the default is used.
    """
    found = _find_size(model_name, MODEL_SIZES if table is None else table)
    if found is not None:
        return found
    n_params, n_tokens = DEFAULT_MODEL_SIZE
    if not warn:
        return DEFAULT_MODEL_SIZE
    warnings.warn(
        f"unknown model size for {model_name!r}: using the default of {n_params:.3g} "
        f"parameters and {n_tokens:.3g} pre-training tokens (credibility "
        f"{credibility(n_params, n_tokens):.4f}); add it to debategraph.policies.mdm.MODEL_SIZES",
        UnknownModelSizeWarning,
        stacklevel=2,
    )
    return DEFAULT_MODEL_SIZE


def model_credibility(model_name: str) -> float:
    """Credibility ``C`` of a model looked up by name (see ``lookup_model_size``)."""
    return credibility(*lookup_model_size(model_name))


def label_credibility(label: str) -> float:
    """Credibility ``C`` of an agent from the model label of its turns (no warning).

    A simulated agent replaying a GSM8K source (``"simulated:175b_finetuning"``) gets the size
    of that source's model; a plain ``"simulated"`` agent gets the default size, so simulated
    agents are equally credible. An unknown model gets the default size silently: the
    engine records which labels did (:func:`size_is_known`).
    """
    if label in ("simulated", "sim"):
        return credibility(*DEFAULT_MODEL_SIZE)
    return credibility(*lookup_model_size(label, warn=False))


def size_is_known(label: str) -> bool:
    """Whether a model label matches ``MODEL_SIZES`` (plain simulated agents count as known)."""
    return label in ("simulated", "sim") or _find_size(label, MODEL_SIZES) is not None
