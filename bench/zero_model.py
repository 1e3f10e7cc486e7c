"""A chat model that answers at once (or after a fixed delay) with usage, for benchmarks."""

import asyncio
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult

REPLY = "Adding the numbers step by step gives 7.\nThe final answer is \\boxed{7}."


class FixedModel(BaseChatModel):
    """Replies with a fixed short solution after ``delay_s`` seconds; reports usage."""

    delay_s: float = 0.0

    @property
    def _llm_type(self) -> str:
        return "fixed"

    def _reply(self) -> ChatResult:
        usage = {"input_tokens": 100, "output_tokens": 20, "total_tokens": 120}
        message = AIMessage(content=REPLY, usage_metadata=usage)
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _generate(
        self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        return self._reply()

    async def _agenerate(
        self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        return self._reply()
