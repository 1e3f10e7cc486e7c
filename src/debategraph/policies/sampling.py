"""Sampling presets: the settings a paper ran its models with, one name away.

A method carries its papers' sampling as named presets (``paper``). A preset has settings for
every model and may override them for models whose name contains a given text (MAD-M² samples
Qwen2.5-Math-7B at temperature 0.2 and every other model at 1.0). Settings given explicitly
win over the preset's, key by key.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

PAPER = "paper"
"""The preset of the sampling the method's paper reports."""


@dataclass(frozen=True)
class Sampling:
    """Sampling settings of a model call; ``None`` leaves the provider's default.

    Attributes:
        temperature: Sampling temperature.
        top_p: Nucleus-sampling mass.
        top_k: Sample among the ``top_k`` most likely tokens.
    """

    temperature: float | None = None
    top_p: float | None = None
    top_k: int | None = None

    def kwargs(self) -> dict[str, Any]:
        """The settings that are set, as model-call keyword arguments."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        return {k: v for k, v in values.items() if v is not None}

    def over(self, base: Sampling) -> Sampling:
        """These settings, with ``base``'s where these leave one unset."""
        return Sampling(**{**base.kwargs(), **self.kwargs()})

    def describe(self) -> str:
        """``temperature 1.0, top-p 0.95, top-k 40``, or ``provider defaults``."""
        names = {"temperature": "temperature", "top_p": "top-p", "top_k": "top-k"}
        shown = [f"{names[k]} {v}" for k, v in self.kwargs().items()]
        return ", ".join(shown) or "provider defaults"


@dataclass(frozen=True)
class SamplingPreset:
    """A paper's sampling: settings for every model, and overrides for some.

    Attributes:
        source: Where the settings come from (paper and section).
        sampling: The settings of every model.
        per_model: ``(name fragment, settings)`` pairs; the first whose fragment is in the
            model's name (case-insensitively) overrides ``sampling`` key by key.
        note: What else the paper sets that the preset does not carry (output length, ...).
    """

    source: str
    sampling: Sampling = Sampling()
    per_model: tuple[tuple[str, Sampling], ...] = ()
    note: str = ""

    def for_model(self, model: str) -> Sampling:
        """The settings of a call on ``model`` (a spec or a label)."""
        name = model.lower()
        for fragment, override in self.per_model:
            if fragment.lower() in name:
                return override.over(self.sampling)
        return self.sampling

    def describe(self) -> str:
        """One line for a card or a listing."""
        text = self.sampling.describe()
        for fragment, override in self.per_model:
            text += f"; {override.over(self.sampling).describe()} for models named *{fragment}*"
        return f"{text} ({self.source})"


def unstated(source: str) -> SamplingPreset:
    """The preset of a paper that states no sampling: the providers' defaults."""
    return SamplingPreset(source=source, note="the paper states no sampling settings")
