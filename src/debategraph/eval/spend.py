"""What a debate spent on its provider, failed requests included.

A debate's turns record the calls that succeeded. A :class:`SpendMeter` (a LangChain callback
handler attached to the debate's run) also sees the requests that failed or were retried, so
a result row can say how many requests were made and how many tokens went to replies that
arrived but could not be used, and a failed item's row can say what it cost before it failed.

A reply without ``choices`` (or not UTF-8) is rejected inside the OpenAI client before
LangChain sees its usage; the usage it states is reported by the call node
(:data:`~debategraph.nodes.call.REJECTED_USAGE_EVENT`) and counted as wasted.

A meter given a ``note`` callable also writes ahead: it hands over one spend note per event
as it happens (a request sent, a reply's tokens, a failed request), numbered within the
debate's attempt, so that the run's note file (:mod:`debategraph.eval.ledger`) holds every
token whatever stops the run. The row it fills says how many of those notes it covers
(:data:`COVERS_KEY`).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from debategraph.nodes.call import (
    REJECTED_USAGE_EVENT,
    UNUSABLE_REPLY_EVENT,
    UsageTotal,
    usage_details,
)
from debategraph.nodes.patience import THROTTLED_EVENT
from debategraph.policies.tokens import estimate_tokens

COVERS_KEY = "_spend_covers"
"""The private row field (never written) naming the attempt and how many of its spend notes
the row's spend figures hold: ``{"attempt": ID, "notes": N}``."""

Note = Callable[[dict[str, Any]], None]
"""Receives a debate's spend notes as they happen."""


def _prompt_tokens(messages: Any) -> int:
    """An estimate of the input tokens of a request's messages (what a cut-off call sent)."""
    total = 0
    for batch in messages or ():
        for message in batch:
            content = getattr(message, "content", "")
            total += estimate_tokens(content if isinstance(content, str) else str(content))
    return total


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

    def __init__(self, note: Note | None = None) -> None:
        super().__init__()
        self.requests = 0
        self.failed = 0
        self.throttled_s = 0.0
        self.note = note
        self.attempt = secrets.token_hex(8)
        self.noted = 0
        self.open: dict[Any, int] = {}  # requests sent and not answered: their input estimate

    def _note(self, **spend: int) -> None:
        """Hand one note to ``note`` (call holding the lock, after updating the counts)."""
        if self.note is not None:
            self.noted += 1
            self.note({"attempt": self.attempt, "n": self.noted, **spend})

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        """Count one request (and note it, with an estimate of the input it sends)."""
        estimate = _prompt_tokens(messages)
        with self._lock:
            self.requests += 1
            self.open[kwargs.get("run_id")] = estimate
            self._note(requests=1)

    def on_llm_end(self, response: Any, **kwargs: Any) -> None:
        """Add (and note) the usage of one finished model call."""
        inputs = outputs = replies = 0
        details: dict[str, int] = {}
        for generations in response.generations:
            for generation in generations:
                usage = getattr(getattr(generation, "message", None), "usage_metadata", None)
                if usage:
                    inputs += usage["input_tokens"]
                    outputs += usage["output_tokens"]
                    replies += 1
                    for field, value in usage_details(usage).items():
                        details[field] = details.get(field, 0) + value
        with self._lock:
            self.open.pop(kwargs.get("run_id"), None)
            if not replies:
                return
            self.input_tokens += inputs
            self.output_tokens += outputs
            self.calls += replies
            for field, value in details.items():
                self.details[field] = self.details.get(field, 0) + value
            self._note(input_tokens=inputs, output_tokens=outputs)

    def on_llm_error(self, error: BaseException, **kwargs: Any) -> None:
        """Count (and note) one failed request."""
        with self._lock:
            self.open.pop(kwargs.get("run_id"), None)
            self.failed += 1
            self._note(failed_requests=1)

    def cut_off(self) -> dict[str, int]:
        """The requests sent and never answered (in flight when cut short), and an estimate
        of the input tokens they sent (what a provider may bill for them; no reply, no
        output known)."""
        with self._lock:
            return {
                "cut_off_requests": len(self.open),
                "estimated_input_tokens": sum(self.open.values()),
            }

    def snapshot(self) -> tuple[dict[str, int], dict[str, Any]]:
        """The spend so far (the ledger's totals) and the notes it holds
        (``{"attempt", "notes"}``), read together."""
        with self._lock:
            spend = {
                "input_tokens": self.input_tokens,
                "output_tokens": self.output_tokens,
                "requests": self.requests,
                "failed_requests": self.failed,
            }
            return spend, {"attempt": self.attempt, "notes": self.noted}

    def on_custom_event(self, name: str, data: Any, **kwargs: Any) -> None:
        """Count rejected replies.

        A reply the call node rejected (e.g. empty) is a failed request; the tokens of
        replies the client rejected (no choices, not UTF-8) are spent; a wait on a server's
        ``Retry-After`` adds to the seconds the debate was throttled.
        """
        if name == UNUSABLE_REPLY_EVENT:
            with self._lock:
                self.failed += 1
                self._note(failed_requests=1)
        elif name == THROTTLED_EVENT:
            with self._lock:
                self.throttled_s += float(data["seconds"])
        elif name == REJECTED_USAGE_EVENT:
            with self._lock:
                self.input_tokens += int(data["input_tokens"])
                self.output_tokens += int(data["output_tokens"])
                self._note(input_tokens=int(data["input_tokens"]),
                           output_tokens=int(data["output_tokens"]))  # fmt: skip

    def record(self, *, used_input: int = 0, used_output: int = 0) -> dict[str, Any]:
        """The row fields: requests, failed requests, and tokens spent beyond the used ones.

        Also ``throttled_s``, the seconds spent waiting on servers' ``Retry-After``, when
        there were any, and, for a meter that writes notes, :data:`COVERS_KEY` (the notes
        these figures hold; the runner takes it out before the row is written).

        Args:
            used_input: Input tokens of the turns the debate kept.
            used_output: Output tokens of the turns the debate kept.
        """
        with self._lock:
            fields: dict[str, Any] = {
                "requests": self.requests,
                "failed_requests": self.failed,
                "wasted_input_tokens": max(0, self.input_tokens - used_input),
                "wasted_output_tokens": max(0, self.output_tokens - used_output),
            }
            if self.note is not None:
                fields[COVERS_KEY] = {"attempt": self.attempt, "notes": self.noted}
        if self.throttled_s:
            fields["throttled_s"] = round(self.throttled_s, 3)
        return fields
