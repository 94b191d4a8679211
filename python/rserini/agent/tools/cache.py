"""The per-session cache of rankings behind ``search_id``.

Each ``search`` stores its whole ranking under ``s1``, ``s2``, ... (never reused); pages are
slices of it. pi-search keeps 32 entries and evicts the oldest *inserted* one (FIFO: reading
an entry does not keep it), after which the id is as unknown as one never issued. With
``policy="lru"`` a read refreshes an entry instead, and the cache remembers which ids it
evicted so the tool can say so.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["CACHE_SIZE", "CachePolicy", "CachedSearch", "SearchCache"]

CACHE_SIZE = 32
CachePolicy = Literal["fifo", "lru"]


@dataclass
class CachedSearch:
    """One cached ranking: docids and scores (rounded as shown) best first, and the
    previews rendered so far, by 0-based position."""

    search_id: str
    raw_query: str
    docids: list[str]
    scores: list[float]
    query_mode: str = "plain"
    previews: dict[int, dict[str, object]] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.docids)


class SearchCache:
    """Rankings by ``search_id``, at most ``capacity`` of them."""

    def __init__(self, capacity: int = CACHE_SIZE, policy: CachePolicy = "fifo") -> None:
        if capacity < 1:
            raise ValueError(f"the cache must hold at least one ranking (got {capacity})")
        if policy not in ("fifo", "lru"):
            raise ValueError(f"cache policy must be 'fifo' or 'lru' (got {policy!r})")
        self.capacity = capacity
        self.policy: CachePolicy = policy
        self._entries: OrderedDict[str, CachedSearch] = OrderedDict()
        self._evicted: set[str] = set()
        self._counter = 0

    def add(self, raw_query: str, docids: list[str], scores: list[float]) -> CachedSearch:
        """Caches a ranking under the next id, evicting beyond capacity."""
        self._counter += 1
        entry = CachedSearch(f"s{self._counter}", raw_query, docids, scores)
        self._entries[entry.search_id] = entry
        while len(self._entries) > self.capacity:
            old, _ = self._entries.popitem(last=False)
            self._evicted.add(old)
        return entry

    def get(self, search_id: str) -> CachedSearch | None:
        """The entry, or ``None`` if unknown or evicted (an LRU read refreshes it)."""
        entry = self._entries.get(search_id)
        if entry is not None and self.policy == "lru":
            self._entries.move_to_end(search_id)
        return entry

    def was_evicted(self, search_id: str) -> bool:
        """Whether ``search_id`` was issued and then evicted."""
        return search_id in self._evicted

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, search_id: object) -> bool:
        return search_id in self._entries
