"""Reading an evaluation call's verdict on a solution: keep it, mask it, or unsure.

Evaluators are asked to end with ``<label>YES</label>``, ``<label>NO</label>`` or
``<label>NOT SURE</label>`` (MAD-M²'s subjective masking). Two readings:

* ``last_label`` (default, the paper's "must end with"): the last label, tags in any case, a
  few synonyms (``correct``, ``wrong``) accepted;
* ``first_label`` (the official code): the first ``<label>...</label>``, tags in lower case
  only, its word lower-cased; only ``yes`` and ``no`` decide.

Anything else (no label, an unknown word) is ``unsure``, which the caller counts.
"""

from __future__ import annotations

import re
from typing import Literal

Verdict = Literal["keep", "mask", "unsure"]
"""``keep`` (the solution is judged correct), ``mask`` (judged wrong) or ``unsure``."""

VerdictReading = Literal["last_label", "first_label"]
"""Which label decides: the last one (the paper) or the first (the official code)."""

_LABEL_RE = re.compile(r"<label>\s*([^<]{0,40}?)\s*</label>", re.IGNORECASE)
_FIRST_LABEL_RE = re.compile(r"<label>(.*?)</label>", re.DOTALL)
_OFFICIAL_WORDS: dict[str, Verdict] = {"yes": "keep", "no": "mask", "not sure": "unsure"}
_WORDS: dict[str, Verdict] = {
    "yes": "keep",
    "correct": "keep",
    "no": "mask",
    "incorrect": "mask",
    "wrong": "mask",
    "not sure": "unsure",
    "unsure": "unsure",
}


def parse_verdict(text: str, reading: VerdictReading = "last_label") -> tuple[Verdict, bool]:
    """The verdict of an evaluation response, and whether a label was found at all.

    Args:
        text: The evaluator's whole response.
        reading: ``last_label`` or ``first_label`` (see the module docstring).

    Returns:
        ``(verdict, labelled)``: ``labelled`` is false when no known label was found, in which
        case the verdict is ``unsure``.
    """
    if reading == "first_label":
        first = _FIRST_LABEL_RE.search(text)
        word = first.group(1).strip().lower().rstrip(".:)") if first else ""
        official = _OFFICIAL_WORDS.get(word)
        return (official, True) if official is not None else ("unsure", False)
    labels = _LABEL_RE.findall(text)
    if not labels:
        return "unsure", False
    word = " ".join(labels[-1].lower().replace("_", " ").split()).strip(" .!*")
    verdict = _WORDS.get(word)
    return (verdict, True) if verdict is not None else ("unsure", False)
