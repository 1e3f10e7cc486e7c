"""What a debate spent on its provider, failed requests included.

A debate's turns record the calls that succeeded. A :class:`SpendMeter` (a LangChain callback
handler attached to the debate's run) also sees the requests that failed or were retried, so
a result row can say how many requests were made and how many tokens went to replies that
arrived but could not be used, and a failed item's row can say what it cost before it failed.
"""

from __future__ import annotations

import threading
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler


class SpendMeter(BaseCallbackHandler):
    """Counts model requests, failed requests and the tokens of every reply that arrived.

    It runs inline (a few additions under a lock) and listens to model events only: a
    synchronous handler that does not say so is sent to a thread pool for every event of
    the run, chain events included.
    """

    run_inline = True

    @property
    def ignore_chain(self) -> bool:
        """Chain events are not counted."""
        return True

    @property
    def ignore_agent(self) -> bool:
        """Agent events are not counted."""
        return True

    @property
    def ignore_retriever(self) -> bool:
        """Retriever events are not counted."""
        return True

    @property
    def ignore_custom_event(self) -> bool:
        """Custom events are not counted."""
        return True

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requests = 0
        self.failed = 0
        self.input_tokens = 0
        self.output_tokens = 0

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        """Count one request."""
        with self._lock:
            self.requests += 1

    def on_llm_end(self, response: Any, **kwargs: Any) -> None:
        """Add the usage of a reply that arrived."""
        for generations in response.generations:
            for generation in generations:
                usage = getattr(getattr(generation, "message", None), "usage_metadata", None)
                if usage:
                    with self._lock:
                        self.input_tokens += usage["input_tokens"]
                        self.output_tokens += usage["output_tokens"]

    def on_llm_error(self, error: BaseException, **kwargs: Any) -> None:
        """Count one failed request."""
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
