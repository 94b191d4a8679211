"""One shard's side of the two search rounds.

A :class:`ShardServer` answers for the documents of one shard folder, in this
process (``engine="local"``) or inside a Ray actor (``engine="ray"``). Every
answer carries the generation of the snapshot that produced it; a round-2 or
explain request pinned to another generation is not answered (its result is
``None``), since statistics summed for one snapshot would score another wrongly:
the coordinator then redoes round 1. Both rounds only read, so a request can be
repeated on any replica of the shard and gives the same answer.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rserini._core import GlobalStats, Index
from rserini.distributed.manifest import with_update
from rserini.distributed.results import ShardExplanation


class ShardServer:
    """Serves one saved shard; safe to call from several threads."""

    def __init__(self, path: str, *, mmap: bool = True, threads: int | None = None) -> None:
        self.path = path
        self.mmap = mmap
        self.threads = threads
        index = Index.load(path, mmap=mmap)
        # One attribute, swapped whole: a request reads an index and its generation
        # from the same snapshot even while refresh() replaces it.
        self.snapshot = (index, _generation(index))

    @property
    def generation(self) -> int:
        return self.snapshot[1]

    def refresh(self) -> int:
        """Reopens the shard if its folder holds a newer generation; returns the
        generation served from now on."""
        if _folder_generation(self.path) != self.generation:
            index = Index.load(self.path, mmap=self.mmap)
            self.snapshot = (index, _generation(index))
        return self.generation

    def round1(self, terms: Sequence[str], cfs: bool = False) -> tuple[int, GlobalStats]:
        """The collection statistics and the live dfs of the analyzed ``terms`` (and
        their collection frequencies, with ``cfs``: query likelihood's)."""
        index, generation = self.snapshot
        base = index.collection_stats()
        dfs = dict(zip(terms, index.term_dfs(list(terms)), strict=True))
        cf = dict(zip(terms, index.term_cfs(list(terms)), strict=True)) if cfs else None
        stats = GlobalStats(base.documents, base.documents_with_terms, base.total_terms, dfs, cf)
        return generation, stats

    def round2(
        self,
        generation: int,
        queries: Sequence[str],
        k: int,
        stats: GlobalStats,
        options: dict[str, Any],
    ) -> tuple[int, Any]:
        """The top ``k`` of each query in this shard, scored with ``stats``, as
        :class:`rserini.Columns`; ``None`` if this shard serves another generation."""
        index, current = self.snapshot
        if current != generation:
            return current, None
        options = {"threads": self.threads, **options}  # a request's threads win
        return generation, index.batch_search_columns(list(queries), k, stats=stats, **options)

    def explain(
        self,
        generation: int,
        query: str,
        docid: str,
        stats: GlobalStats,
        options: dict[str, Any],
    ) -> tuple[int, ShardExplanation | None]:
        """``Index.explain`` with ``stats``; ``None`` if this shard serves another
        generation."""
        index, current = self.snapshot
        if current != generation:
            return current, None
        return generation, ShardExplanation.of(index.explain(query, docid, stats=stats, **options))

    def docs(self, docids: Sequence[str]) -> list[dict[str, object] | None]:
        """The stored fields of each docid (:meth:`rserini.Index.doc`); ``None`` for one
        that is not live here or when the shard stores no documents."""
        index, _ = self.snapshot
        if not index.stats().store_bytes:
            return [None] * len(docids)
        return [index.doc(docid) if docid in index else None for docid in docids]

    # -- writing (a sharded index's commit; see rserini.distributed.updates) ----

    def contains(self, docids: Sequence[str]) -> tuple[int, list[bool]]:
        """The folder's latest generation, served from now on, and whether each docid
        is live in it: what a writer checks its queued changes against."""
        self.refresh()
        index, generation = self.snapshot
        return generation, [docid in index for docid in docids]

    def apply(
        self,
        generation: int,
        deletes: Sequence[str],
        adds: Sequence[Any],
        duplicates: str,
        threads: int | None,
        update: str,
    ) -> int:
        """Commits ``deletes`` then ``adds`` (checked beforehand by the coordinator)
        on top of ``generation``, recording the change's id ``update`` (which the
        manifest announces) in the shard's ``meta.json``, and returns the folder's new
        generation.

        Idempotent, so that a request whose replica died can be sent to another: the
        coordinator holds the sharded index's writer lock, so a folder already past
        ``generation`` holds this very change, saved by an earlier try."""
        loaded = Index.load(self.path, mmap=self.mmap)
        if _generation(loaded) != generation:
            return _generation(loaded)
        writer = loaded._with_source(with_update(loaded.source, update))
        if deletes:
            writer.delete(list(deletes))
        if adds:
            writer.add(adds, duplicates=duplicates)  # type: ignore[arg-type]
        writer.commit(threads=threads)
        return _generation(writer)


def _generation(index: Index) -> int:
    return int(index.info()["generation"])


def _folder_generation(path: str) -> int:
    meta = json.loads((Path(path) / "meta.json").read_text(encoding="utf-8"))
    return int(meta["generation"])
