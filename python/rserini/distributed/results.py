"""Results of a sharded search that say whether every shard answered."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import numpy as np
import numpy.typing as npt

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


class ShardedBatch(tuple[npt.NDArray[np.int32], npt.NDArray[np.float32]]):
    """``(ids, scores)`` of a sharded ``batch_search``, as :meth:`rserini.Index.batch_search`
    gives them, with the shards that did not answer (``missing_shards``, as
    :class:`ShardedResult`)."""

    missing_shards: tuple[int, ...]

    def __new__(
        cls,
        ids: npt.NDArray[np.int32],
        scores: npt.NDArray[np.float32],
        missing_shards: tuple[int, ...] = (),
    ) -> ShardedBatch:
        batch = super().__new__(cls, (ids, scores))
        batch.missing_shards = missing_shards
        return batch

    @property
    def partial(self) -> bool:
        """Whether some shard did not answer."""
        return bool(self.missing_shards)


class ResultIds:
    """The owner of a sharded ``batch_search``'s ids array: the ids and the docids they
    number. Shards share no internal ids, so a result numbers its own documents (id
    ``i`` is the ``i``-th distinct docid of the result); the array is a view of this
    object, and views and slices of it keep the binding through numpy's ``base`` chain,
    as :meth:`rserini.Index.batch_search`'s ids keep their snapshot."""

    def __init__(self, rows: Sequence[Sequence[tuple[str, float]]], width: int) -> None:
        numbers: dict[str, int] = {}
        self._ids = np.full((len(rows), width), -1, dtype=np.int32)
        self.scores = np.full((len(rows), width), -np.inf, dtype=np.float32)
        for i, row in enumerate(rows):
            for j, (docid, score) in enumerate(row[:width]):
                self._ids[i, j] = numbers.setdefault(docid, len(numbers))
                self.scores[i, j] = score
        self.docids = list(numbers)

    @property
    def __array_interface__(self) -> dict[str, Any]:
        return self._ids.__array_interface__

    def batch(self, missing_shards: tuple[int, ...]) -> ShardedBatch:
        """The ids (a view of this object) and scores."""
        return ShardedBatch(np.asarray(self), self.scores, missing_shards)

    @staticmethod
    def docids_of(ids: npt.ArrayLike) -> list[str] | list[list[str]]:
        """The docids of ``ids`` (1-D or 2-D, ``-1`` skipped), read through the result
        that numbered them.

        Raises
        ------
        ValueError
            For ids not bound to a sharded result (a list, a copy), whose numbers name
            no document, or an id (other than ``-1``) the result did not give.
        """
        owner = ids
        while owner is not None and not isinstance(owner, ResultIds):
            owner = getattr(owner, "base", None)
        if owner is None:
            raise ValueError(
                "a sharded index has no internal ids common to its shards: give the ids "
                "array batch_search returned (or a view of it), not a copy or a list"
            )
        array = np.asarray(ids)
        if array.ndim not in (1, 2):
            raise ValueError(f"ids must be 1-D or 2-D, not {array.ndim}-D")
        names = owner.docids

        def row(values: list[int]) -> list[str]:
            for i in values:
                if not -1 <= i < len(names):
                    raise ValueError(f"internal id {i} is not in this result")
            return [names[i] for i in values if i != -1]

        values = array.astype(np.int64).tolist()
        return row(values) if array.ndim == 1 else [row(r) for r in values]


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
