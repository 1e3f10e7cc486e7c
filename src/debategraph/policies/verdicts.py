"""Reading an evaluation call's verdict on a solution: keep it, mask it, or unsure.

Evaluators are asked to end with ``<label>YES</label>``, ``<label>NO</label>`` or
``<label>NOT SURE</label>`` (MAD-M²'s subjective masking). The last label wins; anything else
(no label, an unknown word) is ``unsure``, which the caller counts.
"""

from __future__ import annotations

import re
from typing import Literal

Verdict = Literal["keep", "mask", "unsure"]
"""``keep`` (the solution is judged correct), ``mask`` (judged wrong) or ``unsure``."""

_LABEL_RE = re.compile(r"<label>\s*([^<]{0,40}?)\s*</label>", re.IGNORECASE)
_WORDS: dict[str, Verdict] = {
    "yes": "keep",
    "correct": "keep",
    "no": "mask",
    "incorrect": "mask",
    "wrong": "mask",
    "not sure": "unsure",
    "unsure": "unsure",
}


def parse_verdict(text: str) -> tuple[Verdict, bool]:
    """The verdict of an evaluation response, and whether a label was found at all.

    Args:
        text: The evaluator's whole response.

    Returns:
        ``(verdict, labelled)``: ``labelled`` is false when no known label was found, in which
        case the verdict is ``unsure``.
    """
    labels = _LABEL_RE.findall(text)
    if not labels:
        return "unsure", False
    word = " ".join(labels[-1].lower().replace("_", " ").split()).strip(" .!*")
    verdict = _WORDS.get(word)
    return (verdict, True) if verdict is not None else ("unsure", False)
