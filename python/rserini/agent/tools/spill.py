"""Spill files: where a truncated tool output is saved in full.

One temporary folder per session (``rserini-agent-XXXXXXXX`` under the system temp dir,
made on the first spill unless a folder is given), with ``search/`` and ``read/``
subfolders, removed by :meth:`SpillDir.cleanup`, when the session is collected, or at
interpreter exit. File names follow pi-search: ``<seq>-<search_id>-ranks-<start>-<end>.json``,
``<seq>-<search_id>-offset-<o>-limit-<l>-empty.json``, ``<seq>-<docid>-lines-<s>-<e>.txt``,
every part (and then the whole name) with each run of characters outside
``[A-Za-z0-9._-]`` replaced by ``_`` and cut to 120 characters.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import weakref
from pathlib import Path

from rserini.agent.tools.jsformat import well_formed
from rserini.safe_fs import create_exclusive, own_dir, unpredictable_name

__all__ = ["SpillDir", "read_spill_name", "sanitize_part", "search_spill_name"]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def sanitize_part(value: str) -> str:
    """A path part with unsafe runs as ``_``, at most 120 characters, never empty."""
    return _UNSAFE.sub("_", value)[:120] or "unknown"


def search_spill_name(seq: int, search_id: str, page: dict[str, object]) -> str:
    """The file name of a spilled search page (``page`` as :func:`~pages.search_page`)."""
    sid = sanitize_part(search_id)
    if not page["results"]:
        return f"{seq}-{sid}-offset-{page['offset']}-limit-{page['limit']}-empty.json"
    return f"{seq}-{sid}-ranks-{page['returnedRankStart']}-{page['returnedRankEnd']}.json"


def read_spill_name(seq: int, docid: str, start: int, end: int) -> str:
    """The file name of a spilled document chunk."""
    return f"{seq}-{sanitize_part(docid)}-lines-{start}-{end}.txt"


class SpillDir:
    """A session's spill folder: ``root`` if given (kept), else a temporary one (removed)."""

    def __init__(self, root: str | Path | None = None) -> None:
        self._root = Path(root) if root is not None else None
        self._owned = root is None
        self._finalizer: weakref.finalize[[Path, bool], SpillDir] | None = None

    @property
    def root(self) -> Path:
        """The folder, made on first use."""
        if self._root is None:
            self._root = Path(tempfile.mkdtemp(prefix="rserini-agent-"))
            self._finalizer = weakref.finalize(self, shutil.rmtree, self._root, True)
        return self._root

    def write(self, kind: str, name: str, content: str) -> str:
        """Saves ``content`` as ``<root>/<kind>/<name>`` (name sanitized); returns the path.

        The file is created exclusively (``O_EXCL | O_NOFOLLOW``, mode 0600) and ``kind``
        must be a real folder: a link planted at the name, or at ``kind``, is never
        followed. A name already taken gets a random prefix no one can foresee.

        Raises:
            OSError: If ``<root>/<kind>`` is a link or not a folder.
        """
        self.root.mkdir(parents=True, exist_ok=True)  # a given folder, as the user named it
        folder = own_dir(self.root / kind)
        data = well_formed(content).encode("utf-8")
        path = folder / sanitize_part(name)
        while True:
            try:
                with create_exclusive(path) as out:
                    out.write(data)
                return str(path)
            except FileExistsError:
                path = folder / unpredictable_name(sanitize_part(name))

    def cleanup(self) -> None:
        """Removes a temporary folder now (a given folder is left alone)."""
        if self._finalizer is not None:
            self._finalizer()
