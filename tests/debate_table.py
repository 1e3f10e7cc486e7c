"""The debate-reply fixture table: replies whose answers peers' answers must not displace.

The cases live in ``tests/fixtures/answers/debate_replies.txt`` (format in its header), so
that a reply is written exactly as a model would write it, line breaks and all. The bench
``bench/answers.py`` reads the same table to measure its pass rate against any source tree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from debategraph.policies.types import TaskKind

TABLE = Path(__file__).resolve().parent / "fixtures" / "answers" / "debate_replies.txt"
"""The fixture file."""

HELDOUT = TABLE.with_name("heldout_peer_after.txt")
"""Held-out replies that declare the speaker's answer and then describe or quote a peer's
solution reaching another answer (issue 31)."""

_HEADER_RE = re.compile(
    r"--- (?P<id>[\w-]+) \| (?P<task>number|choice|text|math)(?:/(?P<options>\d+))? \| "
    r"(?P<answer>.+?) \| (?P<source>declared|fallback|none)(?P<after> \| after)?"
)
_SECTION_PREFIX = "# --- "


@dataclass(frozen=True)
class Case:
    """One reply and the extraction expected from it.

    Attributes:
        id: The case's name.
        task: The answer kind.
        options: How many options a choice task has (``None`` otherwise).
        answer: The expected canonical answer; ``None`` is an abstention.
        source: The expected source (``declared``, ``fallback`` or ``none``).
        after: Whether a peer's answer stands after the speaker's own declaration.
        reply: The reply.
    """

    id: str
    task: TaskKind
    options: int | None
    answer: str | None
    source: str
    after: bool
    reply: str


def load_cases(path: Path = TABLE) -> list[Case]:
    """The cases of a fixture file, in file order.

    Args:
        path: The fixture file.

    Returns:
        The cases.

    Raises:
        ValueError: A line starting with ``---`` that is not a valid header, or a repeated id.
    """
    cases: list[Case] = []
    header: re.Match[str] | None = None
    lines: list[str] = []

    def close() -> None:
        if header is None:
            return
        answer = header["answer"]
        cases.append(
            Case(
                id=header["id"],
                task=cast(TaskKind, header["task"]),
                options=int(header["options"]) if header["options"] else None,
                answer=None if answer == "-" else answer,
                source=header["source"],
                after=bool(header["after"]),
                reply="\n".join(lines).rstrip("\n"),
            )
        )

    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("---"):
            close()
            header = _HEADER_RE.fullmatch(line)
            if header is None:
                raise ValueError(f"{path.name}:{number}: not a case header: {line!r}")
            lines = []
        elif line.startswith(_SECTION_PREFIX) or (header is None and line.startswith("#")):
            continue
        elif header is not None:
            lines.append(line)
    close()
    ids = [case.id for case in cases]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise ValueError(f"{path.name}: repeated case ids {repeated}")
    return cases
