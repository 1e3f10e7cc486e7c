"""Symbolic equivalence of math answers, with Hugging Face's ``math-verify``.

``math-verify`` (latex2sympy2 and sympy underneath) is an optional extra:
``pip install 'debategraph[math]'`` (``dev`` pulls it in). It is imported on the first math
grade, never on the extraction path, and grading without it raises
:class:`MathExtraMissingError`, which names the extra.

Both sides are canonical keys from :func:`debategraph.policies.mathform.canonical_math`;
each is parsed as LaTeX (and as a plain expression), then compared by ``math_verify.verify``
(numeric rounding to 6 decimals, sets, intervals, equations and matrices included).
Results are cached per pair. ``math-verify`` guards parsing and comparison with a
``SIGALRM`` timeout, which only works in the main thread; elsewhere the guard is off.
"""

from __future__ import annotations

import threading
from functools import cache, lru_cache
from types import ModuleType

INSTALL_HINT = "pip install 'debategraph[math]'"
"""How to install the math grading extra."""

TIMEOUT_S = 5
"""Seconds ``math-verify`` may spend parsing or comparing one answer (main thread only)."""


class MathExtraMissingError(ImportError):
    """A math answer was graded without the ``math`` extra installed."""


@cache
def _math_verify() -> ModuleType:
    try:
        import math_verify
    except ImportError as exc:
        raise MathExtraMissingError(
            f"Grading 'math' answers needs the math-verify library: {INSTALL_HINT}"
        ) from exc
    module: ModuleType = math_verify
    return module


def require_math_extra() -> None:
    """Import ``math-verify`` now (e.g. before a long evaluation).

    Raises:
        MathExtraMissingError: The ``math`` extra is not installed.
    """
    _math_verify()


def _timeout() -> int | None:
    return TIMEOUT_S if threading.current_thread() is threading.main_thread() else None


def _parse(mv: ModuleType, key: str) -> list[object]:
    configs = [mv.LatexExtractionConfig(), mv.ExprExtractionConfig()]
    parsed: list[object] = mv.parse(
        f"${key}$", extraction_config=configs, parsing_timeout=_timeout()
    )
    return parsed


@lru_cache(maxsize=8192)
def math_equivalent(answer: str, reference: str) -> bool:
    r"""Whether two math answers are symbolically equal.

    Args:
        answer: The predicted answer's canonical key (e.g. ``"0.5"``).
        reference: The reference's canonical key (e.g. ``"\frac{1}{2}"``).

    Returns:
        True when ``math-verify`` proves them equal (identical keys always are); False when
        it cannot parse either side or finds them different.

    Raises:
        MathExtraMissingError: The ``math`` extra is not installed.
    """
    mv = _math_verify()
    if answer == reference:
        return True
    gold, target = _parse(mv, reference), _parse(mv, answer)
    if not gold or not target:
        return False
    return bool(mv.verify(gold, target, timeout_seconds=_timeout()))
