"""Evaluated configurations ("arms"): a method with its settings, and budget-matched voting.

An arm's rows carry its label as their ``method``. :func:`arms_for` makes one arm per method
with shared settings; :func:`budget_arms` adds self-consistency sized to another arm's model
calls on each item (``sc@du``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel

from debategraph.api import DebateConfigError, prepare, retry_settings
from debategraph.methods.contract import Method
from debategraph.models.resolve import model_label
from debategraph.policies.secrets import redact_url


@dataclass(frozen=True)
class Arm:
    """One evaluated configuration: its rows carry ``label`` as their ``method``.

    Attributes:
        label: Row label, unique in a run (``du``, ``sc@du``, ``mav-freemad``).
        method: A registered method name, a ``"package.module:ATTR"`` string or a
            ``Method``.
        settings: Keyword settings of :func:`debategraph.arun` (``agents``, ``rounds``,
            ``models``, ``base_url``, ``seed``, ``tie_policy``, ``decision``, ``options``...).
            The old key ``model`` is read as ``models``, with a warning.
        budget_of: Label of the arm whose model calls on an item set this arm's ``agents``
            on that item (budget-matched self-consistency); ``None`` otherwise.
    """

    label: str
    method: str | Method[Any]
    settings: dict[str, Any] = field(default_factory=dict)
    budget_of: str | None = None

    def __post_init__(self) -> None:
        if "model" in self.settings:
            from debategraph.api import models_argument

            settings = dict(self.settings)
            model = settings.pop("model")
            settings["models"] = models_argument(settings.get("models"), model)
            object.__setattr__(self, "settings", settings)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready description for ``run.json`` (model objects become their labels)."""
        settings = {k: jsonable(v, k) for k, v in sorted(self.settings.items())}
        return {
            "label": self.label,
            "method": self.method if isinstance(self.method, str) else self.method.name,
            "settings": settings,
            "budget_of": self.budget_of,
        }


def arms_for(
    methods: Sequence[str],
    settings: Mapping[str, Any],
    *,
    match_budget: bool = False,
    options: Mapping[str, str] | None = None,
) -> list[Arm]:
    """One arm per method with shared settings, plus ``sc@M`` arms when matching budgets.

    Args:
        methods: Method names or ``"package.module:ATTR"`` strings, in order; each at most
            once. An arm is labelled with its method's name.
        settings: :func:`debategraph.arun` settings shared by every arm (``None`` values are
            left out, so methods keep their defaults).
        match_budget: Add, after each method ``M`` other than ``sc``, an arm ``sc@M``: self-
            consistency with as many samples as ``M`` made model calls on the same item.
        options: Method options as ``key -> value`` strings (``--option``), read with each
            method's option types; every method must know every key.

    Returns:
        The arms.

    Raises:
        ValueError: A repeated method, an option a method does not know, or
            ``match_budget`` with nothing to match.
    """
    from debategraph.methods.registry import get_method

    labels = [get_method(m).name if ":" in m else m for m in methods]
    repeated = sorted({m for m in labels if labels.count(m) > 1})
    if repeated:
        raise ValueError(f"method(s) given more than once: {', '.join(repeated)}")
    shared = {k: v for k, v in settings.items() if v is not None}
    arms = []
    for label, m in zip(labels, methods, strict=True):
        arm_settings = dict(shared)
        if options:
            arm_settings["options"] = _typed_options(m, options)
        arms.append(Arm(label, m, arm_settings))
    if match_budget:
        arms += budget_arms(arms)
    return arms


def budget_arms(arms: Sequence[Arm]) -> list[Arm]:
    """An ``sc@L`` arm for every arm ``L`` that is not self-consistency already.

    ``sc@L`` samples the same model as many times as ``L`` made model calls on each item, with
    ``L``'s model, seed and generation settings.

    Raises:
        ValueError: Every arm is self-consistency: nothing to match.
    """
    keep = {"models", "base_url", "seed", "tie_policy", "temperature", "top_p", "top_k"}
    keep |= {"max_tokens", "stop", "timeout", "max_attempts", "retry_backoff"}
    matched = [
        Arm(
            f"sc@{arm.label}",
            "sc",
            _preset_sampling(arm)
            | {k: v for k, v in arm.settings.items() if k in keep}
            | {"rounds": 0},
            budget_of=arm.label,
        )
        for arm in arms
        if (arm.method if isinstance(arm.method, str) else arm.method.name) != "sc"
    ]
    if not matched:
        raise ValueError("--match-budget needs a method other than sc to match")
    return matched


def _preset_sampling(arm: Arm) -> dict[str, Any]:
    """The sampling ``arm``'s preset gives its first model, so that ``sc@arm`` samples alike."""
    name = arm.settings.get("settings")
    if name is None:
        return {}
    from debategraph.methods.registry import get_method
    from debategraph.models.resolve import model_key

    models = arm.settings.get("models") or "simulated"
    first = models[0] if isinstance(models, list) else models
    method = arm.method if not isinstance(arm.method, str) else get_method(arm.method)
    return method.preset(name).for_model(model_key(first)).kwargs()


def _typed_options(method: str, options: Mapping[str, str]) -> dict[str, Any]:
    """``--option`` strings as the method's typed values (JSON-safe), or a ValueError."""
    from debategraph.methods.registry import get_method

    cls = get_method(method).options
    try:
        parsed = cls.from_pairs([f"{k}={v}" for k, v in options.items()]).to_dict()
    except ValueError as exc:
        raise ValueError(f"--option: {method} options: {exc}") from None
    return {k: parsed[k] for k in options}


def jsonable(value: Any, key: str = "") -> Any:
    """``value`` as ``run.json`` records it: model objects by label, URLs redacted."""
    if isinstance(value, BaseChatModel):
        return model_label(value)
    if key == "base_url" and isinstance(value, str):
        return redact_url(value)
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v, str(k)) for k, v in value.items()}
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return repr(value)


def check_arms(arms: Sequence[Arm]) -> None:
    """Validate every arm's method and settings before any model call.

    Raises:
        DebateConfigError: Unknown method, bad settings, repeated labels, or a
            ``budget_of`` that names no earlier arm.
    """
    labels: list[str] = []
    for arm in arms:
        if arm.label in labels:
            raise DebateConfigError(f"two arms are labelled {arm.label!r}")
        if arm.budget_of is not None and arm.budget_of not in labels:
            raise DebateConfigError(f"{arm.label}: budget_of {arm.budget_of!r} is no earlier arm")
        labels.append(arm.label)
        settings = dict(arm.settings)
        if arm.budget_of is not None:
            settings["agents"] = 1
        retry_settings(settings.pop("max_attempts", None), settings.pop("retry_backoff", None))
        prepare(method=arm.method, **settings)
