"""Data files read from a public GitHub repository at one commit, checked by their digests.

A set whose data no hub copy pins is read from the repository that publishes it: the raw
file at a full commit hash (``raw.githubusercontent.com/OWNER/REPO/COMMIT/PATH``), checked
against the digests written down when it was pinned, and kept in a local cache
(``$DEBATEGRAPH_DATA_CACHE``, else ``$XDG_CACHE_HOME/debategraph/datasets``, else
``~/.cache/debategraph/datasets``) so that a later load needs no network. No extra package
is needed. Without network, and without the file in the cache, the load stops with one
line that names the set, the address and where to put the file.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import secrets
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from debategraph.errors import DataError
from debategraph.eval.datasets.hub import HubUnavailable

CACHE_ENV = "DEBATEGRAPH_DATA_CACHE"
"""The environment variable that names the folder pinned files are cached in."""

FETCH_TIMEOUT_S = 60.0
"""How long one download may wait for the server."""


@dataclass(frozen=True)
class PinnedFile:
    r"""One file of a public GitHub repository at a full commit hash, and its digests.

    Attributes:
        repo: ``owner/name`` on GitHub.
        commit: The full 40-character commit hash the file is read at.
        path: The file's path in the repository.
        git_blob: Git's object id of the file at that commit, as the commit's tree lists
            it (the SHA-1 of ``blob <size>\0`` followed by the bytes).
        sha256: The SHA-256 of the file's bytes, where they were seen when it was pinned.
    """

    repo: str
    commit: str
    path: str
    git_blob: str
    sha256: str | None = None

    def url(self, revision: str | None = None) -> str:
        """The raw file's address at the pinned commit, or at ``revision``."""
        commit = revision or self.commit
        return f"https://raw.githubusercontent.com/{self.repo}/{commit}/{self.path}"


def git_blob_id(data: bytes) -> str:
    """Git's object id of a file with these bytes (what a commit's tree lists for it)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def digest_mismatch(file: PinnedFile, data: bytes) -> str | None:
    """Which digest of ``data`` differs from the pinned one, or ``None`` when both match."""
    blob = git_blob_id(data)
    if blob != file.git_blob:
        return f"git blob {blob}, pinned {file.git_blob}"
    if file.sha256 is not None:
        sha256 = hashlib.sha256(data).hexdigest()
        if sha256 != file.sha256:
            return f"SHA-256 {sha256}, pinned {file.sha256}"
    return None


def data_cache() -> Path:
    """The folder pinned files are cached in (see the module documentation)."""
    chosen = os.environ.get(CACHE_ENV)
    if chosen:
        return Path(chosen).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "debategraph" / "datasets"


def cached_path(file: PinnedFile) -> Path:
    """Where the cache keeps ``file``: ``OWNER+REPO/COMMIT/PATH`` under :func:`data_cache`."""
    return data_cache() / file.repo.replace("/", "+") / file.commit / file.path


def download(url: str) -> bytes:
    """The bytes at ``url`` (one HTTP GET)."""
    request = urllib.request.Request(url, headers={"User-Agent": "debategraph"})
    with urllib.request.urlopen(request, timeout=FETCH_TIMEOUT_S) as response:
        data: bytes = response.read()
    return data


def pinned_bytes(file: PinnedFile, name: str, *, revision: str | None = None) -> bytes:
    """The bytes of a pinned file: from the cache, else downloaded, checked and cached.

    Args:
        file: The file and its digests.
        name: The set's name, for messages (``"GSM-Ranges level 4"``).
        revision: Another commit, tag or branch to read instead of the pinned commit; such a
            file is downloaded every time and checked against nothing (its digests are not
            known), the pinned commit itself is checked and cached as usual.

    Returns:
        The file's bytes.

    Raises:
        HubUnavailable: The download failed (no network); one line names the set, the
            address and the cache path where a copy of the file can be put instead (and
            says so when the file there is not the pinned one).
        DataError: The downloaded file's digests are not the pinned ones, or ``revision``
            is no commit, tag or branch name (:func:`checked_revision`).
    """
    if revision is not None:
        revision = checked_revision(revision, name)
    if revision is not None and revision != file.commit:
        return _fetch(file.url(revision), name, fix="connect to the network")
    path = cached_path(file)
    fix = f"connect to the network, or save that file as {path}"
    if path.is_file():
        data = path.read_bytes()
        stale = digest_mismatch(file, data)
        if stale is None:
            return data
        fix += f" (the file there now is not it: {stale})"
    url = file.url()
    data = _fetch(url, name, fix=fix)
    wrong = digest_mismatch(file, data)
    if wrong is not None:
        raise DataError(
            f"{name}: the file at {url} is not the pinned one ({wrong}), so it was not used; "
            "to read what the repository serves now, pass revision= to load_dataset"
        )
    _store(path, data)
    return data


_NOT_IN_A_REVISION = frozenset(" ~^:?*[\\#%")
"""Characters no git commit, tag or branch name holds (with control characters and ``..``),
or that would change the raw file's address."""


def checked_revision(revision: str, name: str) -> str:
    r"""``revision`` without surrounding blanks, checked to be a commit, tag or branch name.

    Raises:
        DataError: It is empty, or holds a blank, a control character, ``..`` or one of
            ``~^:?*[\#%``; one line names the set and the value.
    """
    stripped = revision.strip()
    bad = [c for c in stripped if c in _NOT_IN_A_REVISION or not c.isprintable()]
    if not stripped or bad or ".." in stripped or stripped.startswith(("/", "-")):
        raise DataError(
            f"{name}: revision={revision!r} is no commit, tag or branch name "
            "(pass a commit hash, a tag or a branch, without blanks)"
        )
    return stripped


def _fetch(url: str, name: str, *, fix: str) -> bytes:
    try:
        return download(url)
    except urllib.error.HTTPError as exc:
        reason = f"HTTP {exc.code} {exc.reason}"
    except (urllib.error.URLError, http.client.HTTPException, ValueError, OSError) as exc:
        reason = str(getattr(exc, "reason", "") or exc) or type(exc).__name__
    raise HubUnavailable(f"could not fetch {name} from {url} ({reason[:160]}): {fix}") from None


def _store(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole (a temporary file, renamed).

    The file is readable as the umask allows (``0o666`` less the umask, as a file ``open``
    makes), so that a cache shared by several users serves them all. A cache that cannot be
    written is skipped: the next load downloads again.
    """
    temporary: Path | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.parent / f".{path.name}.{secrets.token_hex(8)}.part"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temporary, path)
    except OSError:
        if temporary is not None:
            temporary.unlink(missing_ok=True)
