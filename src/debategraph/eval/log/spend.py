"""What a debate spent on its provider, failed requests included.

A debate's turns record the calls that succeeded. A :class:`SpendMeter` (a LangChain callback
handler attached to the debate's run) also sees the requests that failed or were retried, so
a result row can say how many requests were made and how many tokens went to replies that
arrived but could not be used, and a failed item's row can say what it cost before it failed.

A reply without ``choices`` (or not UTF-8) is rejected inside the OpenAI client before
LangChain sees its usage; the usage it states is reported by the call node
(:data:`~debategraph.nodes.call.REJECTED_USAGE_EVENT`) and counted as wasted.
"""

from __future__ import annotations

from typing import Any

from debategraph.nodes.call import REJECTED_USAGE_EVENT, UNUSABLE_REPLY_EVENT, UsageTotal
from debategraph.nodes.patience import THROTTLED_EVENT


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
        self.throttled_s = 0.0

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        """Count one request."""
        with self._lock:
            self.requests += 1

    def on_llm_error(self, error: BaseException, **kwargs: Any) -> None:
        """Count one failed request."""
        with self._lock:
            self.failed += 1

    def on_custom_event(self, name: str, data: Any, **kwargs: Any) -> None:
        """Count rejected replies.

        A reply the call node rejected (e.g. empty) is a failed request; the tokens of
        replies the client rejected (no choices, not UTF-8) are spent; a wait on a server's
        ``Retry-After`` adds to the seconds the debate was throttled.
        """
        if name == UNUSABLE_REPLY_EVENT:
            with self._lock:
                self.failed += 1
        elif name == THROTTLED_EVENT:
            with self._lock:
                self.throttled_s += float(data["seconds"])
        elif name == REJECTED_USAGE_EVENT:
            with self._lock:
                self.input_tokens += int(data["input_tokens"])
                self.output_tokens += int(data["output_tokens"])

    def record(self, *, used_input: int = 0, used_output: int = 0) -> dict[str, Any]:
        """The row fields: requests, failed requests, and tokens spent beyond the used ones.

        Also ``throttled_s``, the seconds spent waiting on servers' ``Retry-After``, when
        there were any.

        Args:
            used_input: Input tokens of the turns the debate kept.
            used_output: Output tokens of the turns the debate kept.
        """
        fields: dict[str, Any] = {
            "requests": self.requests,
            "failed_requests": self.failed,
            "wasted_input_tokens": max(0, self.input_tokens - used_input),
            "wasted_output_tokens": max(0, self.output_tokens - used_output),
        }
        if self.throttled_s:
            fields["throttled_s"] = round(self.throttled_s, 3)
        return fields
