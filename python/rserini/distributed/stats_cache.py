"""Round 1's answers, summed over the shards and kept per shard generations.

The statistics of a sharded index are the sums of its shards' integers: document
counts, total terms, each term's document frequency and, for query likelihood,
its collection frequency (a pass over its postings, so gathered only when a
search needs it), in unbounded Python
integers (a sum never wraps; the core takes them as u64). A sum is valid for one
vector of shard generations only, the key of the cache: a shard that moves to
another generation makes every cached sum useless, so the cache keeps one
vector's sums and starts afresh when it changes.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping

from rserini._core import GlobalStats

#: Terms kept before the cache starts afresh (bounds its memory).
MAX_TERMS = 1 << 20


class StatsCache:
    """Collection totals, term dfs and cfs summed over the shards, for one generation
    vector."""

    def __init__(self, max_terms: int = MAX_TERMS) -> None:
        self._lock = threading.Lock()
        self._max_terms = max_terms
        self.generations: tuple[int, ...] | None = None
        self._totals: tuple[int, int, int] | None = None
        self._dfs: dict[str, int] = {}
        self._cfs: dict[str, int] = {}

    def missing(self, terms: Iterable[str], cfs: bool) -> set[str]:
        """The ``terms`` whose df (and cf, with ``cfs``) the cache cannot give for its
        current generations (all of them before the first gathering)."""
        with self._lock:
            if self.generations is None:
                return set(terms)
            known = self._cfs if cfs else self._dfs
            return {t for t in terms if t not in known}

    def add(self, answers: Mapping[int, tuple[int, GlobalStats]]) -> None:
        """Sums one round-1 answer per shard into the cache. Answers at other
        generations than the cached ones empty the cache first."""
        generations = tuple(g for _, (g, _) in sorted(answers.items()))
        total = GlobalStats.sum([s for _, s in answers.values()])
        with self._lock:
            kept = generations == self.generations
            if not kept or len(self._dfs) > self._max_terms:
                self._dfs, self._cfs = {}, {}
            self.generations = generations
            self._totals = (total.documents, total.documents_with_terms, total.total_terms)
            self._dfs.update(total.dfs)
            self._cfs.update(total.cfs)

    def stats(self, terms: Iterable[str], cfs: bool) -> tuple[tuple[int, ...], GlobalStats] | None:
        """The generations and the summed statistics for ``terms`` (with their cfs, with
        ``cfs``), or ``None`` if the cache does not hold them all (another thread may
        have emptied it)."""
        with self._lock:
            if self.generations is None or self._totals is None:
                return None
            try:
                dfs = {t: self._dfs[t] for t in terms}
                cf = {t: self._cfs[t] for t in terms} if cfs else None
            except KeyError:
                return None
            return self.generations, GlobalStats(*self._totals, dfs, cf)

    def forget(self) -> None:
        """Drops everything (the next search gathers the statistics again)."""
        with self._lock:
            self.generations, self._totals, self._dfs, self._cfs = None, None, {}, {}
