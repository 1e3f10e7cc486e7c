"""Typed method options: one mechanism for every method, from Python, JSON and the command line.

A method declares its options as a frozen dataclass deriving from :class:`MethodOptions`.
Values arrive as an instance (Python), a dict (``DebateContext.method_options``, which is what
LangGraph Studio sends) or ``key=value`` strings (``debategraph run --option key=value``); all
three are checked against the field types, and unknown keys are errors that list the valid
ones.
"""

from __future__ import annotations

import math
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any, Literal, Self, get_args, get_origin

_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0"})
_NONE = frozenset({"none", "null", "off"})


@dataclass(frozen=True, kw_only=True)
class MethodOptions:
    """Base of a method's typed options (a frozen, keyword-only dataclass).

    Subclasses declare fields with types among ``bool``, ``int``, ``float``, ``str``,
    ``Literal[...]``, ``tuple[float, ...]`` / ``tuple[int, ...]``, unions of those with
    ``None``, and unions with an object type (e.g. ``str | Embeddings``; the object is
    accepted as is from Python). Field values are checked on construction; add a
    ``__post_init__`` calling ``super().__post_init__()`` for checks across fields.
    """

    def __post_init__(self) -> None:
        hints = _hints(type(self))
        for f in fields(self):
            value = _check(f.name, hints[f.name], getattr(self, f.name))
            object.__setattr__(self, f.name, value)

    @classmethod
    def coerce(cls, value: MethodOptions | Mapping[str, Any] | None) -> Self:
        """Options from an instance, a dict of field values, or ``None`` (the defaults).

        Raises:
            ValueError: An unknown key or a bad value; the message names it and what to use.
        """
        if value is None:
            return cls()
        if isinstance(value, cls):
            return value
        if isinstance(value, MethodOptions):
            value = value.to_dict()
        if not isinstance(value, Mapping):
            raise ValueError(f"options must be {cls.__name__} or a dict, got {value!r}")
        unknown = sorted(set(value) - set(cls.field_names()))
        if unknown:
            valid = ", ".join(cls.field_names()) or "none"
            raise ValueError(f"unknown option(s) {', '.join(map(repr, unknown))}; valid: {valid}")
        return cls(**value)

    @classmethod
    def from_pairs(cls, pairs: Sequence[str]) -> Self:
        """Options from ``key=value`` strings, as given on the command line.

        Booleans are ``true``/``false`` (also ``yes``/``no``, ``on``/``off``, ``1``/``0``),
        tuples are comma-separated (``0.9,0.7,0.2``), and ``none`` clears an optional value.
        Dashes in keys read as underscores.

        Raises:
            ValueError: A malformed pair, an unknown key or a bad value.
        """
        hints = _hints(cls)
        values: dict[str, Any] = {}
        for pair in pairs:
            key, sep, raw = pair.partition("=")
            key, raw = key.strip().replace("-", "_"), raw.strip()
            if not sep or not key:
                raise ValueError(f"options take KEY=VALUE (e.g. prune=top_k), got {pair!r}")
            values[key] = _parse(key, hints[key], raw) if key in hints else raw
        return cls.coerce(values)

    @classmethod
    def field_names(cls) -> list[str]:
        """The option names, in declaration order."""
        return [f.name for f in fields(cls)]

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe option values; an object value is given by its class name."""
        return {k: _jsonable(v) for k, v in asdict(self).items()}

    def check_environment(self) -> None:
        """Check, without loading anything heavy, that these options can run here.

        Raises:
            ValueError: Something the options need is missing (a key, an optional package).
        """


class NoOptions(MethodOptions):
    """The options of a method that has none."""


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    hints = _HINTS.get(cls)
    if hints is None:
        hints = _HINTS[cls] = typing.get_type_hints(cls)
    return hints


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return type(value).__name__


def _members(hint: Any) -> tuple[Any, ...]:
    if get_origin(hint) in (typing.Union, types.UnionType):
        return get_args(hint)
    return (hint,)


def _check(name: str, hint: Any, value: Any) -> Any:
    """``value`` if it fits ``hint`` (lists become tuples), else a ValueError naming ``name``."""
    problems = []
    for member in _members(hint):
        try:
            return _fit(member, value)
        except (TypeError, ValueError) as exc:
            problems.append(str(exc))
    raise ValueError(f"{name} must be {' or '.join(problems)}; got {value!r}")


_PLAIN: dict[Any, tuple[Callable[[Any], bool], str]] = {
    type(None): (lambda v: v is None, "none"),
    bool: (lambda v: isinstance(v, bool), "true or false"),
    int: (lambda v: isinstance(v, int) and not isinstance(v, bool), "an integer"),
    str: (lambda v: isinstance(v, str), "a string"),
}
"""Plain option types: the test a value must pass as it is, and what to say when it fails."""


def _fit(hint: Any, value: Any) -> Any:
    origin = get_origin(hint)
    if isinstance(hint, type) and hint in _PLAIN:
        fits, wanted = _PLAIN[hint]
        if fits(value):
            return value
        raise ValueError(wanted)
    if hint is float:
        if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
            return float(value)
        raise ValueError("a finite number")
    if origin is Literal:
        if value in get_args(hint):
            return value
        raise ValueError(f"one of {', '.join(map(str, get_args(hint)))}")
    if origin is tuple:
        item = get_args(hint)[0]
        if isinstance(value, str | bytes) or not isinstance(value, Sequence):
            raise ValueError(f"a list of {getattr(item, '__name__', item)}")
        return tuple(_fit(item, v) for v in value)
    if isinstance(hint, type):
        if isinstance(value, hint):
            return value
        raise ValueError(f"a {hint.__name__}")
    return value


def _parse(key: str, hint: Any, raw: str) -> Any:
    """A command-line string as the type of option ``key``."""
    members = _members(hint)
    if type(None) in members and raw.lower() in _NONE:
        return None
    for member in members:
        origin = get_origin(member)
        if origin is Literal and raw in get_args(member):
            return raw
        if member is bool:
            if raw.lower() in _TRUE:
                return True
            if raw.lower() in _FALSE:
                return False
            raise ValueError(f"{key} must be true or false, got {raw!r}")
        if member in (int, float):
            try:
                return member(raw)
            except ValueError:
                raise ValueError(f"{key} must be {'an integer' if member is int else 'a number'}, "
                                 f"got {raw!r}") from None  # fmt: skip
        if origin is tuple:
            item = get_args(member)[0]
            try:
                return tuple(item(p) for p in raw.split(","))
            except ValueError:
                raise ValueError(
                    f"{key} must be comma-separated {item.__name__}s, got {raw!r}"
                ) from None
    return raw
