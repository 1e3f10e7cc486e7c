"""Sweeps: one evaluation of many named arms, described in a TOML file.

``debategraph eval --config sweep.toml`` reads::

    dataset = "gsm8k"            # required; every other top-level key is optional
    limit = 50
    seed = 0                     # the sample's seed only ([settings] seed: the debates')
    seeds = [0, 1, 2]            # optional: run every arm once per debate seed
    concurrency = 32
    out = "results/sweep"        # default: results/<file name without .toml>
    cache = "results/calls.sqlite"
    engine = "ray"               # where the debates run: "local" (default) or "ray"
    address = "auto"             # with engine = "ray": a cluster to join (default: a local one)
    workers = 4                  # with engine = "ray": how many workers

    [settings]                   # shared by every arm (any setting of debategraph.run)
    rounds = 2
    models = "simulated"

    [arms.du]                    # one table per arm; its name labels the arm's rows
    method = "du"

    [arms.cortex-top2]
    method = "cortex"
    options = { prune = "top_k", k = 2 }

    [arms.du-freemad]
    method = "du"
    decision = "freemad"

An arm's keys override the shared settings. A sweep resumes like a single evaluation: run the
same command again after a crash.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from debategraph.errors import ConfigurationError
from debategraph.eval.run.eval_options import EvalOptions
from debategraph.eval.run.runner import Arm
from debategraph.state.settings_table import arm_keys, closest, declarations

RUN_KEYS: dict[str, Any] = {s.name: s.toml for s in declarations(EvalOptions) if s.toml}
"""Top-level keys of a sweep file besides ``settings`` and ``arms``, with their types (read
from :class:`~debategraph.eval.run.eval_options.EvalOptions`)."""


class SweepError(ConfigurationError):
    """A sweep file that cannot be run; the message names the file, the key and the fix."""


@dataclass(frozen=True)
class Sweep:
    """What a sweep file asks for.

    Attributes:
        dataset: The dataset name.
        selection: ``limit``, ``seed``, ``ids`` and ``path`` (how items are picked).
        run: ``concurrency``, ``rps``, ``out``, ``cache``, ``match_budget``, ``texts``,
            ``only_contested``, ``engine``, ``address``, ``workers`` and ``seeds`` when
            given.
        arms: The arms, in file order.
    """

    dataset: str
    selection: dict[str, Any]
    run: dict[str, Any]
    arms: list[Arm] = field(default_factory=list)


def _gated(where: str, method: str, rule: object) -> str:
    """``method`` behind the gate ``rule`` (a sweep's ``gate`` key), by name."""
    from debategraph.methods.gate import gated_name
    from debategraph.methods.registry import PluginError, get_method

    if not isinstance(rule, str):
        raise SweepError(f'{where}.gate must be a rule such as "unanimous", got {rule!r}')
    try:
        name = gated_name(method, rule)
        get_method(name)
    except (ValueError, PluginError) as exc:
        raise SweepError(f"{where}.gate: {exc}") from None
    return name


def _check_seeds(file: Path, data: Mapping[str, Any]) -> None:
    """A sweep's ``seeds``: integers, none repeated, and no debate seed set beside them."""
    from debategraph.eval.run.runner import check_seeds

    try:
        check_seeds(data["seeds"])
    except ValueError as exc:
        raise SweepError(f"{file}: {exc}") from None
    tables = {"[settings]": data.get("settings")} | {
        f"arms.{label}": spec for label, spec in (data.get("arms") or {}).items()
    }
    for where, table in tables.items():
        if isinstance(table, Mapping) and "seed" in table:
            raise SweepError(
                f"{file}: seeds (top level) sets the debates' seeds, so drop seed from "
                f"{where} (the top-level seed picks the sample)"
            )


def _check_type(where: str, value: object, kind: type) -> None:
    ok = isinstance(value, kind) and not (kind is not bool and isinstance(value, bool))
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        ok = True
    if not ok:
        raise SweepError(f"{where} must be {kind.__name__}, got {value!r}")


def _misplaced(key: str, here: str) -> str:
    """``key`` named with where it belongs (or the valid key it was likely meant as)."""
    if here == "top" and key in arm_keys():
        return f"{key} (a debate setting: put it in [settings] or an arm)"
    if here != "top" and key in RUN_KEYS:
        return f"{key} (it belongs at the top level of the file)"
    valid = arm_keys() if here != "top" else [*RUN_KEYS, "settings", "arms"]
    close = closest(str(key), valid)
    return f"{key} (did you mean {close}?)" if close else str(key)


def _arm_settings(where: str, method: str, values: Mapping[str, Any]) -> dict[str, Any]:
    from debategraph.methods.registry import PluginError, get_method

    unknown = sorted(set(values) - arm_keys())
    if unknown:
        raise SweepError(
            f"{where}: unknown setting(s) {', '.join(_misplaced(k, where) for k in unknown)}; "
            f"valid: {', '.join(sorted(arm_keys()))}"
        )
    settings = dict(values)
    if "options" in settings:
        options = settings["options"]
        if not isinstance(options, Mapping):
            raise SweepError(f"{where}.options must be a table, got {options!r}")
        try:
            typed = get_method(method).options.coerce(dict(options)).to_dict()
        except PluginError as exc:
            raise SweepError(f"{where}.method: {exc}") from None
        except ValueError as exc:
            raise SweepError(f"{where}.options: {method} options: {exc}") from None
        settings["options"] = {k: typed[k] for k in options}
    return settings


def load_sweep(path: str | Path) -> Sweep:
    """Read and check a sweep file.

    Args:
        path: A ``.toml`` file in the format of this module's docstring.

    Returns:
        The sweep.

    Raises:
        SweepError: Unreadable TOML, a missing or unknown key, a value of the wrong type,
            an unknown method, a bad option, or rounds for a method that does not debate;
            the message names the file and the key.
    """
    file = Path(path)
    data = _read(file)
    _check_top_level(file, data)
    shared = data.get("settings", {})
    if not isinstance(shared, Mapping):
        raise SweepError(f"{file}: [settings] must be a table")
    arms_data = data.get("arms")
    if not isinstance(arms_data, Mapping) or not arms_data:
        raise SweepError(f'{file}: add at least one arm, e.g. [arms.du] with method = "du"')
    arms = [_arm(f"{file}: arms.{label}", label, spec, shared) for label, spec in arms_data.items()]
    selection = {k: data.get(k) for k in ("limit", "seed", "ids", "path")}
    run: dict[str, Any] = {
        k: data[k] for k in RUN_KEYS if k in data and k not in {"dataset", *selection}
    }
    run.setdefault("out", str(Path("results") / file.stem))
    return Sweep(dataset=data["dataset"], selection=selection, run=run, arms=arms)


def _read(file: Path) -> dict[str, Any]:
    """The TOML of a sweep file, or a SweepError saying why it cannot be read."""
    try:
        return tomllib.loads(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SweepError(f"cannot read {file}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise SweepError(
            f"{file}: not UTF-8 text (byte offset {exc.start}); save it as UTF-8"
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise SweepError(f"{file} is not valid TOML: {exc}") from None


def _check_top_level(file: Path, data: Mapping[str, Any]) -> None:
    """The top-level keys: known (a misplaced one says where it belongs), typed, complete."""
    unknown = sorted(set(data) - set(RUN_KEYS) - {"settings", "arms"})
    if unknown:
        raise SweepError(
            f"{file}: unknown key(s) {', '.join(_misplaced(k, 'top') for k in unknown)}; valid: "
            f"{', '.join([*RUN_KEYS, 'settings', 'arms'])}"
        )
    if "dataset" not in data:
        raise SweepError(f"{file}: 'dataset' is required (e.g. dataset = \"gsm8k\")")
    for key, kind in RUN_KEYS.items():
        if key in data:
            _check_type(f"{file}: {key}", data[key], kind)
    if "seeds" in data:
        _check_seeds(file, data)
    if data.get("match_budget") not in (None, False, True, "calls", "tokens"):
        raise SweepError(
            f'{file}: match_budget must be true, "calls" or "tokens", got {data["match_budget"]!r}'
        )


def _arm(where: str, label: str, spec: object, shared: Mapping[str, Any]) -> Arm:
    """One ``[arms.LABEL]`` table over the shared ``[settings]``, checked."""
    from debategraph.methods.registry import PluginError, get_method
    from debategraph.nodes.start import check_rounds
    from debategraph.state.context import DebateConfigError

    if not isinstance(spec, Mapping):
        raise SweepError(f"{where} must be a table")
    method = spec.get("method")
    if not isinstance(method, str):
        raise SweepError(
            f"{where}.method must be a method name or 'package.module:ATTR', got {method!r}"
        )
    try:
        baseline = get_method(method)
    except PluginError as exc:
        raise SweepError(f"{where}.method: {exc}") from None
    own = {k: v for k, v in spec.items() if k != "method"}
    values = {**shared, **own}
    if isinstance(own.get("rounds"), int) and not isinstance(own["rounds"], bool):
        try:
            check_rounds(baseline, own["rounds"])
        except DebateConfigError as exc:
            raise SweepError(f"{where}.rounds: {exc}") from None
    if not baseline.debates:  # shared settings must not turn a baseline into a debate
        for key in ("rounds", "agents") if baseline.default_agents == 1 else ("rounds",):
            if key not in own:
                values.pop(key, None)
    gate = values.pop("gate", None)
    if gate is not None:
        method = _gated(where, method, gate)
    return Arm(label, method, _arm_settings(where, method, values))
