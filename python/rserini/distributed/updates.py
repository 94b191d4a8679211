"""Adding and deleting documents of a sharded index, each in the shard its docid's
hash names.

:class:`ShardedWriter` is :class:`rserini.Index`'s writer spread over shards: ``add``
and ``delete`` queue changes, ``commit`` applies them, ``rollback`` discards them,
with ``Index.add``/``delete``/``commit``'s arguments, checks and errors. The first
change takes the sharded folder's ``write.lock`` (an exclusive ``flock``, as one
index folder's), held until ``commit`` or ``rollback``: one writer per sharded index.

A commit checks the whole queue first (duplicate docids under
``duplicates="error"``, with the positions one index would report), so that a bad
document changes no shard. Each changed shard then commits through the engine
(one replica per shard; a commit is idempotent, so a replica that dies is replaced
by another) and saves crash-safely at its next generation. Before that,
``sharded.json`` announces each shard's change (its id, ``pending``), which the
shard's save records too; the manifest is rewritten last, atomically, from what the
shard folders hold. A crash between the two leaves every shard folder whole and the
manifest one generation behind some shard:
:func:`rserini.distributed.open_shards.check_shards` accepts a shard *newer* than its
entry if the announced change saved it (and refuses any other state), and the next
commit rewrites the manifest.
"""

from __future__ import annotations

import json
import math
import os
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from rserini._core import (
    DOCID_FIELDS,
    Index,
    __version__,
    check_added_docids,
    document_fields,
)
from rserini.distributed.engine import Engine
from rserini.distributed.manifest import meta_sha256, shard_entry, update_id, write_manifest
from rserini.distributed.open_shards import check_shard, manifest_or_error
from rserini.distributed.partition import shard_of
from rserini.exceptions import DocumentError, IndexLockedError, QueryError, UnknownDocidError

#: The sharded folder's writer lock, named as one index folder's.
LOCK_FILE = "write.lock"

Duplicates = Literal["error", "keep"]


@dataclass(frozen=True)
class Queued:
    """A document queued for adding, with the shard its docid routes it to."""

    docid: str
    shard: int
    doc: Any


class FolderLock:
    """An exclusive ``flock`` on ``folder/write.lock`` (as the core takes an index
    folder's), owned by the process that took it: a process forked while it is held
    inherits the file, not the right to write under it."""

    def __init__(self, folder: Path) -> None:
        import fcntl

        self.path = folder / LOCK_FILE
        self._fd = -1
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | os.O_CLOEXEC
        fd = os.open(self.path, flags, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise _locked(
                self.path,
                f"another writer holds the lock {self.path}; wait for it to commit, or "
                "remove the file if no rserini process is writing",
            ) from None
        self.owner = os.getpid()
        self._fd = fd

    def check(self) -> None:
        if self.owner != os.getpid():
            raise _locked(
                self.path,
                f"the writer lock {self.path} belongs to process {self.owner}, not to this "
                "one (a forked process inherits its parent's pending changes, not the right "
                "to commit them); roll back, then open the index in this process to write",
            )

    def release(self) -> None:
        fd, self._fd = self._fd, -1
        if fd < 0:
            return
        import fcntl

        if self.owner == os.getpid():  # a forked child never unlocks its parent
            fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)

    def __del__(self) -> None:  # a writer dropped without commit or rollback
        self.release()


def _locked(path: Path, message: str) -> IndexLockedError:
    err = IndexLockedError(message)
    err.path = str(path)
    return err


class ShardedWriter:
    """The queued changes of one :class:`~rserini.distributed.ShardedIndex`."""

    def __init__(self, folder: Path, engine: Engine) -> None:
        self.folder = folder
        self.engine = engine
        self.num_shards = engine.num_shards
        self.adds: list[Queued] = []
        self.deletes: list[str] = []
        self.duplicates: Duplicates = "error"
        self.lock: FolderLock | None = None
        self._mutex = threading.RLock()
        # Checks documents exactly as Index.add does (types, fields, positions):
        # an empty index in memory, which queues without a lock.
        self._checker = Index.build([("-", "")], store=False, progress=False)

    @property
    def has_changes(self) -> bool:
        return bool(self.adds or self.deletes)

    def _take_lock(self) -> None:
        if self.lock is None:
            self.lock = FolderLock(self.folder)
        self.lock.check()

    def add(self, docs: Iterable[Any], duplicates: str) -> None:
        with self._mutex:
            items = list(docs)
            self._checker.add(items, duplicates=duplicates)  # type: ignore[arg-type]
            self._checker.rollback()
            queued = [Queued(d, shard_of(d, self.num_shards), doc) for d, doc in _docids(items)]
            self._take_lock()
            if self.adds and self.duplicates != duplicates:
                raise QueryError(
                    f"the queued documents were added with duplicates={json.dumps(self.duplicates)}"
                    f": commit() them before adding with duplicates={json.dumps(duplicates)}"
                )
            self.adds.extend(queued)
            self.duplicates = duplicates  # type: ignore[assignment]

    def delete(self, docids: str | Sequence[str]) -> None:
        with self._mutex:
            wanted = _docid_list(docids)
            self._take_lock()
            live = self._live(wanted)
            queued = {q.docid for q in self.adds}
            for docid in wanted:
                if docid not in queued and not live[docid]:
                    raise UnknownDocidError(
                        f"unknown docid {json.dumps(docid, ensure_ascii=False)}: it is not "
                        "in this index"
                    )
            # Index.delete's queue rules: a queued copy leaves the queue instead.
            for docid in wanted:
                if self.duplicates == "keep":
                    self.adds = [q for q in self.adds if q.docid != docid]
                    if live[docid]:
                        self.deletes.append(docid)
                    continue
                at = next((i for i, q in enumerate(self.adds) if q.docid == docid), None)
                if at is None:
                    self.deletes.append(docid)
                else:
                    del self.adds[at]

    def commit(self, threads: int | None) -> None:
        """Applies the queue (nothing queued: brings ``sharded.json`` up to date if a
        crash left it behind its shards) and releases the lock, whatever happens."""
        with self._mutex:
            try:
                if self.has_changes:
                    self._take_lock()
                    self._commit(threads)
                elif manifest_lags(self.folder):
                    self._take_lock()
                    rewrite_manifest(self.folder)
            finally:
                self.rollback()

    def _commit(self, threads: int | None) -> None:
        adds, deletes = self.adds, self.deletes
        shards = sorted({q.shard for q in adds} | {shard_of(d, self.num_shards) for d in deletes})
        checked = {s: [q.docid for q in adds if q.shard == s] for s in shards}
        answers, _ = self.engine.call("contains", {s: (ids,) for s, ids in checked.items()})
        live = {d: hit for s in shards for d, hit in zip(checked[s], answers[s][1], strict=True)}
        _check_docids(adds, set(deletes), live, self.duplicates)
        changes = {
            s: (
                [d for d in deletes if shard_of(d, self.num_shards) == s],
                [q.doc for q in adds if q.shard == s],
                self.duplicates,
            )
            for s in shards
        }
        # Write-ahead: the manifest announces each shard's change before any shard saves
        # (first catching up with the shards, if a crash left it behind them).
        if manifest_lags(self.folder):
            rewrite_manifest(self.folder)
        manifest = manifest_or_error(self.folder)
        pending = {s: update_id(manifest.shards[s], *changes[s]) for s in shards}
        entries = tuple(replace(e, pending=pending.get(i)) for i, e in enumerate(manifest.shards))
        write_manifest(self.folder, replace(manifest, shards=entries))
        args = {s: (answers[s][0], *changes[s], threads, pending[s]) for s in shards}
        try:
            # A commit may take long: no deadline (a dead replica is still replaced).
            self.engine.call("apply", args, deadline_s=math.inf)
        finally:
            rewrite_manifest(self.folder)  # whatever shards did commit

    def rollback(self) -> None:
        with self._mutex:
            self.adds, self.deletes, self.duplicates = [], [], "error"
            if self.lock is not None:
                lock, self.lock = self.lock, None
                lock.release()

    def _live(self, docids: Sequence[str]) -> dict[str, bool]:
        """Whether each docid is live in its shard's latest saved state."""
        by_shard: dict[int, list[str]] = {}
        for docid in dict.fromkeys(docids):
            by_shard.setdefault(shard_of(docid, self.num_shards), []).append(docid)
        if not by_shard:
            return {}
        answers, _ = self.engine.call("contains", {s: (ids,) for s, ids in by_shard.items()})
        return {
            d: hit for s, ids in by_shard.items() for d, hit in zip(ids, answers[s][1], strict=True)
        }


def _docids(items: Sequence[Any]) -> list[tuple[str, Any]]:
    """``(docid, item)`` of documents :meth:`rserini.Index.add` accepted: a dict's id
    by the JSONL rule, a pair's first item, a :class:`rserini.Document`'s ``docid``."""
    out = []
    for item in items:
        if isinstance(item, dict):
            try:
                docid = document_fields(json.dumps(item, ensure_ascii=False))[0]
            except DocumentError:  # JSON only Python reads (NaN): the id field itself
                docid = next(str(item[k]) for k in DOCID_FIELDS if k in item)
        elif isinstance(item, (tuple, list)):
            docid = item[0]
        else:
            docid = item.docid
        out.append((docid, item))
    return out


def _docid_list(docids: str | Sequence[str]) -> list[str]:
    """:meth:`rserini.Index.delete`'s argument: one docid or a sequence of them."""
    if isinstance(docids, str):
        return [docids]
    if not isinstance(docids, Sequence):
        raise TypeError(f"docids must be a str or a sequence of str, not {type(docids).__name__}")
    for docid in docids:
        if not isinstance(docid, str):
            raise TypeError(f"docids must be str, not {type(docid).__name__}")
    return list(docids)


def _check_docids(
    adds: Sequence[Queued], deleted: set[str], live: dict[str, bool], duplicates: str
) -> None:
    """The checks of one index's commit, over the whole queue, with its positions (the
    core's rule and messages): under ``"error"``, no added docid live and not deleted,
    none twice; none empty."""
    existing = {docid for docid, is_live in live.items() if is_live and docid not in deleted}
    check_added_docids([q.docid for q in adds], duplicates, existing)


def manifest_lags(folder: Path) -> bool:
    """Whether some shard folder holds another state than ``sharded.json`` records, or
    the manifest still announces a change."""
    manifest = manifest_or_error(folder)
    return any(
        s.pending is not None or meta_sha256(folder / s.path) != s.meta_sha256
        for s in manifest.shards
    )


def rewrite_manifest(folder: Path) -> None:
    """Rewrites ``sharded.json`` atomically from what the shard folders hold now: the
    recorded states, or those the announced changes saved (any other is refused)."""
    manifest = manifest_or_error(folder)
    entries = tuple(
        shard_entry(folder / s.path, check_shard(folder, manifest, i))
        for i, s in enumerate(manifest.shards)
    )
    write_manifest(folder, replace(manifest, shards=entries, rserini_version=__version__))
