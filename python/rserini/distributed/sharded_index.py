"""A sharded index searched as one: statistics first, then the shards' top k.

Each search runs two rounds, as Elasticsearch's ``dfs_query_then_fetch``:

1. every shard reports its collection statistics (documents, documents with a
   term, total terms) and the live document frequency of each analyzed query
   term; the coordinator sums them (cached per term for the current vector of
   shard generations, so a term is asked for once);
2. every shard searches its own documents scoring with those sums, pinned to the
   generations they were summed for, and the rankings are merged by
   :func:`rserini.merge_topk` under the index's order (score descending, then
   docid ascending).

Each shard thus scores a document exactly as one index of the whole collection
would (idf, avgdl and N are derived from the same integers), and the merged
ranking is the single index's, bit for bit, ties included. A shard that answers
round 2 at another generation makes the coordinator gather the statistics again.

``add``, ``delete``, ``commit`` and ``rollback`` change the documents as
:class:`rserini.Index`'s do, each document in the shard its docid's hash names
(:mod:`rserini.distributed.updates`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy.typing as npt

from rserini._core import Bm25, GlobalStats, Hit, check_query, merge_topk
from rserini.distributed.engine import Engine, EngineName, open_engine
from rserini.distributed.manifest import analyzer_from_config
from rserini.distributed.open_shards import check_shards, manifest_or_error
from rserini.distributed.options import ServeOptions
from rserini.distributed.partition import shard_of
from rserini.distributed.results import (
    ResultIds,
    ShardedBatch,
    ShardedResult,
    ShardExplanation,
)
from rserini.distributed.stats_cache import StatsCache
from rserini.distributed.updates import ShardedWriter
from rserini.exceptions import QueryError, RseriniError

#: Times a search gathers the statistics again when shards change generation under it.
MAX_ROUNDS = 4

Pairs = list[tuple[str, float]]


class ShardedIndex:
    """The shards of a folder written by :func:`rserini.distributed.build_shards`,
    searched as one index. Open it with :meth:`open`."""

    def __init__(self, path: Path, engine: Engine, analyzer_config: dict[str, Any]) -> None:
        self.path = path
        self.engine = engine
        self.num_shards = engine.num_shards
        self.analyzer = analyzer_from_config(analyzer_config)
        self._cache = StatsCache()
        self._writer: ShardedWriter | None = None
        #: How many times round 1 ran (cache misses and generation changes).
        self.stats_rounds = 0

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        *,
        replicas: int = 1,
        engine: EngineName = "local",
        address: str | None = None,
        threads: int | None = None,
        mmap: bool = True,
        deadline_s: float = 30.0,
        max_restarts: int = 3,
        num_cpus: float = 0.1,
    ) -> ShardedIndex:
        """Opens a sharded index after checking every shard against ``sharded.json``.

        ``engine="local"`` loads the shards in this process; ``engine="ray"`` starts
        ``replicas`` actors per shard on the Ray cluster at ``address`` (``"auto"``:
        the running one; each reserves ``num_cpus`` CPUs, a small share by default so
        that many shards fit, and is restarted up to ``max_restarts`` times), spread
        over the nodes. A shard request that is not answered within ``deadline_s``
        seconds, or whose actor died, goes to the next replica. ``threads`` are each
        shard's search threads.

        Raises
        ------
        FileNotFoundError
            If ``path`` holds no ``sharded.json``.
        IndexCorruptedError
            If the manifest is damaged or does not match the shards (one missing,
            unlisted, from another build, or with another analyzer).
        ImportError
            For ``engine="ray"`` without Ray installed (``pip install "rserini[ray]"``).
        """
        folder = Path(path)
        manifest = manifest_or_error(folder)
        check_shards(folder, manifest)
        options = ServeOptions(replicas, address, threads, mmap, deadline_s, max_restarts, num_cpus)
        served = open_engine(engine, [folder / s.path for s in manifest.shards], options)
        return cls(folder, served, manifest.analyzer)

    def __enter__(self) -> ShardedIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Discards changes not committed (releasing the writer lock) and releases the
        shards (stops the Ray actors)."""
        if self._writer is not None:
            self._writer.rollback()
        self.engine.close()

    def refresh(self) -> None:
        """Makes every shard serve its folder's latest generation (after a commit to a
        shard); the next search notices and gathers the statistics again."""
        self.engine.refresh()

    # -- Index's writer methods ------------------------------------------------

    def _writing(self) -> ShardedWriter:
        """The queue of changes, opened at the first change."""
        if self._writer is None:
            self._writer = ShardedWriter(self.path, self.engine)
        return self._writer

    def add(self, docs: Iterable[Any], *, duplicates: Literal["error", "keep"] = "error") -> None:
        """:meth:`rserini.Index.add`: queues documents to add at the next :meth:`commit`,
        each to the shard its docid's hash names (:func:`~rserini.distributed.shard_of`),
        and takes the sharded folder's writer lock. The documents and ``duplicates``
        are checked as ``Index.add`` checks them; docids at :meth:`commit`.

        Raises
        ------
        TypeError
            For an item that is neither a pair nor a dict, or non-str fields.
        DocumentError
            For a document without an id or a text.
        QueryError
            For an unknown ``duplicates`` policy, or one other than the queued
            documents'.
        IndexLockedError
            If another writer holds the folder, or this process was forked from the
            process that took the lock.
        """
        self._writing().add(docs, duplicates)

    def delete(self, docids: str | Sequence[str]) -> None:
        """:meth:`rserini.Index.delete`: queues documents to delete at the next
        :meth:`commit` (every copy of a docid); takes the writer lock.

        Raises
        ------
        UnknownDocidError
            For a docid that is neither in the index nor queued (nothing is queued).
        TypeError
            If ``docids`` is not a str or a sequence of str.
        IndexLockedError
            As for :meth:`add`.
        """
        self._writing().delete(docids)

    def commit(self, *, threads: int | None = None) -> None:
        """:meth:`rserini.Index.commit`: applies the queued changes, shard by shard
        (deletions, then additions), saves each changed shard crash-safely at its next
        generation, rewrites ``sharded.json`` atomically, releases the writer lock, and
        serves the new generations (every Ray replica reloads). A failed commit
        discards the queued changes; a duplicate docid fails it before any shard
        changes. With nothing queued, it serves the folder's latest generations and
        brings a ``sharded.json`` that a crash left behind its shards up to date.

        Raises
        ------
        DocumentError
            For an added docid already in the index or given twice (under
            ``duplicates="error"``), or an empty one; no shard is changed.
        IndexLockedError
            If another writer holds the folder.
        """
        try:
            self._writing().commit(threads)
        finally:
            self._cache.forget()
            self.engine.refresh()

    def rollback(self) -> None:
        """:meth:`rserini.Index.rollback`: discards the queued changes and releases the
        writer lock."""
        if self._writer is not None:
            self._writer.rollback()

    @property
    def has_pending_changes(self) -> bool:
        """Whether changes are waiting for :meth:`commit`."""
        return self._writer is not None and self._writer.has_changes

    def clear_stats_cache(self) -> None:
        """Forgets the summed statistics: the next search gathers them again."""
        self._cache.forget()

    # -- the two rounds -------------------------------------------------------

    def _round1(
        self, terms: set[str], cfs: bool, allow_partial: bool
    ) -> tuple[dict[int, int], GlobalStats, tuple[int, ...]]:
        """The generation of each answering shard, the summed statistics of ``terms``
        (with collection frequencies if ``cfs``) and the shards that did not answer."""
        everyone = range(self.num_shards)
        for _ in range(MAX_ROUNDS):
            need = self._cache.missing(terms, cfs)
            cached = None if need else self._cache.stats(terms, cfs)
            if cached is not None:
                generations, stats = cached
                return dict(enumerate(generations)), stats, ()
            ask = sorted(need)
            answers, missing = self.engine.call(
                "round1", {s: (ask, cfs) for s in everyone}, allow_partial=allow_partial
            )
            self.stats_rounds += 1
            if missing:  # partial statistics: never cached
                if len(ask) < len(terms):
                    answers, missing = self.engine.call(
                        "round1", {s: (sorted(terms), cfs) for s in everyone}, allow_partial=True
                    )
                total = GlobalStats.sum([s for _, s in answers.values()])
                return {s: g for s, (g, _) in answers.items()}, total, missing
            # At new generations the cache starts afresh: the next turn asks for the
            # terms asked before them.
            self._cache.add(answers)
        raise RseriniError(
            f"the shards of {self.path} changed generation {MAX_ROUNDS} times while their "
            "statistics were gathered; try again once they are stable"
        )

    def _search(
        self,
        queries: Sequence[str],
        k: int,
        options: dict[str, Any],
        threads: int | None,
        allow_partial: bool,
    ) -> tuple[list[Pairs], tuple[int, ...], int]:
        """Every query's merged ranking, the shards that did not answer, and the live
        documents of those that did."""
        _refuse_tfidf(options)
        terms = {t for query in self.analyzer.analyze_batch(list(queries)) for t in query}
        for _ in range(MAX_ROUNDS):
            generations, stats, missing1 = self._round1(terms, _qld(options), allow_partial)
            args = {
                s: (g, list(queries), k, stats, {**options, **_threads(threads)})
                for s, g in generations.items()
            }
            answers, missing2 = self.engine.call("round2", args, allow_partial=allow_partial)
            if any(result is None for _, result in answers.values()):
                self._cache.forget()  # some shard moved on: gather again
                continue
            parts = [answers[s][1] for s in sorted(answers)]
            missing = tuple(sorted({*missing1, *missing2}))
            return _merged(parts, k, len(queries)), missing, stats.documents
        raise RseriniError(
            f"the shards of {self.path} changed generation {MAX_ROUNDS} times during one "
            "search; try again once they are stable"
        )

    # -- Index's search methods -------------------------------------------------

    def search(
        self,
        query: str,
        k: int = 10,
        *,
        scoring: Bm25 | None = None,
        algorithm: str = "auto",
        allow_partial: bool = False,
        **options: Any,
    ) -> ShardedResult[Hit]:
        """:meth:`rserini.Index.search` over every shard: the hits one index of all the
        documents would give, with the same scores and order. With ``allow_partial``,
        shards without a live replica are left out and listed in the result's
        ``missing_shards`` instead of raising
        :class:`~rserini.exceptions.ShardUnavailableError`."""
        pairs = self.search_pairs(
            query, k, scoring=scoring, algorithm=algorithm, allow_partial=allow_partial, **options
        )
        hits = [Hit(docid, score, rank) for rank, (docid, score) in enumerate(pairs, 1)]
        return ShardedResult(hits, pairs.missing_shards)

    def search_pairs(
        self,
        query: str,
        k: int = 10,
        *,
        scoring: Bm25 | None = None,
        algorithm: str = "auto",
        allow_partial: bool = False,
        **options: Any,
    ) -> ShardedResult[tuple[str, float]]:
        """:meth:`search` as ``(docid, score)`` pairs."""
        if not isinstance(query, str):
            raise TypeError(f"query must be a str, not {type(query).__name__}")
        check_query(query)  # as Index.search_pairs refuses it
        rows, missing, _ = self._search(
            [query], k, _opts(scoring, algorithm, options), 1, allow_partial
        )
        return ShardedResult(rows[0], missing)

    def batch_search_pairs(
        self,
        queries: Sequence[str],
        k: int = 1000,
        *,
        threads: int | None = None,
        scoring: Bm25 | None = None,
        algorithm: str = "auto",
        allow_partial: bool = False,
        **options: Any,
    ) -> ShardedResult[Pairs]:
        """:meth:`rserini.Index.batch_search_pairs` over every shard: one ranking per
        query, in input order (``[]`` for an empty query); ``threads`` per shard."""
        rows, missing, _ = self._search(
            list(queries), k, _opts(scoring, algorithm, options), threads, allow_partial
        )
        return ShardedResult(rows, missing)

    def batch_search(
        self,
        queries: Sequence[str],
        k: int = 1000,
        *,
        threads: int | None = None,
        scoring: Bm25 | None = None,
        algorithm: str = "auto",
        allow_partial: bool = False,
        **options: Any,
    ) -> ShardedBatch:
        """:meth:`rserini.Index.batch_search` over every shard: ``(ids, scores)``, two
        arrays of shape ``(len(queries), min(k, N))`` for ``N`` live documents, int32 ids
        (``-1`` padding) and float32 scores (``-inf`` padding); :meth:`docids` maps the
        ids to docids. Shards share no internal ids, so the ids number the result's own
        documents and are read through the array (or a view of it) only."""
        rows, missing, documents = self._search(
            list(queries), k, _opts(scoring, algorithm, options), threads, allow_partial
        )
        return ResultIds(rows, min(k, documents)).batch(missing)

    def docids(self, ids: npt.ArrayLike) -> list[str] | list[list[str]]:
        """:meth:`rserini.Index.docids` of :meth:`batch_search`'s ids (1-D or 2-D,
        ``-1`` skipped): read through the result that gave them, so a copy or a list
        of ids is a ``ValueError``."""
        return ResultIds.docids_of(ids)

    def explain(
        self, query: str, docid: str, *, scoring: Bm25 | None = None, **options: Any
    ) -> ShardExplanation:
        """:meth:`rserini.Index.explain` with the whole collection's statistics, asked
        of the shard the docid's hash names; the explanation has the core's fields, and
        ``str()`` prints what the core's prints."""
        options = _opts(scoring, None, options)
        _refuse_tfidf(options)
        shard = shard_of(docid, self.num_shards)
        terms = set(self.analyzer.analyze(query))
        for _ in range(MAX_ROUNDS):
            generations, stats, _ = self._round1(terms, _qld(options), False)
            answers, _ = self.engine.call(
                "explain", {shard: (generations[shard], query, docid, stats, options)}
            )
            result = answers[shard][1]
            if result is not None:
                return result
            self._cache.forget()
        raise RseriniError(f"shard {shard} of {self.path} kept changing generation")

    def docs(self, docids: Sequence[str]) -> list[dict[str, object] | None]:
        """The stored fields of each docid (as :meth:`rserini.Index.doc`), asked of the
        shard its hash names; ``None`` for a docid not in the index, or for every docid
        when the shards store no documents."""
        positions: dict[int, list[int]] = {}
        for i, docid in enumerate(docids):
            positions.setdefault(shard_of(docid, self.num_shards), []).append(i)
        if not positions:
            return []
        answers, _ = self.engine.call(
            "docs", {shard: ([docids[i] for i in at],) for shard, at in positions.items()}
        )
        found: list[dict[str, object] | None] = [None] * len(docids)
        for shard, at in positions.items():
            for i, doc in zip(at, answers[shard], strict=True):
                found[i] = doc
        return found

    def __repr__(self) -> str:
        return f"ShardedIndex({str(self.path)!r}, shards={self.num_shards})"


def _opts(scoring: Bm25 | None, algorithm: str | None, options: dict[str, Any]) -> dict[str, Any]:
    out = dict(options)
    if scoring is not None:
        out["scoring"] = scoring
    if algorithm is not None:
        out["algorithm"] = algorithm
    return out


def _threads(threads: int | None) -> dict[str, int]:
    return {} if threads is None else {"threads": threads}


def _qld(options: dict[str, Any]) -> bool:
    """Whether the search is query likelihood, which needs collection frequencies."""
    return bool(options.get("model") == "qld")


def _refuse_tfidf(options: dict[str, Any]) -> None:
    if options.get("model") == "tfidf":
        raise QueryError(
            "model='tfidf' cannot search a sharded index exactly: its document norms "
            "need the global df of every term of every document, not only the query's; "
            "use bm25 or qld, or merge_shards() into one index"
        )


def _merged(parts: list[Any], k: int, num_queries: int) -> list[Pairs]:
    if not parts:  # every shard missing (allow_partial)
        return [[] for _ in range(num_queries)]
    merged = merge_topk(parts, k)
    rows = merged.to_pairs() if hasattr(merged, "to_pairs") else merged
    if len(rows) != num_queries:  # pragma: no cover - a broken core
        raise RseriniError(f"merge_topk gave {len(rows)} rankings for {num_queries} queries")
    return [list(row) for row in rows]
