"""Scripted chat models for graph tests."""

import asyncio
from collections.abc import Iterable
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult


class Tracker:
    """Counts concurrent calls across model instances."""

    def __init__(self):
        self.active = 0
        self.peak = 0

    def enter(self):
        self.active += 1
        self.peak = max(self.peak, self.active)

    def leave(self):
        self.active -= 1


class Scripted(BaseChatModel):
    """Answers with ``replies[k]`` on its k-th call; tracks concurrent calls; no usage."""

    replies: list[str]
    delay: float = 0.0
    calls: int = 0
    tracker: Any = None

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        return asyncio.run(self._agenerate(messages))

    async def _agenerate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        if self.tracker is not None:
            self.tracker.enter()
        await asyncio.sleep(self.delay)
        if self.tracker is not None:
            self.tracker.leave()
        reply = self.replies[min(self.calls, len(self.replies) - 1)]
        self.calls += 1
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=reply))])


class Recording(BaseChatModel):
    """Replies with ``reply`` and records the keyword arguments of every call."""

    reply: str = "\\boxed{1}"
    seen: list = []  # noqa: RUF012 - a pydantic field (copied per instance), not shared

    @property
    def _llm_type(self) -> str:
        return "recording"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        self.seen.append({"stop": stop, **kwargs, "prompt": messages[-1].content})
        usage = {"input_tokens": 10, "output_tokens": 2, "total_tokens": 12}
        message = AIMessage(content=self.reply, usage_metadata=usage)
        return ChatResult(generations=[ChatGeneration(message=message)])


class ToolCaller(BaseChatModel):
    """Calls the ``calculator`` tool on its first turn, then answers with what the tool said.

    Reports usage (7 in / 3 out on every call), so a test can check that a debater's tokens
    are the sum of every model call inside it.
    """

    calls: int = 0

    @property
    def _llm_type(self) -> str:
        return "tool-caller"

    def bind_tools(self, tools, **kwargs):
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        from langchain_core.messages import ToolMessage

        self.calls += 1
        usage = {"input_tokens": 7, "output_tokens": 3, "total_tokens": 10}
        last = messages[-1]
        if isinstance(last, ToolMessage):
            message = AIMessage(
                content=f"The calculator says {last.content}.\nThe final answer is "
                f"\\boxed{{{last.content}}}.",
                usage_metadata=usage,
            )
        else:
            message = AIMessage(
                content="",
                tool_calls=[
                    {"name": "calculator", "args": {"expression": "3+4*5+6-7*2"}, "id": "c1"}
                ],
                usage_metadata=usage,
            )
        return ChatResult(generations=[ChatGeneration(message=message)])


def without_timings(rows: list[dict], also: tuple[str, ...] = ()) -> list[dict]:
    """Result rows less the wall-clock fields (and ``also``), which differ from run to run."""
    kept = []
    for row in rows:
        row = {k: v for k, v in row.items() if k not in ("wall_s", "failed_at", *also)}
        if "turns" in row:
            row["turns"] = [{k: v for k, v in t.items() if k != "latency_s"} for t in row["turns"]]
        if "usage_by_source" in row:
            row["usage_by_source"] = {
                source: {k: v for k, v in part.items() if k != "latency_s"}
                for source, part in row["usage_by_source"].items()
            }
        kept.append(row)
    return kept


def fast_few(values: Iterable[str], fast: Iterable[str]) -> list[Any]:
    """Parameters where only the cases in ``fast`` run in the fast loop; the rest are ``slow``.

    Every case still runs in the whole suite (CI); the fast loop keeps a few that stand for
    the others (docs/testing.md, "What is marked slow").
    """
    keep = set(fast)
    values = list(values)
    missing = keep - set(values)
    assert not missing, f"fast cases that are not cases: {sorted(missing)}"
    return [v if v in keep else pytest.param(v, marks=pytest.mark.slow) for v in values]
