"""HTML views of debate results, for notebooks (``DebateResult._repr_html_``)."""

from __future__ import annotations

import json
from html import escape
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from debategraph.result import DebateResult

_STYLE = "border-collapse:collapse;font-size:90%;margin:4px 0 10px 0"
_CELL = "border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top"


def _table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f'<th style="{_CELL}">{escape(h)}</th>' for h in header)
    body = "".join(
        "<tr>" + "".join(f'<td style="{_CELL}">{cell}</td>' for cell in row) + "</tr>"
        for row in rows
    )
    return f'<table style="{_STYLE}"><tr>{head}</tr>{body}</table>'


def _fold(title: str, text: object) -> str:
    """``text`` folded under a small ``title``, where the turn kept it (its prompt, thinking)."""
    if not isinstance(text, str):
        return ""
    return (
        f"<details><summary><small>{escape(title)}</small></summary>"
        f'<pre style="white-space:pre-wrap">{escape(text)}</pre></details>'
    )


def result_html(result: DebateResult) -> str:
    """The decision, usage and a table of turns per round; replies, thinking, prompts fold out."""
    usage = result.usage
    answer = "no answer" if result.answer is None else result.answer
    parts = [
        f"<b>{escape(result.method)}</b> · {len(result.agents)} agents · "
        f"{result.rounds} debate rounds<br>",
        f"<b>Q:</b> {escape(result.question)}<br>",
        f"<b>answer:</b> {escape(answer)} <small>({escape(result.decision['rule'])}: "
        f"{escape(json.dumps(result.decision['evidence']))})</small><br>",
        f"<small>tokens {usage['input_tokens']} in + {usage['output_tokens']} out · "
        f"calls {usage['calls']}"
        + (f" ({usage['cached_calls']} from the cache)" if usage.get("cached_calls") else "")
        + f" · NComm {result.ncomm}"
        + (f" · cut off {escape(', '.join(result.cut_off))}" if result.cut_off else "")
        + "</small>",
    ]
    judgements = result.method_state.get("judgements") or {}  # mad-judge: the side preferred
    for r in sorted({0, *(t["round"] for t in result.turns)}):
        rows = []
        for t in (t for t in result.turns if t["round"] == r):
            label = judgements.get(t["id"], t.get("label"))
            shown = label if t["kind"] == "evaluation" else t["answer"]
            reply = t.get("text")  # a row written with --no-texts keeps none
            text = (
                (
                    f"<details><summary>{escape(str(shown))}</summary>"
                    f'<pre style="white-space:pre-wrap">{escape(reply)}</pre></details>'
                    if reply is not None
                    else escape(str(shown))
                )
                + _fold("thinking", t.get("reasoning"))
                + _fold("prompt", t.get("prompt"))
            )
            conf = "" if t["confidence"] is None else f"{t['confidence']:.2f}"
            read = ", ".join(i.split(":", 1)[-1] for i in t["reads"])
            rows.append(
                [
                    escape(t["id"]),
                    t["kind"],
                    escape(t["model"]),
                    escape(read),
                    text,
                    conf,
                    f"{t['input_tokens']}/{t['output_tokens']}"
                    + (" (cached)" if t.get("cached") else ""),
                ]
            )
        title = f"round {r}" + (" (initial)" if r == 0 else "")
        parts.append(f"<div><b>{title}</b>")
        header = ["turn", "kind", "model", "read", "answer", "conf", "tokens in/out"]
        parts.append(_table(header, rows) + "</div>")
    return "".join(parts)
