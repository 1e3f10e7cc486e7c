"""The readable transcript of a debate, as ``debategraph run`` and ``debategraph show`` print it."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape as rich_escape

from debategraph.policies.terminal import cut_text, visible

if TYPE_CHECKING:
    from rich.table import Table

    from debategraph.result import DebateResult

QUESTION_CHARS = 2_000
"""The most characters of the question a transcript shows."""

CELL_CHARS = 60
"""The most characters of a table cell (a turn's id, model, reads, answer)."""

TEXT_CHARS = 20_000
"""The most characters of one reply's text (``--show-text``)."""

LINE_CHARS = 2_000
"""The most characters of any other line (the decision's evidence, a mask's summary)."""


def folded_thinking(thinking: str, escape: Callable[[str], str]) -> str:
    """A turn's thinking folded to its first line and its length (escaped for the console)."""
    first = thinking.strip().splitlines()[0] if thinking.strip() else ""
    return f"{escape(first[:CELL_CHARS])} [dim]({len(thinking)} chars of thinking)[/]"


def print_transcript(
    result: DebateResult,
    console: Console,
    *,
    show_text: bool = False,
    redact: Callable[[str], str] = str,
    show_prompts: bool = False,
) -> None:
    """Readable transcript: per round who read whom, answers, confidence and tokens.

    Every piece of model or user text is redacted and escaped, so secrets never show and
    brackets in the text are shown as written. A long field is cut with a note of how many
    characters were cut (``show --json`` and ``run --json --text`` keep every character),
    so a hostile 20 MB question prints as fast as a short one. A turn's thinking (reasoning
    models) is folded to its first line and length, and shown whole with ``show_text``. With
    ``show_text`` and
    ``show_prompts``, a turn that kept its prompt (``eval --prompts``) prints it above its reply.
    """
    shown = _Shown(redact)
    _print_heading(result, console, shown)
    labels = result.method_state.get("round_labels") or {}
    judgements = result.method_state.get("judgements") or {}  # mad-judge: the side preferred
    for r in sorted({0, *(t["round"] for t in result.turns)}):
        title = f"round {r}" + (" (initial)" if r == 0 else "")
        if str(r) in labels:
            title += f" · {shown.line(str(labels[str(r)]))}"
        turns = [t for t in result.turns if t["round"] == r]
        console.print(_round_table(title, turns, shown, judgements))
        for mask in result.method_state.get("masks") or ():  # memory masks (MAD-M²)
            if mask.get("round") == r and mask.get("summary"):
                console.print(shown.line(mask["summary"]), highlight=False)
        for t in turns:
            if show_text:
                _print_texts(t, console, shown, show_prompts=show_prompts)
            elif t.get("reasoning"):
                folded = folded_thinking(t["reasoning"], shown.line)
                console.print(f"[dim]{shown.cell(t['id'])} thinking:[/] {folded}", highlight=False)
    _print_outcome(result, console, shown)


class _Shown:
    """Text made fit to print: redacted, cut with a note, control characters shown, escaped."""

    def __init__(self, redact: Callable[[str], str]) -> None:
        self.redact = redact

    def line(self, text: str, limit: int = LINE_CHARS) -> str:
        return rich_escape(visible(cut_text(text, limit, self.redact)))

    def cell(self, text: str) -> str:
        return self.line(text, CELL_CHARS)


def _print_heading(result: DebateResult, console: Console, shown: _Shown) -> None:
    console.print(
        f"[bold]{shown.line(result.method)}[/] · {len(result.agents)} agents · "
        f"{result.rounds} debate rounds"
    )
    console.print(f"[dim]Q:[/] {shown.line(result.question, QUESTION_CHARS)}\n")
    groups = result.method_state.get("groups")
    if groups:
        listed = " · ".join(f"g{j} = {', '.join(g)}" for j, g in enumerate(groups, 1))
        console.print(f"[dim]groups:[/] {shown.line(listed)}\n")


def _round_table(
    title: str, turns: list[Any], shown: _Shown, judgements: Mapping[str, str]
) -> Table:
    """One round's turns: who read whom, the answer (a judge's reading), confidence, tokens."""
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for col in ("turn", "kind", "model", "read", "answer", "conf", "tokens in/out"):
        table.add_column(col)
    for t in turns:
        read = ", ".join(i.split(":", 1)[-1] for i in t["reads"]) or "-"
        conf = "-" if t["confidence"] is None else f"{t['confidence']:.2f}"
        est = "~" if t["usage_estimated"] else ""
        replayed = " [dim](cached)[/]" if t.get("cached") else ""
        table.add_row(
            shown.cell(t["id"]),
            shown.cell(str(t["kind"])),
            shown.cell(t["model"]),
            shown.cell(read),
            _answer_cell(t, shown, judgements),
            conf,
            f"{est}{t['input_tokens']}/{t['output_tokens']}{replayed}",
        )
    return table


def _answer_cell(t: Mapping[str, Any], shown: _Shown, judgements: Mapping[str, str]) -> str:
    if t["kind"] == "evaluation":
        return shown.cell(str(judgements.get(t["id"], t.get("label"))))
    if t["answer"] is None:
        answer = "[red]abstained[/]" if t["kind"] == "answer" else "-"
        if t.get("answer_source") == "cut_off":
            answer += " [dim](cut off at its token limit)[/]"
        return answer
    answer = shown.cell(t["answer"])
    if t.get("answer_source") == "fallback":
        answer += " [dim](fallback)[/]"
    return answer


def _print_texts(
    t: Mapping[str, Any], console: Console, shown: _Shown, *, show_prompts: bool
) -> None:
    """A turn's prompt (where kept and asked for), its thinking and its reply's answer part."""
    console.print(f"[bold]{shown.cell(t['id'])}[/]")
    prompt = t.get("prompt") if show_prompts else None
    if isinstance(prompt, str):
        console.print("[dim]prompt:[/]")
        console.print(shown.line(prompt, TEXT_CHARS), highlight=False)
        console.print("[dim]reply:[/]")
    reasoning = t.get("reasoning")
    if isinstance(reasoning, str) and reasoning:
        console.print(f"[dim]thinking ({len(reasoning):,} characters):[/]")
        console.print(shown.line(reasoning, TEXT_CHARS), highlight=False)
        console.print("[dim]answer part:[/]")
    text = t.get("text")
    body = shown.line(text, TEXT_CHARS) if text is not None else "[dim](reply text not kept)[/]"
    console.print(body, highlight=False)
    console.print()


def _print_outcome(result: DebateResult, console: Console, shown: _Shown) -> None:
    """The answer and how it was decided, the spend, and what the method stood in for."""
    usage = result.usage
    answer = result.answer if result.answer is not None else "no answer"
    evidence = shown.line(json.dumps(result.decision["evidence"]))
    console.print(
        f"\n[bold]answer:[/] {shown.cell(answer)}"
        f"  ({shown.line(result.decision['rule'])}: {evidence})"
    )
    console.print(
        f"tokens: {usage['input_tokens']} in + {usage['output_tokens']} out"
        f" = {usage['total_tokens']}"
        f" · calls: {usage['calls']}"
        + (f" ({usage['cached_calls']} from the cache)" if usage.get("cached_calls") else "")
        + f" · NComm: {result.ncomm}"
        + (f" · cut off: {shown.line(', '.join(result.cut_off))}" if result.cut_off else "")
    )
    sources = result.answer_sources
    answered = sum(sources.values())
    if answered and (sources.get("fallback") or sources.get("none")):
        console.print(
            f"answers: {sources['declared']} declared, {sources['fallback']} by fallback, "
            f"{sources['none']} abstained (of {answered} answer turns)"
        )
    for note in _stand_ins(result.method_state, shown.line):
        console.print(note)


def _stand_ins(state: Mapping[str, Any], escape: Callable[[str], str]) -> Iterator[str]:
    """A line for each kind of value the method could not read and replaced (names escaped)."""
    unparsed = state.get("unparsed_confidences")
    if unparsed is not None:
        yield f"unparsed confidences: {unparsed} (each counted as 0.5)"
    defaults = state.get("default_sizes")
    if defaults:
        yield (
            "credibility: the default model size (7B parameters, 2T tokens) stands in for "
            f"{escape(', '.join(defaults))}, whose size is unknown"
        )
    unlabelled = state.get("unparsed_judgements")
    if unlabelled is not None:
        yield f"unparseable judgements: {unlabelled} (each counted as unsure)"
