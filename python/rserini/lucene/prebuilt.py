"""Pyserini's prebuilt Lucene indexes by name, in the cache Pyserini uses.

The names, tarballs, md5 sums, URLs and counts come from Pyserini's own table
(``pyserini.prebuilt_index_info.TF_INDEX_INFO`` of Pyserini 1.6.0), shipped as
``prebuilt_indexes.json.gz`` and rebuilt with ``python -m rserini.parity.prebuilt_table``.

The cache is Pyserini's: ``$PYSERINI_CACHE`` (when set and not empty) or
``~/.cache/pyserini``, then ``indexes/<tarball name without .tar.gz>.<md5>``, so an index
Pyserini downloaded is found here and the reverse. A cached index is opened with no
network access. Otherwise the tarball is downloaded (a progress bar on stderr), its size and
md5 checked, and it is unpacked beside the final folder and renamed into place, so the
cache never holds a half-written index under the final name.
"""

from __future__ import annotations

import difflib
import gzip
import hashlib
import http.client
import json
import os
import re
import shutil
import sys
import tarfile
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import IO, Any

from rserini.exceptions import RseriniError

__all__ = [
    "ChecksumError",
    "DownloadError",
    "NotCachedError",
    "PrebuiltIndex",
    "PrebuiltIndexError",
    "UnknownPrebuiltIndexError",
    "cache_home",
    "fetch",
    "prebuilt_index",
    "prebuilt_index_path",
    "prebuilt_indexes",
]

TABLE = Path(__file__).with_name("prebuilt_indexes.json.gz")
"""The shipped table (see :mod:`rserini.parity.prebuilt_table`)."""
CHUNK = 1 << 20
"""Bytes read per network read."""
USER_AGENT = "rserini (+https://pypi.org/project/rserini/)"


class PrebuiltIndexError(RseriniError):
    """A prebuilt index that cannot be found, fetched or unpacked."""


class UnknownPrebuiltIndexError(PrebuiltIndexError, ValueError):
    """A name that is not one of Pyserini's prebuilt Lucene indexes."""


class NotCachedError(PrebuiltIndexError, FileNotFoundError):
    """The index is not in the cache and downloading was not allowed."""


class DownloadError(PrebuiltIndexError, OSError):
    """No URL of the index gave a complete tarball: offline, an HTTP error, an interrupted
    transfer, or a tarball that does not unpack into one folder."""


class ChecksumError(DownloadError):
    """A downloaded tarball whose md5 is not the one Pyserini's table gives."""


@dataclass(frozen=True)
class PrebuiltIndex:
    """One of Pyserini's prebuilt Lucene indexes.

    Attributes
    ----------
    name
        Pyserini's name (``"beir-v1.0.0-scifact.flat"``).
    tarball
        The file name Pyserini downloads it under (``"lucene-inverted....tar.gz"``).
    md5
        The tarball's md5, hexadecimal.
    urls
        Where to download it, tried in order.
    size
        The tarball's size in bytes, if known.
    documents
        Documents in the index, as Pyserini's table gives them.
    total_terms, unique_terms
        Pyserini's counts of term occurrences and distinct terms, if known.
    """

    name: str
    tarball: str
    md5: str
    urls: tuple[str, ...]
    size: int | None = None
    documents: int | None = None
    total_terms: int | None = None
    unique_terms: int | None = None

    @property
    def folder_name(self) -> str:
        """The cache folder's name: the tarball name cut at ``.tar.gz``, a dot, the md5."""
        return re.sub(r"\.tar\.gz.*$", "", self.tarball) + "." + self.md5

    def cached_path(self, cache: Path | None = None) -> Path:
        """Where the index is (or would be) in the cache (default :func:`cache_home`)."""
        return (cache if cache is not None else cache_home()) / "indexes" / self.folder_name


def cache_home() -> Path:
    """Pyserini's cache: ``$PYSERINI_CACHE`` if set and not empty, else ``~/.cache/pyserini``."""
    custom = os.environ.get("PYSERINI_CACHE")
    if custom:
        return Path(custom)
    return Path(os.path.expanduser(os.path.join("~", ".cache", "pyserini")))


@cache
def prebuilt_indexes() -> Mapping[str, PrebuiltIndex]:
    """Every prebuilt Lucene index by Pyserini's name (aliases included)."""
    table: dict[str, Any] = json.loads(gzip.decompress(TABLE.read_bytes()))
    return {
        name: PrebuiltIndex(
            name=name,
            tarball=row["tarball"],
            md5=row["md5"],
            urls=tuple(row["urls"]),
            size=row.get("size"),
            documents=row.get("documents"),
            total_terms=row.get("total_terms"),
            unique_terms=row.get("unique_terms"),
        )
        for name, row in table["indexes"].items()
    }


def prebuilt_index(name: str) -> PrebuiltIndex:
    """The prebuilt index called ``name``.

    Raises
    ------
    UnknownPrebuiltIndexError
        If Pyserini has no Lucene index of that name, with the closest names.
    """
    table = prebuilt_indexes()
    if name in table:
        return table[name]
    close = difflib.get_close_matches(name, table, n=5, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise UnknownPrebuiltIndexError(
        f"{name!r} is not one of Pyserini's {len(table)} prebuilt Lucene indexes{hint}"
    )


def prebuilt_index_path(
    name: str, download: bool = True, *, progress: bool = True, timeout: float = 60.0
) -> Path:
    """The folder of the prebuilt index ``name`` in Pyserini's cache, downloaded first if
    it is not there and ``download`` allows it.

    Parameters
    ----------
    name
        Pyserini's name of the index (``"msmarco-v1-passage"``, ``"beir-v1.0.0-scifact.flat"``).
    download
        Fetch the index when it is not cached; when false, only the cache is looked at.
    progress
        Show a progress bar on stderr while downloading.
    timeout
        Seconds a connection may stay silent before the URL is given up.

    Returns
    -------
    Path
        ``<cache>/indexes/<tarball name>.<md5>``, the Lucene index folder.

    Raises
    ------
    UnknownPrebuiltIndexError
        If the name is not one of Pyserini's prebuilt Lucene indexes.
    NotCachedError
        If the index is not cached and ``download`` is false.
    ChecksumError
        If the downloaded tarball's md5 is wrong.
    DownloadError
        If no URL gives the whole tarball (offline, HTTP error, interrupted transfer).
    """
    index = prebuilt_index(name)
    path = index.cached_path()
    if path.is_dir():
        return path
    if not download:
        raise NotCachedError(
            f"the prebuilt index {name!r} is not in the cache (expected at {path}); "
            "allow downloading it, or set PYSERINI_CACHE to the cache that holds it"
        )
    return fetch(index, progress=progress, timeout=timeout)


def fetch(
    index: PrebuiltIndex,
    cache: Path | None = None,
    *,
    progress: bool = True,
    timeout: float = 60.0,
) -> Path:
    """Downloads, checks and unpacks ``index`` into the cache; returns its folder.

    Each URL is tried in turn. The tarball is streamed into a temporary file in the cache's
    ``indexes`` folder (never under the name Pyserini uses for its own partial download),
    its size compared with the ``Content-Length`` and the table's, its md5 with the table's,
    then it is unpacked into a temporary folder there and renamed to the final name. If
    another process put the index in place meanwhile, that copy is kept.

    Raises
    ------
    ChecksumError
        If a tarball arrived whole but with the wrong md5 (and no other URL gave a good one).
    DownloadError
        If no URL gives a complete tarball that unpacks into one folder.
    """
    final = index.cached_path(cache)
    folder = final.parent
    folder.mkdir(parents=True, exist_ok=True)
    failures: list[str] = []
    bad_checksum = False
    for url in index.urls:
        handle, name = tempfile.mkstemp(
            dir=folder, prefix=f".{index.folder_name}.", suffix=".download"
        )
        partial = Path(name)
        try:
            with open(handle, "wb") as out:
                md5 = _download(url, out, index, progress, timeout)
            if md5 != index.md5:
                bad_checksum = True
                failures.append(f"{url}: md5 {md5}, expected {index.md5}")
                continue
            return _unpack(partial, final, url)
        except (urllib.error.URLError, http.client.HTTPException, OSError) as e:
            if isinstance(e, PrebuiltIndexError):
                failures.append(str(e))
            else:
                failures.append(f"{url}: {_describe(e)}")
        finally:
            partial.unlink(missing_ok=True)
    error = ChecksumError if bad_checksum else DownloadError
    raise error(f"cannot download the prebuilt index {index.name!r}: " + "; ".join(failures))


def _describe(error: BaseException) -> str:
    if isinstance(error, urllib.error.HTTPError):
        return f"HTTP {error.code} {error.reason}"
    if isinstance(error, urllib.error.URLError):
        return f"cannot connect ({error.reason}): offline, or the server is down"
    if isinstance(error, TimeoutError):
        return "the connection timed out"
    return f"{type(error).__name__}: {error}"


def _download(
    url: str, out: IO[bytes], index: PrebuiltIndex, progress: bool, timeout: float
) -> str:
    """Streams ``url`` into ``out``; returns the md5 of what arrived.

    Raises DownloadError when fewer (or more) bytes arrive than announced."""
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    md5 = hashlib.md5(usedforsecurity=False)
    received = 0
    with urllib.request.urlopen(request, timeout=timeout) as response:
        length = response.headers.get("Content-Length")
        announced = int(length) if length and length.isdigit() else None
        total = announced if announced is not None else index.size
        show = _progress_bar(index.tarball, total) if progress else None
        try:
            while True:
                try:
                    chunk = response.read(CHUNK)
                except http.client.IncompleteRead as e:
                    raise DownloadError(
                        f"{url}: the transfer was interrupted after "
                        f"{received + len(e.partial)} of {total} bytes"
                    ) from None
                if not chunk:
                    break
                out.write(chunk)
                md5.update(chunk)
                received += len(chunk)
                if show is not None:
                    show(received)
        finally:
            if show is not None:
                show(None)
    for expected, source in ((announced, "announced"), (index.size, "listed")):
        if expected is not None and received != expected:
            raise DownloadError(
                f"{url}: the transfer was interrupted: {received} bytes arrived, "
                f"{expected} {source}"
            )
    return md5.hexdigest()


def _unpack(tarball: Path, final: Path, url: str) -> Path:
    """Unpacks ``tarball`` beside ``final`` and renames its one folder to ``final``."""
    scratch = Path(tempfile.mkdtemp(dir=final.parent, prefix=f".{final.name}.unpack-"))
    try:
        try:
            with tarfile.open(tarball) as archive:
                _extract(archive, scratch)
        except (tarfile.TarError, EOFError, OSError) as e:
            raise DownloadError(f"{url}: the tarball does not unpack: {e}") from None
        entries = list(scratch.iterdir())
        if len(entries) != 1 or not entries[0].is_dir():
            names = ", ".join(sorted(p.name for p in entries)) or "nothing"
            raise DownloadError(f"{url}: the tarball holds {names}, not one index folder")
        try:
            entries[0].rename(final)
        except OSError:
            if not final.is_dir():  # not another process's finished copy
                raise
        return final
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _extract(archive: tarfile.TarFile, into: Path) -> None:
    """Extracts regular files and folders only, none outside ``into`` (tarfile's "data"
    filter where this Python has it)."""
    if hasattr(tarfile, "data_filter"):
        archive.extractall(into, filter="data")
        return
    root = into.resolve()
    for member in archive.getmembers():
        target = (root / member.name).resolve()
        if not (member.isfile() or member.isdir()) or not target.is_relative_to(root):
            raise tarfile.TarError(f"refusing to extract {member.name!r}")
    archive.extractall(into)


def _progress_bar(label: str, total: int | None) -> Callable[[int | None], None]:
    """A one-line stderr progress bar: call it with the bytes so far, ``None`` at the end."""
    start = time.monotonic()
    last = [0.0]

    def show(done: int | None) -> None:
        now = time.monotonic()
        if done is not None and now - last[0] < 0.2:
            return
        last[0] = now
        if done is None:
            sys.stderr.write("\n")
            sys.stderr.flush()
            return
        rate = done / max(now - start, 1e-9)
        if total:
            share = min(done / total, 1.0)
            bar = "#" * int(share * 30)
            text = f"{_size(done)} / {_size(total)} [{bar:<30}] {share:4.0%}"
        else:
            text = _size(done)
        sys.stderr.write(f"\r{label}: {text} {_size(rate)}/s ")
        sys.stderr.flush()

    return show


def _size(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"
