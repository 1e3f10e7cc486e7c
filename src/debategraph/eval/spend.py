"""What a debate spent on its provider, failed requests included.

A debate's turns record the calls that succeeded. A :class:`SpendMeter` (a LangChain callback
handler attached to the debate's run) also sees the requests that failed or were retried, so
a result row can say how many requests were made and how many tokens went to replies that
arrived but could not be used, and a failed item's row can say what it cost before it failed.

One gap remains: a reply without ``choices`` is rejected inside the OpenAI client before
LangChain sees its usage, so it counts as a failed request whose tokens are unknown.
"""

from __future__ import annotations

from typing import Any

from debategraph.nodes.call import UNUSABLE_REPLY_EVENT, UsageTotal


class SpendMeter(UsageTotal):
    """Counts model requests, failed requests and the tokens of every reply that arrived.

    Like :class:`~debategraph.nodes.call.UsageTotal` it runs inline and ignores chain events;
    it listens to custom events for replies the call node rejected.
    """

    @property
    def ignore_agent(self) -> bool:
        """Agent events are not counted."""
        return True

    @property
    def ignore_retriever(self) -> bool:
        """Retriever events are not counted."""
        return True

    def __init__(self) -> None:
        super().__init__()
        self.requests = 0
        self.failed = 0

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        """Count one request."""
        with self._lock:
            self.requests += 1

    def on_llm_error(self, error: BaseException, **kwargs: Any) -> None:
        """Count one failed request."""
        with self._lock:
            self.failed += 1

    def on_custom_event(self, name: str, data: Any, **kwargs: Any) -> None:
        """Count a reply that arrived but was rejected (e.g. empty) as a failed request."""
        if name == UNUSABLE_REPLY_EVENT:
            with self._lock:
                self.failed += 1

    def record(self, *, used_input: int = 0, used_output: int = 0) -> dict[str, int]:
        """The row fields: requests, failed requests, and tokens spent beyond the used ones.

        Args:
            used_input: Input tokens of the turns the debate kept.
            used_output: Output tokens of the turns the debate kept.
        """
        return {
            "requests": self.requests,
            "failed_requests": self.failed,
            "wasted_input_tokens": max(0, self.input_tokens - used_input),
            "wasted_output_tokens": max(0, self.output_tokens - used_output),
        }
