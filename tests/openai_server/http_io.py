"""The HTTP layer: a small HTTP/1.1 reader and writer on ``asyncio`` streams."""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import socket
import struct
import time
from collections.abc import Sequence
from dataclasses import dataclass
from http import HTTPStatus
from urllib.parse import parse_qsl, urlsplit

MAX_LINE = 64 * 1024
"""Longest request line or header line accepted, in bytes."""


MAX_HEADERS = 128
"""Most header fields accepted in one request."""


MAX_BODY = 64 * 1024 * 1024
"""Largest request body accepted, in bytes."""


class ProtocolError(Exception):
    """A request the HTTP layer cannot read: answered with ``status``, then the connection closes.

    Args:
        status: HTTP status code of the answer.
        message: What was wrong, sent as the error message.
    """

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class HttpRequest:
    """One HTTP request as read from the wire.

    Attributes:
        method: Request method, e.g. ``"POST"``.
        target: Request target as sent, path and query.
        version: ``"HTTP/1.1"`` or ``"HTTP/1.0"``.
        headers: Header fields, names lower-cased; repeated fields joined with ``", "``.
        body: The body, de-chunked.
    """

    method: str
    target: str
    version: str
    headers: dict[str, str]
    body: bytes

    @property
    def path(self) -> str:
        """The target's path, without the query."""
        return urlsplit(self.target).path

    @property
    def query(self) -> dict[str, str]:
        """The target's query parameters."""
        return dict(parse_qsl(urlsplit(self.target).query))

    @property
    def keep_alive(self) -> bool:
        """Whether the client lets the connection stay open after this exchange."""
        tokens = {t.strip().lower() for t in self.headers.get("connection", "").split(",")}
        if self.version == "HTTP/1.0":
            return "keep-alive" in tokens
        return "close" not in tokens


async def _read_line(reader: asyncio.StreamReader) -> bytes | None:
    """One CRLF- (or LF-) terminated line without its terminator; ``None`` at a clean EOF."""
    try:
        line = await reader.readuntil(b"\n")
    except asyncio.IncompleteReadError as exc:
        if exc.partial:
            raise ProtocolError(400, "the request ended in the middle of a line") from None
        return None
    except asyncio.LimitOverrunError:
        raise ProtocolError(431, f"a request line or header is over {MAX_LINE} bytes") from None
    return line[:-2] if line.endswith(b"\r\n") else line[:-1]


async def _read_exactly(reader: asyncio.StreamReader, n: int) -> bytes:
    try:
        return await reader.readexactly(n)
    except asyncio.IncompleteReadError:
        raise ProtocolError(400, "the request body is shorter than announced") from None


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    """A ``Transfer-Encoding: chunked`` body; chunk extensions and trailers are skipped."""
    parts: list[bytes] = []
    size_total = 0
    while True:
        line = await _read_line(reader)
        if line is None:
            raise ProtocolError(400, "the chunked body ended early")
        try:
            size = int(line.split(b";", 1)[0].strip(), 16)
        except ValueError:
            raise ProtocolError(400, "bad chunk size") from None
        if size == 0:
            break
        size_total += size
        if size_total > MAX_BODY:
            raise ProtocolError(413, f"the request body is over {MAX_BODY} bytes")
        parts.append(await _read_exactly(reader, size))
        if await _read_line(reader) != b"":
            raise ProtocolError(400, "a chunk is not followed by CRLF")
    while True:  # trailer section
        line = await _read_line(reader)
        if not line:
            return b"".join(parts)


async def read_request(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> HttpRequest | None:
    """Read the next request of a connection.

    Handles ``Content-Length`` and chunked bodies and answers ``Expect: 100-continue``.

    Args:
        reader: The connection's reader.
        writer: The connection's writer (for the interim ``100 Continue``).

    Returns:
        The request, or ``None`` when the client closed the connection between requests.

    Raises:
        ProtocolError: The bytes are not an HTTP/1.x request this server accepts.
    """
    line = await _read_line(reader)
    while line == b"":  # RFC 9112 2.2: ignore empty lines before a request line
        line = await _read_line(reader)
    if line is None:
        return None
    parts = line.decode("latin-1").split(" ")
    if len(parts) != 3 or not parts[0].isalpha() or not parts[2].startswith("HTTP/"):
        raise ProtocolError(400, "malformed request line")
    method, target, version = parts
    if version not in ("HTTP/1.1", "HTTP/1.0"):
        raise ProtocolError(505, f"{version} is not supported")
    headers: dict[str, str] = {}
    for _ in range(MAX_HEADERS + 1):
        raw = await _read_line(reader)
        if raw is None:
            raise ProtocolError(400, "the request ended inside its header")
        if raw == b"":
            break
        name, colon, value = raw.decode("latin-1").partition(":")
        if not colon or not name or name != name.strip() or " " in name:
            raise ProtocolError(400, f"malformed header line {raw[:60]!r}")
        key = name.lower()
        value = value.strip(" \t")
        headers[key] = f"{headers[key]}, {value}" if key in headers else value
    else:
        raise ProtocolError(431, f"more than {MAX_HEADERS} header fields")

    if "transfer-encoding" in headers:
        if "content-length" in headers:
            raise ProtocolError(400, "both Transfer-Encoding and Content-Length")
        if headers["transfer-encoding"].split(",")[-1].strip().lower() != "chunked":
            raise ProtocolError(501, "only the chunked transfer coding is supported")
        length = None
    else:
        values = {v.strip() for v in headers.get("content-length", "0").split(",")}
        if len(values) != 1 or not (text := values.pop()).isdigit():
            raise ProtocolError(400, "bad Content-Length")
        length = int(text)
        if length > MAX_BODY:
            raise ProtocolError(413, f"the request body is over {MAX_BODY} bytes")
    if (
        headers.get("expect", "").lower() == "100-continue"
        and version == "HTTP/1.1"
        and length != 0
    ):
        writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
    body = await _read_chunked(reader) if length is None else await _read_exactly(reader, length)
    return HttpRequest(method, target, version, headers, body)


_date_cache: tuple[int, str] = (0, "")


def _http_date() -> str:
    global _date_cache
    now = int(time.time())
    if _date_cache[0] != now:
        _date_cache = (now, email.utils.formatdate(now, usegmt=True))
    return _date_cache[1]


def _head(status: int, headers: Sequence[tuple[str, str]]) -> bytes:
    lines = [f"HTTP/1.1 {status} {HTTPStatus(status).phrase}", f"Date: {_http_date()}"]
    lines += ["Server: debategraph-openai-server", *(f"{k}: {v}" for k, v in headers)]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


async def send_response(
    writer: asyncio.StreamWriter,
    status: int,
    body: bytes,
    *,
    content_type: str = "application/json",
    headers: Sequence[tuple[str, str]] = (),
    keep_alive: bool = True,
) -> None:
    """Write a complete response with a ``Content-Length``.

    Args:
        writer: The connection's writer.
        status: HTTP status code.
        body: The body.
        content_type: Its media type.
        headers: Further header fields.
        keep_alive: Announce that the connection stays open (else ``Connection: close``).
    """
    fields = [
        ("Content-Type", content_type),
        ("Content-Length", str(len(body))),
        ("Connection", "keep-alive" if keep_alive else "close"),
        *headers,
    ]
    writer.write(_head(status, fields) + body)
    await writer.drain()


class ResponseStream:
    """A response whose body is written piece by piece (chunked, or close-delimited for HTTP/1.0).

    Args:
        writer: The connection's writer.
        chunked: Use ``Transfer-Encoding: chunked``; otherwise the end of the body is the end
            of the connection.
    """

    def __init__(self, writer: asyncio.StreamWriter, *, chunked: bool = True):
        self.writer = writer
        self.chunked = chunked

    async def start(
        self, status: int, headers: Sequence[tuple[str, str]], *, keep_alive: bool = True
    ) -> None:
        """Write the status line and header."""
        framing = ("Transfer-Encoding", "chunked") if self.chunked else ("Connection", "close")
        fields = [*headers, framing]
        if self.chunked:
            fields.append(("Connection", "keep-alive" if keep_alive else "close"))
        self.writer.write(_head(status, fields))
        await self.writer.drain()

    async def send(self, data: bytes) -> None:
        """Write one piece of the body (an empty piece is skipped: it would end the body)."""
        if data:
            self.writer.write(b"%x\r\n%b\r\n" % (len(data), data) if self.chunked else data)
            await self.writer.drain()

    async def finish(self) -> None:
        """End the body."""
        if self.chunked:
            self.writer.write(b"0\r\n\r\n")
            await self.writer.drain()


def drop_connection(writer: asyncio.StreamWriter) -> None:
    """Abort the connection with a TCP reset (``SO_LINGER`` 0), as a crashing peer would."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()
