"""Results of a sharded search that say whether every shard answered."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from rserini._core import Explanation

T = TypeVar("T")


class ShardedResult(list[T], Generic[T]):
    """A list of results (hits, pairs or rankings) with the shards that did not answer.

    ``missing_shards`` is empty unless the search ran with ``allow_partial=True`` and
    some shard had no live replica; the result is then ``partial``: the documents of
    those shards are absent and the scores use the statistics of the shards that
    answered, so they are not the single index's.
    """

    missing_shards: tuple[int, ...]

    def __init__(self, items: list[T], missing_shards: tuple[int, ...] = ()) -> None:
        super().__init__(items)
        self.missing_shards = missing_shards

    @property
    def partial(self) -> bool:
        """Whether some shard did not answer."""
        return bool(self.missing_shards)

    def __repr__(self) -> str:
        flag = f", missing_shards={self.missing_shards}" if self.missing_shards else ""
        return f"ShardedResult({list.__repr__(self)}{flag})"


@dataclass(frozen=True)
class TermShare:
    """One query term's share of a score (:class:`rserini.TermExplanation`'s fields)."""

    term: str
    query_tf: int
    df: int
    tf: int
    idf: float
    score: float


@dataclass(frozen=True)
class ShardExplanation:
    """:class:`rserini.Explanation`'s fields as a plain value, which (unlike the core's
    object) pickles, so that a shard in another process can send it; ``str()`` prints
    what the core's ``str()`` printed."""

    docid: str
    score: float
    formula: str
    length: int
    seen_length: float
    terms: tuple[TermShare, ...]
    text: str

    @classmethod
    def of(cls, e: Explanation) -> ShardExplanation:
        terms = tuple(TermShare(t.term, t.query_tf, t.df, t.tf, t.idf, t.score) for t in e.terms)
        return cls(e.docid, e.score, e.formula, e.length, e.seen_length, terms, str(e))

    def __str__(self) -> str:
        return self.text
