"""Evaluated configurations ("arms"): a method with its settings, and budget-matched voting.

An arm's rows carry its label as their ``method``. :func:`arms_for` makes one arm per method
with shared settings; :func:`budget_arms` adds self-consistency sized to another arm's budget
on each item: as many samples as it made model calls (``sc@du``), or as its tokens buy
(``sc@du~tokens``); with several models, majority voting over them too (``mav@du``).
How many answers such an arm draws on an item is :func:`debategraph.eval.run.budget.budget_samples`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, get_args

from langchain_core.language_models import BaseChatModel

from debategraph.api import DebateConfigError, prepare, retry_settings
from debategraph.eval.run.budget import Budget
from debategraph.methods.contract import Method
from debategraph.models.resolve import model_label
from debategraph.policies.secrets import redact_url
from debategraph.state.settings_table import voting_keys


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
        budget_of: Label of the arm whose budget on an item sets this arm's ``agents`` on
            that item (budget-matched voting); ``None`` otherwise.
        budget: What is matched: ``calls`` (one sample per model call of ``budget_of``) or
            ``tokens`` (as many samples as its tokens buy; see
            :func:`debategraph.eval.run.budget.budget_samples`).
        screens: This arm runs first on every item and the others run only on the items
            whose round-0 answers it finds contested (see :func:`screen_arm`).
    """

    label: str
    method: str | Method[Any]
    settings: dict[str, Any] = field(default_factory=dict)
    budget_of: str | None = None
    budget: Budget = "calls"
    screens: bool = False

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
            **({"budget": self.budget} if self.budget_of is not None else {}),
            **({"screens": True} if self.screens else {}),
        }


def arms_for(
    methods: Sequence[str],
    settings: Mapping[str, Any],
    *,
    match_budget: bool | Budget = False,
    options: Mapping[str, str] | None = None,
    only_contested: bool = False,
) -> list[Arm]:
    """One arm per method with shared settings, plus ``sc@M`` arms when matching budgets.

    Args:
        methods: Method names or ``"package.module:ATTR"`` strings, in order; each at most
            once. An arm is labelled with its method's name.
        settings: :func:`debategraph.arun` settings shared by every arm (``None`` values are
            left out, so methods keep their defaults). ``rounds`` goes only to methods that
            debate: ``cot``, ``sc`` and ``mav`` keep their single round; ``agents`` does not
            reach a single-agent baseline (``cot``).
        match_budget: ``"calls"`` (or ``True``) or ``"tokens"``: add, after the methods,
            budget-matched voting for each method ``M`` other than ``sc`` (see
            :func:`budget_arms`).
        options: Method options as ``key -> value`` strings (``--option``), read with each
            method's option types; every method must know every key.
        only_contested: Put :func:`screen_arm` first, so that the methods run only on the
            items whose round-0 answers disagree (``--only-contested``).

    Returns:
        The arms.

    Raises:
        ValueError: A repeated method, an option a method does not know,
            ``match_budget`` with nothing to match, or ``only_contested`` without a method
            that debates.
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
        method = get_method(m)
        if not method.debates:  # shared rounds would turn a baseline into a debate
            arm_settings.pop("rounds", None)
            if method.default_agents == 1:  # and shared agents, cot into a vote
                arm_settings.pop("agents", None)
        if options:
            arm_settings["options"] = _typed_options(m, options)
        arms.append(Arm(label, m, arm_settings))
    if match_budget:
        arms += budget_arms(arms, "calls" if match_budget is True else match_budget)
    return [screen_arm(arms), *arms] if only_contested else arms


SCREEN_LABEL = "vote@r0"
"""The label of :func:`screen_arm`'s rows."""


def screen_arm(arms: Sequence[Arm]) -> Arm:
    """The arm that screens items for ``--only-contested``: the agents' round 0, alone.

    It is the first debating arm's agents answering the question once each, with its
    models, personas, seed, tie policy and sampling (``du`` with no debate round), and it runs
    first on every item. An item whose round-0 answers all agree (none abstaining) is *settled*: the
    other arms skip it, as SVR-MAD's evaluation leaves out the questions on which all agents
    agree before debate. Its rows, labelled ``vote@r0``, are the majority vote of that round
    (the voting baseline on the same items) and record ``screen: {"settled": ...}``.

    Raises:
        ValueError: No arm debates, or the first that does has a single agent.
    """
    debating = [arm for arm in arms if arm.budget_of is None and _method_of(arm).debates]
    if not debating:
        raise ValueError(
            "--only-contested (only_contested in a sweep file) needs a method that debates: "
            "its agents' round-0 answers screen the items"
        )
    first = debating[0]
    settings = _voting_like(first)
    if first.settings.get("personas"):  # the same agents: their role prompts come along
        settings["personas"] = dict(first.settings["personas"])
    settings["agents"] = first.settings.get("agents") or _method_of(first).default_agents
    if settings["agents"] < 2:
        raise ValueError(
            f"--only-contested screens items with {first.label}'s agents, and it has one: "
            "give it 2 or more (--agents, or agents in a sweep file)"
        )
    return Arm(SCREEN_LABEL, "du", {**settings, "rounds": 0}, screens=True)


def budget_arms(arms: Sequence[Arm], by: Budget = "calls") -> list[Arm]:
    """Budget-matched voting for every arm ``L`` that is not self-consistency already.

    ``sc@L`` samples ``L``'s (first) model as many times as ``L``'s budget allows on each item:
    one sample per model call ``L`` made (``by="calls"``), or as many samples as ``L``'s total
    tokens buy (``by="tokens"``, labelled ``sc@L~tokens``). When
    ``L``'s agents run on several models, ``mav@L`` votes over the same number of answers from
    those models in turn. Each uses ``L``'s models, seed, tie policy and sampling, and no
    personas: its samples are draws of the model, not ``L``'s agents, so an agent's role
    prompt has no sample to go to (the vote is the plain model's).

    Raises:
        ValueError: Every arm is self-consistency, or ``by`` is neither calls nor tokens.
    """
    if by not in get_args(Budget):
        raise ValueError(f"--match-budget takes calls or tokens, got {by!r}")
    suffix = "" if by == "calls" else "~tokens"
    matched = []
    for arm in arms:
        if (arm.method if isinstance(arm.method, str) else arm.method.name) == "sc":
            continue
        base = _voting_like(arm)
        base["rounds"] = 0
        models = base.get("models")
        several = isinstance(models, list) and len(set(map(str, models))) > 1
        sc = {**base, "models": models[0]} if several and isinstance(models, list) else base
        matched.append(Arm(f"sc@{arm.label}{suffix}", "sc", sc, budget_of=arm.label, budget=by))
        if several:
            matched.append(
                Arm(f"mav@{arm.label}{suffix}", "mav", base, budget_of=arm.label, budget=by)
            )
    if not matched:
        raise ValueError("--match-budget needs a method other than sc to match")
    return matched


def noise_arms(
    arms: Sequence[Arm], items: Sequence[Any], seed: int = 0, key: str = "rationale"
) -> list[Arm]:
    """A noise-control arm ``L+noise`` for every debating arm ``L``.

    The same method and settings, but each peer turn an agent reads shows a rationale of
    another item of ``items`` (``metadata[key]``: gsm8k's worked ``rationale``, or its
    GPT-3 ``model_solutions``, each solution of a list a rationale), drawn with ``seed``
    (see :func:`debategraph.methods.noise.noise_method`). Its plan is ``L``'s, so it makes
    ``L``'s calls on each item: matched in calls by construction.

    Raises:
        ValueError: Fewer than two items with a rationale, or no debating arm.
    """
    from debategraph.methods.noise import noise_method

    pool = []
    for item in items:
        found = item.metadata.get(key)
        texts = found if isinstance(found, list) else [found]
        pool += [(item.question, str(t)) for t in texts if t is not None and str(t).strip()]
    if len({question for question, _ in pool}) < 2:
        raise ValueError(
            f"the noise-control arm needs rationales (metadata {key!r}, as gsm8k has) of at "
            "least two items; this selection has "
            f"{len({question for question, _ in pool})}"
        )
    noisy = [
        Arm(f"{arm.label}+noise", noise_method(method, pool, seed=seed), dict(arm.settings))
        for arm in arms
        if (method := _method_of(arm)).debates and not arm.screens and arm.budget_of is None
    ]
    if not noisy:
        raise ValueError("the noise-control arm needs a debating method to control")
    return noisy


def _voting_like(arm: Arm) -> dict[str, Any]:
    """``arm``'s models, seed, limits and sampling (its preset's spelt out) for a voting arm.

    What it takes are the settings declared ``voting`` (see :mod:`debategraph.state.setting`).
    """
    return _preset_sampling(arm) | {k: v for k, v in arm.settings.items() if k in voting_keys()}


def _method_of(arm: Arm) -> Method[Any]:
    from debategraph.methods.registry import get_method

    return arm.method if not isinstance(arm.method, str) else get_method(arm.method)


def _preset_sampling(arm: Arm) -> dict[str, Any]:
    """The sampling ``arm``'s preset gives its first model, so that ``sc@arm`` samples alike."""
    name = arm.settings.get("settings")
    if name is None:
        return {}
    from debategraph.models.resolve import model_key

    models = arm.settings.get("models") or "simulated"
    first = models[0] if isinstance(models, list) else models
    return _method_of(arm).preset(name).for_model(model_key(first)).kwargs()


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
        DebateConfigError: Unknown method, bad settings, repeated labels, a
            ``budget_of`` that names no earlier arm, or a screening arm that is not the
            first.
    """
    labels: list[str] = []
    for index, arm in enumerate(arms):
        if arm.screens and index:
            raise DebateConfigError(f"{arm.label} screens the items, so it must be the first arm")
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
