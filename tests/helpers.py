"""Scripted chat models for graph tests."""

import asyncio
from typing import Any

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
