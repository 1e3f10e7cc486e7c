"""The evaluation's circuit breaker: a model server that cannot be reached stops the run.

A debate whose model call never reached its server (refused, unknown host, no route: a
:class:`~debategraph.errors.NoConnectionError`, after the call's quick attempts) is
marked by the process that ran it (:func:`mark_unreachable`). The driver's
:class:`Breaker` stands between the executor and the writer and holds such rows back: when
:data:`DOWN_STREAK` of them come in a row, at the start or at any later time, it stops the
run with :class:`ServerDownError` (one line naming the server) and the held rows are not
written, so no failed row is left for them and resume runs them again. Any other row breaks
the streak, and the held rows are then written as the failed rows they are: a finished
debate, or a failure after the server answered (a bad reply, an HTTP 500). A failed row that
made no request (a budget-matched arm whose base failed) neither counts nor breaks it; when
its base could not connect, it is held with its base (:func:`mark_dependent`), so it is
dropped or written with it, without counting again. A debate whose model the server does
not know (HTTP 404: a wrong model name, or a URL without its ``/v1``) is held the same way,
since every later item would fail alike; the line then says the model name is wrong and
which name.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from debategraph.errors import ModelError, NoConnectionError
from debategraph.eval.log.row import as_row, opt
from debategraph.eval.run.cut_short import note_row
from debategraph.policies.retry import exception_chain, status_of
from debategraph.policies.secrets import redact_url

DOWN_STREAK = 5
"""Debates in a row that could not connect to their model server before the run stops."""

UNREACHABLE_FIELD = "unreachable"
"""The key that marks a failed row whose debate could not connect (``url`` and ``reason``);
the breaker removes it, so it never reaches ``results.jsonl``."""


class ServerDownError(ModelError):
    """An evaluation stopped: its debates could not connect to their model server.

    The message is one line naming the server(s) and what to do.

    Attributes:
        urls: The servers that could not be reached (credentials removed).
        streak: How many debates in a row could not connect.
    """

    def __init__(self, message: str, *, urls: Sequence[str] = (), streak: int = 0) -> None:
        super().__init__(message)
        self.urls = list(urls)
        self.streak = streak


def _no_connection(exc: BaseException) -> NoConnectionError | None:
    return next((e for e in exception_chain(exc) if isinstance(e, NoConnectionError)), None)


def _not_found(exc: BaseException) -> BaseException | None:
    return next((e for e in exception_chain(exc) if status_of(e) == 404), None)


def _requested_model(exc: BaseException) -> tuple[str | None, str | None]:
    """The model a refused request named, and the server it went to (from the request)."""
    request = getattr(exc, "request", None)
    url = getattr(request, "url", None)
    server = None
    if url is not None:
        text = str(url)
        server = text.split("/chat/completions")[0].split("/completions")[0]
    try:
        body = json.loads(getattr(request, "content", b"") or b"{}")
    except (ValueError, TypeError):
        body = {}
    model = body.get("model") if isinstance(body, dict) else None
    return (model if isinstance(model, str) else None), server


def mark_unreachable(
    row: dict[str, Any], exc: BaseException, redact: Callable[[str], str]
) -> dict[str, Any]:
    """``row`` (a failed row), marked for the breaker when its debate cannot succeed.

    That is a failed connection, or a model the server does not know (HTTP 404: every item
    would fail the same way).
    """
    down = _no_connection(exc)
    if down is not None:
        url = redact(down.url) if down.url else None
        row[UNREACHABLE_FIELD] = {"url": url, "reason": redact(down.reason)}
        return row
    missing = _not_found(exc)
    if missing is not None:
        model, server = _requested_model(missing)
        row[UNREACHABLE_FIELD] = {
            "url": redact_url(redact(server)) if server else None,
            "reason": redact(" ".join(str(missing).split()))[:200],
            "model": redact(model) if model else None,
            "status": 404,
        }
    return row


def mark_dependent(row: dict[str, Any], base: dict[str, Any]) -> dict[str, Any]:
    """``row`` (a failed row of an arm matched to a base that could not connect), held with it.

    Args:
        row: The dependent arm's row (``BudgetUnavailable``, no request made).
        base: The base row's :data:`UNREACHABLE_FIELD` mark.
    """
    row[UNREACHABLE_FIELD] = {**base, "dependent": True}
    return row


class Breaker:
    """Takes the executor's rows before the writer: holds a streak of unreachable ones.

    Args:
        deliver: Writes a row (the runner's writer).
        streak: Unreachable debates in a row that stop the run.
        cut_short: Where the spend of rows dropped when the run stops is noted (the run's
            :data:`~debategraph.eval.run.cut_short.CUT_SHORT` list), if anywhere.
    """

    def __init__(
        self,
        deliver: Callable[[dict[str, Any]], None],
        *,
        streak: int = DOWN_STREAK,
        cut_short: list[dict[str, Any]] | None = None,
    ) -> None:
        if streak < 1:
            raise ValueError(f"a breaker's streak must be at least 1, got {streak}")
        self.deliver = deliver
        self.streak = streak
        self.cut_short = cut_short
        self.held: list[tuple[dict[str, Any], dict[str, Any]]] = []
        self.tripped = False

    def __call__(self, row: dict[str, Any]) -> None:
        """Hand ``row`` on, hold it, or stop the run (raises :class:`ServerDownError`)."""
        down = row.pop(UNREACHABLE_FIELD, None)
        if self.tripped:  # a row that finished as the run was being stopped
            self._drop(row)
            return
        if isinstance(down, dict):
            self.held.append((row, down))
            if self._streak() >= self.streak:
                self._trip()
            return
        written = as_row(row)
        if opt(written.error) is None or written.requests:
            self.flush()  # the server answered: the streak is broken
        self.deliver(row)

    def flush(self) -> None:
        """Write the rows held (the streak was broken, or the run ended)."""
        held, self.held = self.held, []
        for row, _ in held:
            self.deliver(row)

    def drop_held(self) -> None:
        """Leave the rows held unwritten (the run stopped), noting what their debates spent."""
        held, self.held = self.held, []
        for row, _ in held:
            self._drop(row)

    def _streak(self) -> int:
        """Debates held that could not connect (rows held with their base aside)."""
        return sum(not down.get("dependent") for _, down in self.held)

    def _trip(self) -> None:
        self.tripped = True
        streak = self._streak()
        held, self.held = self.held, []
        for row, _ in held:
            self._drop(row)
        urls = list(dict.fromkeys(d.get("url") or "the model server" for _, d in held))
        reason = held[-1][1].get("reason") or "no connection"
        where = " and ".join(urls)
        if all(d.get("status") == 404 for _, d in held):
            models = list(dict.fromkeys(d["model"] for _, d in held if d.get("model")))
            named = " and ".join(f"'{m}'" for m in models) or "the model asked for"
            raise ServerDownError(
                f"stopped: the model name is wrong: {where} does not serve {named} (HTTP 404 "
                f"on {streak} debates in a row: {reason}); every item would fail the same "
                "way: fix --model (the names the server serves are at its /v1/models) or "
                "--base-url (an OpenAI-compatible URL usually ends in /v1); finished rows "
                "are kept",
                urls=[u for u in urls if u != "the model server"],
                streak=streak,
            )
        raise ServerDownError(
            f"stopped: {streak} debates in a row could not connect to {where} ({reason}); "
            "start the server or fix the URL (--base-url), then run the same command again to "
            "resume (finished rows are kept)",
            urls=[u for u in urls if u != "the model server"],
            streak=streak,
        )

    def _drop(self, row: dict[str, Any]) -> None:
        """Leave ``row`` unwritten (resume runs it again), noting what its debate spent."""
        note_row(self.cut_short, row)
