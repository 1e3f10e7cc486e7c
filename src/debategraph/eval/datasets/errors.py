"""The error every question-set problem raises, and reading a question-set file's text.

A file that cannot be read as UTF-8 text (another encoding, a damaged or cut-off ``.gz``) is
one :class:`DatasetFormatError` naming the file and where the problem is, never a bare
decoding error.
"""

from __future__ import annotations

import gzip
import os
import zlib
from collections.abc import Iterator
from pathlib import Path

from debategraph.errors import DataError


class DatasetFormatError(DataError):
    """A question set is malformed; the message names each bad line and how to fix it."""


def text_lines(path: str | os.PathLike[str]) -> Iterator[str]:
    """The lines of a UTF-8 text file (``.gz`` decompressed), each decoded on its own.

    A byte-order mark at the start is dropped.

    Args:
        path: The file.

    Yields:
        Its lines, with their line ends.

    Raises:
        DatasetFormatError: The file is not UTF-8 (the message gives the byte offset and
            line), or a ``.gz`` file is not gzip data or is cut off.
        OSError: The file cannot be opened.
    """
    file = Path(path)
    packed = file.suffix == ".gz"
    where = " (decompressed)" if packed else ""
    offset = 0
    with gzip.open(file, "rb") if packed else file.open("rb") as raw:
        try:
            for number, line in enumerate(raw, start=1):
                try:
                    text = line.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise DatasetFormatError(
                        f"{file}: not UTF-8 text: byte 0x{line[exc.start]:02x} at byte offset "
                        f"{offset + exc.start}{where} (line {number}); save the file as UTF-8"
                    ) from None
                yield text.removeprefix("\ufeff") if number == 1 else text
                offset += len(line)
        except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
            raise DatasetFormatError(
                f"{file}: not a readable gzip file ({exc}); decompress it again or give the "
                "uncompressed .jsonl"
            ) from None
