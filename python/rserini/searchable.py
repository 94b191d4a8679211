"""The searchable shape: what :class:`rserini.Index` and
:class:`rserini.distributed.ShardedIndex` both offer, with the same return types, and
what works on either.

:func:`open_searchable` opens a folder as whichever it holds; :func:`ranked` searches
any searchable, or fuses its BM25 and TF-IDF rankings (``model="rrf"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from rserini._core import Bm25, Hit, Index, rrf
from rserini.exceptions import QueryError
from rserini.folders import FolderKind, check_index_folder
from rserini.retrieval.fusion import candidate_pool

__all__ = ["Explained", "ExplainedTerm", "Model", "Searchable", "open_searchable", "ranked"]

Model = Literal["bm25", "tfidf", "rrf"]


class ExplainedTerm(Protocol):
    """One query term's share of an explained score."""

    @property
    def term(self) -> str: ...
    @property
    def query_tf(self) -> int: ...
    @property
    def df(self) -> int: ...
    @property
    def tf(self) -> int: ...
    @property
    def idf(self) -> float: ...
    @property
    def score(self) -> float: ...


class Explained(Protocol):
    """A score broken down by query term; ``str()`` prints it."""

    @property
    def docid(self) -> str: ...
    @property
    def score(self) -> float: ...
    @property
    def formula(self) -> str: ...
    @property
    def length(self) -> int: ...
    @property
    def seen_length(self) -> float: ...
    @property
    def terms(self) -> Sequence[ExplainedTerm]: ...


@runtime_checkable
class Searchable(Protocol):
    """An index that ranks documents for queries: :class:`rserini.Index`, or a sharded
    index searched as one. Parameters and errors are :class:`rserini.Index`'s; a
    sharded index's lists also say which shards answered (``missing_shards``)."""

    def search(
        self,
        query: str,
        k: int = 10,
        *,
        scoring: Bm25 | None = None,
        algorithm: str = "auto",
        **options: Any,
    ) -> list[Hit]:
        """The ``k`` best documents for ``query``, best first."""
        ...

    def search_pairs(
        self,
        query: str,
        k: int = 10,
        *,
        scoring: Bm25 | None = None,
        algorithm: str = "auto",
        **options: Any,
    ) -> list[tuple[str, float]]:
        """:meth:`search` as ``(docid, score)`` pairs."""
        ...

    def batch_search(
        self,
        queries: Sequence[str],
        k: int = 1000,
        *,
        threads: int | None = None,
        scoring: Bm25 | None = None,
        algorithm: str = "auto",
        **options: Any,
    ) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.float32]]:
        """Every query's top ``k`` as ``(ids, scores)``, two arrays of shape
        ``(len(queries), min(k, N))``: int32 ids (``-1`` padding) that :meth:`docids`
        maps to docids, and float32 scores (``-inf`` padding)."""
        ...

    def batch_search_pairs(
        self,
        queries: Sequence[str],
        k: int = 1000,
        *,
        threads: int | None = None,
        scoring: Bm25 | None = None,
        algorithm: str = "auto",
        **options: Any,
    ) -> list[list[tuple[str, float]]]:
        """Every query's top ``k`` as ``(docid, score)`` pairs, in input order."""
        ...

    def docids(self, ids: npt.ArrayLike) -> list[str] | list[list[str]]:
        """The docids of :meth:`batch_search`'s ids (1-D or 2-D, ``-1`` skipped)."""
        ...

    def explain(
        self, query: str, docid: str, *, scoring: Bm25 | None = None, **options: Any
    ) -> Explained:
        """``docid``'s score for ``query``, term by term."""
        ...


def open_searchable(path: str | Path, *, cache: bool | str | Path = True) -> Searchable:
    """The index in ``path``, or the sharded index (searched as one) if it is one; a
    missing, empty or foreign folder is :func:`rserini.folders.check_index_folder`'s
    error, which says what it is. ``cache`` is :meth:`rserini.Index.load`'s, for a
    Lucene folder."""
    path = Path(path)
    if check_index_folder(path) is FolderKind.SHARDED:
        from rserini.distributed import ShardedIndex

        return ShardedIndex.open(path)
    return Index.load(path, cache=cache)


def ranked(
    index: Searchable, query: str, k: int = 10, *, model: Model = "bm25", **params: Any
) -> list[tuple[str, float]]:
    """``(docid, score)`` of the ``k`` best documents, best first.

    ``model`` is ``"bm25"`` or ``"tfidf"`` (:meth:`~Searchable.search_pairs` with
    ``params``), or ``"rrf"``: the BM25 ranking (with ``params``) and the TF-IDF ranking,
    each :func:`~rserini.retrieval.fusion.candidate_pool` deep (``max(10 k, 50)``),
    fused by :func:`rserini.rrf` (k = 60); the score is then the fused one.
    """
    if model != "rrf":
        return index.search_pairs(query, k, model=model, **params)
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(f"k must be an int, not {type(k).__name__}")
    if k < 1:
        raise QueryError(f"k must be a positive number of hits (got {k})")
    depth = candidate_pool(k)
    bm25 = index.search_pairs(query, depth, model="bm25", **params)
    tfidf = index.search_pairs(query, depth, model="tfidf")
    fused = rrf([[d for d, _ in bm25], [d for d, _ in tfidf]])
    return [(str(docid), score) for docid, score in fused[:k]]
