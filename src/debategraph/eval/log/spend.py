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
debate's attempt, so that the run's note file (:mod:`debategraph.eval.log.ledger`) holds every
token whatever stops the run. A request's note carries an estimate of the input it sent
(``input_estimate``); the note of its reply or failure says it closed it (``closed``,
``closed_estimate``), so that a request whose reply no record holds (on the wire when the
run was killed) is known, with its estimate, apart from the exact figures. The row it fills
says how many of those notes it covers (:data:`COVERS_KEY`).

A :class:`SpendGuard` reads the same notes as they come and says when a directory's
:class:`SpendLimit` (``--max-usd``, ``--max-tokens-total``) is reached: the runner then stops
the run as Ctrl-C would, within one window of calls in flight.
"""

from __future__ import annotations

import math
import secrets
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from debategraph.models.usage_details import usage_details
from debategraph.nodes.call import REJECTED_USAGE_EVENT, UNUSABLE_REPLY_EVENT, UsageTotal
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
            self._note(requests=1, input_estimate=estimate)

    def _closed(self, run_id: Any) -> dict[str, int]:
        """Close an open request (call holding the lock): the note fields that say so."""
        if run_id not in self.open:
            return {}
        return {"closed": 1, "closed_estimate": self.open.pop(run_id)}

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
            closed = self._closed(kwargs.get("run_id"))
            if not replies:
                if closed:
                    self._note(**closed)
                return
            self.input_tokens += inputs
            self.output_tokens += outputs
            self.calls += replies
            for field, value in details.items():
                self.details[field] = self.details.get(field, 0) + value
            self._note(input_tokens=inputs, output_tokens=outputs, **closed)

    def on_llm_error(self, error: BaseException, **kwargs: Any) -> None:
        """Count (and note) one failed request."""
        with self._lock:
            closed = self._closed(kwargs.get("run_id"))
            self.failed += 1
            self._note(failed_requests=1, **closed)

    def cut_off(self) -> dict[str, int]:
        """The requests sent and never answered (in flight when cut short).

        With an estimate of the input tokens they sent (what a provider may bill for them;
        no reply came, so no output is known).
        """
        with self._lock:
            return {
                "cut_off_requests": len(self.open),
                "estimated_input_tokens": sum(self.open.values()),
            }

    def snapshot(self) -> tuple[dict[str, int], dict[str, Any]]:
        """The spend so far (the ledger's totals) and the notes it holds, read together.

        The notes as ``{"attempt", "notes"}``.
        """
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


class SpendLimitReached(RuntimeError):
    """An evaluation stopped at its spend limit (``--max-usd``, ``--max-tokens-total``).

    The message is one line: what was spent, where it is kept, and how to continue.
    """


@dataclass(frozen=True)
class SpendLimit:
    """A hard stop on what a results directory may spend, over all its runs.

    Attributes:
        max_usd: Most dollars, priced with ``prices`` (every input token at the input price:
            the notes do not say which the provider cached, so the guard never prices low).
        max_tokens: Most input plus output tokens.
        prices: ``{"input": $ per token, "output": $ per token}`` (needed with ``max_usd``).
    """

    max_usd: float | None = None
    max_tokens: int | None = None
    prices: Mapping[str, float] | None = None

    def check(self) -> None:
        """Refuse a limit that cannot be kept, before any request.

        Raises:
            ValueError: A limit not above 0, or ``max_usd`` without prices.
        """
        usd, tokens = self.max_usd, self.max_tokens
        if usd is not None and (not math.isfinite(usd) or usd <= 0):
            raise ValueError(f"--max-usd must be a number of dollars above 0, got {usd}")
        if tokens is not None and (isinstance(tokens, bool) or tokens < 1):
            raise ValueError(f"--max-tokens-total must be at least 1 token, got {tokens}")
        if usd is not None and self.prices is None:
            raise ValueError(
                "--max-usd needs the prices of tokens: give --prices IN,OUT ($ per 1M input "
                "and output tokens), or use --max-tokens-total"
            )

    def usd(self, input_tokens: int, output_tokens: int) -> float | None:
        """What these tokens cost at the limit's prices (``None`` without prices)."""
        if self.prices is None:
            return None
        return input_tokens * self.prices["input"] + output_tokens * self.prices["output"]


class SpendGuard:
    """Adds up a directory's spend, note by note, and says when its limit is reached.

    Args:
        limit: The limit.
        input_tokens: Input tokens already on record in the directory (rows and ledger).
        output_tokens: Output tokens already on record.
    """

    def __init__(self, limit: SpendLimit, input_tokens: int = 0, output_tokens: int = 0) -> None:
        self.limit = limit
        self.input_tokens = input_tokens
        self.output_tokens = output_tokens
        self._lock = threading.Lock()
        self.tripped = False

    def reached(self) -> bool:
        """Whether the spend so far is at or over the limit."""
        limit = self.limit
        tokens = self.input_tokens + self.output_tokens
        if limit.max_tokens is not None and tokens >= limit.max_tokens:
            return True
        cost = limit.usd(self.input_tokens, self.output_tokens)
        return limit.max_usd is not None and cost is not None and cost >= limit.max_usd

    def add(self, note: Mapping[str, Any]) -> bool:
        """Add one spend note; whether the limit was reached by it (true once)."""
        with self._lock:
            self.input_tokens += int(note.get("input_tokens") or 0)
            self.output_tokens += int(note.get("output_tokens") or 0)
            if self.tripped or not self.reached():
                return False
            self.tripped = True
            return True

    def words(self, where: str) -> str:
        """The one line of a run stopped at the limit (``where``: the results directory)."""
        limit = self.limit
        tokens = self.input_tokens + self.output_tokens
        cost = limit.usd(self.input_tokens, self.output_tokens)
        spent = f"{self.input_tokens:,} input and {self.output_tokens:,} output tokens"
        if cost is not None:
            spent += f" (${cost:.4f})"
        if limit.max_tokens is not None and tokens >= limit.max_tokens:
            which = f"--max-tokens-total {limit.max_tokens}"
        else:
            which = f"--max-usd {limit.max_usd:g}"
        return (
            f"stopped: the spend limit {which} is reached: {where} has spent {spent} (rows "
            "and ledger: every reply received; a request cut off before its reply has no "
            f"token count); finished rows are kept: raise {which.split()[0]} and run the same "
            "command again to continue"
        )
