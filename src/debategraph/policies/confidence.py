"""Self-reported confidences: reading them, and hiding them from peers.

Statements read (case-insensitive, last one wins):

- a label: ``Confidence: 0.8``, ``**Confidence Score:** 85%``, ``confidence level = 9/10``,
  ``Confidence (0-1): 0.7``, ``"confidence_level": "0.9"`` (JSON), also mid-line
  (``... (Confidence: 0.8)``);
- ``my confidence is 0.95``, ``my confidence level would be 80%``, ``with a confidence of
  0.9``, ``at confidence 90%``, ``Confidence score of 0.9``, ``confidence is 0.7`` (with a
  value: ``the confidence is low`` states nothing);
- ``I am 90% confident``, ``I'm 9 out of 10 sure``, ``we are 0.8 certain``.

Values: a percentage (``85%``, ``85 percent``) is divided by 100; a fraction (``8/10``,
``4/5``) and ``N out of M`` are divided out; a bare number in [0, 1] is a probability and a
bare number in [10, 100] a percentage. A bare number between 1 and 10 (``Confidence: 8``)
could be "out of 10" or a percentage and is left unparsed, as is anything outside [0, 1]
after interpretation, a word (``Confidence: high``), and a confidence attributed to a peer
(``Agent 2's confidence: 0.9``, see :mod:`debategraph.policies.attribution`).

:func:`strip_confidence` removes every line that carries a confidence, the speaker's or a
peer's, and every line that starts with a confidence label whatever its value: it is what a
method shows peers when they must not see confidences.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from debategraph.policies.attribution import is_peer_statement

_VALUE = (
    r"[ \t*_\"'`]*+(?:about|around|roughly|approximately|~)?[ \t]*+"
    r"(?P<num>\d++(?:\.\d++)?|\.\d++)(?![\d,.]\d)"
    r"(?:[ \t]*+(?P<pct>%|percent\b)"
    r"|[ \t]*+/[ \t]*+(?P<den>\d++(?:\.\d++)?)"
    r"|[ \t]++out[ \t]++of[ \t]++(?P<outof>\d++(?:\.\d++)?))?"
)
_NOUN = r"confidence(?:[ \t_]++(?:score|level|rating|estimate))?"
_STATEMENT_RE = re.compile(
    rf"(?=[cCmMoOwWaAiI])(?:(?P<label>\b{_NOUN}[\"'`]?[ \t*_]*+"
    r"(?:\([^()\n]{0,24}\)[ \t*_]*+)?[:=])"
    rf"|(?P<mine>\b(?:my|our)[ \t]++(?:(?:overall|final)[ \t]++)?{_NOUN}[ \t]++"
    r"(?:is|of|at|would[ \t]++be)\b)"
    rf"|(?P<with>\b(?:with|at)[ \t]++(?:an?[ \t]++)?(?:(?:overall|final)[ \t]++)?{_NOUN}"
    r"(?:[ \t]++(?:of|at)\b)?)"
    r"|(?P<self>\b(?:I|we)(?:[ \t]++(?:am|are|feel|remain)|['’](?:m|re))[ \t]++)"
    rf"|(?P<noun>\b{_NOUN}[ \t]++(?:of|is|was|at|would[ \t]++be)\b))",
    re.IGNORECASE,
)
_VALUE_RE = re.compile(_VALUE, re.IGNORECASE)
_STATED_RE = re.compile(
    rf"(?=[cCmMoOwWaA\d.])(?:(?:\b{_NOUN}[\"'`]?[ \t*_]*+(?:\([^()\n]{{0,24}}\)[ \t*_]*+)?[:=]"
    rf"|\b(?:my|our)[ \t]++(?:(?:overall|final)[ \t]++)?{_NOUN}[ \t]++"
    r"(?:is|of|at|would[ \t]++be)\b"
    rf"|\b(?:with|at)[ \t]++(?:an?[ \t]++)?(?:(?:overall|final)[ \t]++)?{_NOUN}"
    rf"(?:[ \t]++(?:of|at)\b)?|\b{_NOUN}[ \t]++(?:of|is|was|at|would[ \t]++be)\b){_VALUE}"
    r"|(?<![\d.])(?:\d++(?:\.\d++)?|\.\d++)[ \t]*+(?:%|percent|/[ \t]*+\d++"
    r"|[ \t]++out[ \t]++of[ \t]++\d++)?[ \t]++(?:confident|sure|certain)\b)",
    re.IGNORECASE,
)
_SELF_TAIL_RE = re.compile(r"[ \t]++(?:confident|sure|certain)\b", re.IGNORECASE)
_CARRIER_LABEL_RE = re.compile(rf"[ \t>*_#\"'`-]*+{_NOUN}", re.IGNORECASE)
_CARRIER_RE = re.compile(
    rf"(?=[cC\d.wWaA])(?:\b{_NOUN}[\"'`]?[ \t*_]*+(?:\([^()\n]{{0,24}}\)[ \t*_]*+)?"
    r"(?:[:=]|is\b|of\b|at\b|was\b|would[ \t]++be\b)[ \t*_\"'`]*+(?:about|around|roughly|"
    r"approximately|~)?[ \t]*+\.?\d"
    r"|\d[ \t]*+(?:%|percent|/[ \t]*+\d++|[ \t]out[ \t]of[ \t]\d++)?[ \t]++(?:confident|sure|"
    r"certain)\b"
    r"|\b(?:with|at)[ \t]++(?:an?[ \t]++)?(?:high|low|medium|moderate|full)?[ \t]*+"
    rf"{_NOUN}[ \t]++(?:of[ \t]++)?\.?\d)",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class ConfidenceReading:
    """What a response says about its own confidence.

    Attributes:
        value: The confidence in [0, 1], or ``None`` when none is stated or it is unparsed.
        stated: Whether the response states a confidence at all; ``stated`` with ``value``
            ``None`` is an unparsed confidence (count it).
    """

    value: float | None
    stated: bool

    @property
    def unparsed(self) -> bool:
        """A confidence was stated but could not be read as a value in [0, 1]."""
        return self.stated and self.value is None


def _interpret(m: re.Match[str]) -> float | None:
    number = float(m.group("num"))
    if m.group("pct"):
        value = number / 100
    elif m.group("den") or m.group("outof"):
        denominator = float(m.group("den") or m.group("outof"))
        value = number / denominator if denominator else -1.0
    elif number <= 1:
        value = number
    elif 10 <= number <= 100:
        value = number / 100
    else:
        return None
    return value if 0 <= value <= 1 else None


def _reading_at(text: str, m: re.Match[str]) -> tuple[bool, float | None] | None:
    """``(stated, value)`` of the statement matched by ``m``; ``None`` if it is not one."""
    value_m = _VALUE_RE.match(text, m.end())
    if m.group("self") is not None:
        if value_m is None or not _SELF_TAIL_RE.match(text, value_m.end()):
            return None
        return True, _interpret(value_m)
    if (m.group("with") is not None or m.group("noun") is not None) and value_m is None:
        return None
    return True, _interpret(value_m) if value_m else None


def read_confidence(response: str) -> ConfidenceReading:
    """The speaker's last self-reported confidence in ``response``.

    Args:
        response: The model's whole response.

    Returns:
        The reading; see the module docstring for the forms and values understood.
    """
    lowered = response.lower()
    if not any(word in lowered for word in ("confiden", "sure", "certain")):
        return ConfidenceReading(None, False)
    matches = list(_STATEMENT_RE.finditer(response))
    for m in reversed(matches):
        reading = _reading_at(response, m)
        if reading is None or is_peer_statement(response, m.start()):
            continue
        return ConfidenceReading(reading[1], reading[0])
    return ConfidenceReading(None, False)


def extract_confidence(response: str) -> float | None:
    """The last self-reported confidence in ``response``, in [0, 1].

    Args:
        response: The model's whole response.

    Returns:
        The confidence, or ``None`` when none is stated or it is unparsed (see
        :func:`read_confidence` to tell the two apart).
    """
    return read_confidence(response).value


def carries_confidence(line: str) -> bool:
    """Whether a line states a confidence (anyone's) or starts with a confidence label.

    Args:
        line: One line of text.

    Returns:
        True when the line must be hidden from peers that see no confidences.
    """
    return _CARRIER_LABEL_RE.match(line) is not None or _CARRIER_RE.search(line) is not None


def _blank(m: re.Match[str]) -> str:
    return " " * (m.end() - m.start())


def blank_confidences(text: str) -> str:
    """``text`` with every stated confidence blanked out, offsets kept.

    The "last number" and "last letter" fallbacks read this, so a confidence is never
    taken for an answer (``I get 18. Confidence: 0.9`` falls back to 18, not 0.9).

    Args:
        text: A model response.

    Returns:
        The same text, each stated confidence (speaker's or peer's) replaced by spaces.
    """
    lowered = text.lower()
    if not any(word in lowered for word in ("confiden", "sure", "certain")):
        return text
    return _STATED_RE.sub(_blank, text)


def strip_confidence(text: str) -> str:
    """``text`` without every line that carries a self-reported confidence.

    This is what peers see when a method shows them no confidences (CortexDebate). A line
    that also holds the answer goes too: the confidence cannot be shown without it.

    Args:
        text: A model response.

    Returns:
        The remaining lines, stripped of surrounding blank space.
    """
    lowered = text.lower()
    if not any(word in lowered for word in ("confiden", "sure", "certain")):
        return text.strip()
    kept = [line for line in text.split("\n") if not carries_confidence(line)]
    return "\n".join(kept).strip()
