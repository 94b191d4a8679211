"""Retrievers: agentic-retrieval's ``retrieval.retrievers``, lexical part.

:class:`LexicalRetriever` fuses a TF-IDF and a BM25 ranking of every document with
reciprocal-rank fusion, exactly as agentic-retrieval's pure-Python class does (same
constructor, attributes, rankings, padding, errors and ``to_dict`` schema 3), with the
scoring in the Rust core: each document is analyzed once, only the documents sharing a
query term are scored and sorted, and the GIL is released while searching.

Out of scope here: the optional retrievers of the reference (``lexical+ctx``, ``turbovec``,
``pi-serini``, ``hybrid``, ``treesitter``), which need an LLM, embeddings, Java or
tree-sitter, and its ``persistence`` module (cache folders, fingerprints, ``meta.json``).
``to_dict`` / ``from_dict`` read and write that module's ``lexical.json`` data, and
subclasses that override :meth:`LexicalRetriever.index` work as in the reference.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from typing import Any, Protocol, TypeVar, runtime_checkable

from rserini._core import (
    _lexical_fit,
    _lexical_load,
    _lexical_save,
    _lexical_search,
    _lexical_units,
)
from rserini.exceptions import IndexCorruptedError
from rserini.retrieval.bm25 import BM25Index
from rserini.retrieval.document import Document, SearchHit
from rserini.retrieval.tfidf import TfidfIndex

__all__ = [
    "REGISTRY",
    "LexicalRetriever",
    "Retriever",
    "build_retriever",
    "resolve_ctor_kwargs",
]

_FORMAT = "rserini-lexical"
_R = TypeVar("_R", bound="LexicalRetriever")


@runtime_checkable
class Retriever(Protocol):
    """What every retriever offers: a ``name``, ``index``, ``search`` (docids, best first)
    and ``search_detailed`` (:class:`SearchHit` objects)."""

    name: str

    def index(self, documents: list[Document]) -> None: ...

    def search(self, query: str, top_k: int) -> list[str]: ...

    def search_detailed(self, query: str, top_k: int) -> list[SearchHit]: ...


def _units_from_documents(documents: list[Document]) -> list[dict[str, Any]]:
    """One ``{docid, source_path, start_line, end_line, context}`` dict per document.

    Raises:
        TypeError: For an item without ``docid`` and ``text``, or a field of the wrong type.
    """
    return _lexical_units(documents)[1]


#: A unit's fields and the types each may hold (``context`` may be missing).
_UNIT_FIELDS: dict[str, tuple[type, ...]] = {
    "docid": (str,),
    "source_path": (str,),
    "start_line": (int, type(None)),
    "end_line": (int, type(None)),
    "context": (str,),
}


def _finite(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _unit_ok(unit: object, docid: object) -> bool:
    return (
        isinstance(unit, dict)
        and unit.keys() >= _UNIT_FIELDS.keys() - {"context"}
        and all(isinstance(unit[k], t) for k, t in _UNIT_FIELDS.items() if k in unit)
        and unit["docid"] == docid
    )


def _inconsistency(k1: object, b: object, docids: object, units: object, n_docs: int) -> str | None:
    """What makes a retriever's parameters, docids and units unusable with arms of
    ``n_docs`` documents, or ``None``: the one check of every loader."""
    for name, value in (("k1", k1), ("b", b)):
        if not _finite(value):
            return f"{name} is {value!r}, not a finite number"
    if not (isinstance(docids, list) and all(isinstance(d, str) for d in docids)):
        return "docids is not a list of strings"
    if not isinstance(units, list) or len(docids) != n_docs or len(units) != n_docs:
        return f"the statistics hold {n_docs} documents, the docids or units another number"
    for unit, docid in zip(units, docids, strict=True):
        if not _unit_ok(unit, docid):
            return f"the unit of {docid!r} is malformed"
    return None


def _checked_meta(path: str, text: str, n_docs: int) -> dict[str, Any]:
    """The metadata of a saved retriever, checked against its arms, or
    :class:`IndexCorruptedError` naming what is wrong (the checksum proves only that
    the file is as written, not that its writer was honest)."""
    try:
        meta = json.loads(text)
    except ValueError as e:
        meta, why = None, f"its metadata is not JSON ({e})"
    else:
        why = (
            "its metadata is not an object"
            if not isinstance(meta, dict)
            else _inconsistency(
                meta.get("k1"), meta.get("b"), meta.get("docids"), meta.get("units"), n_docs
            )
        )
    if why is not None:
        raise IndexCorruptedError(f"{path}: not a saved LexicalRetriever: {why}")
    return meta  # type: ignore[return-value]


def _hits_from_units(units: list[dict[str, Any]], ranked_idx: list[int]) -> list[SearchHit]:
    """The hits of the documents at ``ranked_idx``, best first, with 0-based ranks."""
    return [
        SearchHit(
            docid=unit["docid"],
            source_path=unit["source_path"],
            start_line=unit["start_line"],
            end_line=unit["end_line"],
            rank=rank,
            context=unit.get("context", ""),
        )
        for rank, unit in enumerate(units[i] for i in ranked_idx)
    ]


class LexicalRetriever:
    """TF-IDF + BM25 fused by reciprocal rank (k = 60), one retrieval unit per document.

    A drop-in for agentic-retrieval's ``LexicalRetriever``: ``search`` returns
    ``min(top_k, N)`` docids (documents sharing no query term follow, in corpus order),
    ``top_k`` slices like a Python list bound, hits carry a 0-based ``rank`` and no score,
    and searching before :meth:`index` returns ``[]``.

    Args:
        bm25_k1: BM25 term-frequency saturation (not validated, as in the reference).
        bm25_b: BM25 length normalisation.
        tokenizer: ``"plain"`` or ``"code"`` (see :func:`rserini.retrieval.tfidf.tokenize`).

    Raises:
        ValueError: For another ``tokenizer``.
    """

    name = "lexical (bm25+tfidf+rrf)"
    #: The hyperparameters the constructor accepts (read by ``build_retriever``).
    ACCEPTS = frozenset({"bm25_k1", "bm25_b", "tokenizer"})
    #: The ``to_dict`` schema; ``from_dict`` refuses any other.
    SCHEMA_VERSION = 3

    def __init__(
        self, *, bm25_k1: float = 1.5, bm25_b: float = 0.75, tokenizer: str = "plain"
    ) -> None:
        self._docids: list[str] = []
        self._units: list[dict[str, Any]] = []
        self._params: dict[str, Any] = {
            "bm25_k1": bm25_k1,
            "bm25_b": bm25_b,
            "tokenizer": tokenizer,
        }
        self._tfidf = TfidfIndex(tokenizer=tokenizer)
        self._bm25 = BM25Index(k1=bm25_k1, b=bm25_b, tokenizer=tokenizer)

    def index(self, documents: list[Document]) -> None:
        """Indexes ``documents`` (their ``text``; the other fields travel to the hits),
        replacing everything indexed before. Duplicate docids are kept.

        Raises:
            TypeError: For an item without ``docid`` and ``text``, or a field of the
                wrong type; nothing is changed then.
        """
        texts, units = _lexical_units(documents)
        if texts and self._tfidf.tokenizer == self._bm25.tokenizer:
            # One analysis for both arms.
            self._tfidf._arm, self._bm25._arm = _lexical_fit(texts, self._tfidf.tokenizer)
        else:
            self._tfidf.fit(texts)
            self._bm25.fit(texts)
        self._units = units
        self._docids = [u["docid"] for u in units]

    def search_detailed(self, query: str, top_k: int) -> list[SearchHit]:
        """The best ``top_k`` documents for ``query`` as hits with their spans, a 0-based
        ``rank`` and ``context``. ``top_k`` is a slice bound: 0 gives ``[]``, ``-1`` all
        but the last, ``None`` all.

        Raises:
            TypeError: For a ``top_k`` that is not an int (or ``None``), or a non-str query.
        """
        take = len(range(self._tfidf._arm.n_docs)[:top_k])
        if take == 0:
            return []
        order = _lexical_search(
            self._tfidf._arm, self._bm25._arm, query, self._bm25.k1, self._bm25.b, take
        )
        return _hits_from_units(self._units, order)

    def search(self, query: str, top_k: int) -> list[str]:
        """The docids of :meth:`search_detailed`, best first."""
        order = self.search_detailed(query, top_k)
        return [hit.docid for hit in order]

    def to_dict(self) -> dict[str, Any]:
        """The reference's JSON-safe schema-3 dict (its ``lexical.json``): ``schema``,
        ``docids``, ``units``, ``tfidf``, ``bm25``."""
        return {
            "schema": self.SCHEMA_VERSION,
            "docids": list(self._docids),
            "units": [dict(u) for u in self._units],
            "tfidf": self._tfidf.to_dict(),
            "bm25": self._bm25.to_dict(),
        }

    @classmethod
    def from_dict(cls: type[_R], data: Mapping[str, Any]) -> _R:
        """A retriever of this class from :meth:`to_dict` output (or the reference's
        ``lexical.json``), rebuilt from its statistics.

        Raises:
            ValueError: For a schema other than 3, inconsistent statistics, docids or
                units, or a ``k1`` or ``b`` that is not a finite number.
            KeyError: For a missing key.
        """
        schema = data.get("schema")
        if schema != cls.SCHEMA_VERSION:
            raise ValueError(f"unsupported LexicalRetriever schema {schema!r}")
        bm25 = data["bm25"]
        retriever = cls(
            bm25_k1=bm25["k1"], bm25_b=bm25["b"], tokenizer=bm25.get("tokenizer", "plain")
        )
        try:
            retriever._tfidf = TfidfIndex.from_dict(data["tfidf"])
            retriever._bm25 = BM25Index.from_dict(bm25)
        except OverflowError as e:  # A negative or huge count.
            raise ValueError(f"inconsistent LexicalRetriever statistics: {e}") from None
        n_docs = retriever._tfidf._arm.n_docs
        why = _inconsistency(bm25["k1"], bm25["b"], data["docids"], data["units"], n_docs)
        if why is None and retriever._bm25._arm.n_docs != n_docs:
            why = "the tfidf and bm25 statistics hold different numbers of documents"
        if why is not None:
            raise ValueError(f"inconsistent LexicalRetriever statistics: {why}")
        retriever._docids = list(data["docids"])
        retriever._units = [dict(u) for u in data["units"]]
        return retriever

    def save(self, path: str | os.PathLike[str]) -> None:
        """Saves to the file ``path`` in a compact, checksummed binary form, crash-safely
        (a temporary file renamed into place); much smaller and faster than
        ``json.dumps(to_dict())``."""
        meta = {
            "format": _FORMAT,
            "schema": self.SCHEMA_VERSION,
            "k1": self._bm25.k1,
            "b": self._bm25.b,
            "docids": self._docids,
            "units": self._units,
        }
        _lexical_save(os.fspath(path), json.dumps(meta), self._tfidf._arm, self._bm25._arm)

    @classmethod
    def load(cls: type[_R], path: str | os.PathLike[str]) -> _R:
        """A retriever of this class from a file written by :meth:`save`.

        Raises:
            FileNotFoundError: If there is no such file.
            IndexCorruptedError: If the file is damaged or not a saved retriever,
                including a crafted one whose checksum holds.
        """
        text, tfidf_arm, bm25_arm = _lexical_load(os.fspath(path))
        if tfidf_arm.n_docs != bm25_arm.n_docs:
            raise IndexCorruptedError(f"{path}: the two arms hold different documents")
        meta = _checked_meta(os.fspath(path), text, tfidf_arm.n_docs)
        retriever = cls(bm25_k1=meta["k1"], bm25_b=meta["b"], tokenizer=bm25_arm.tokenizer)
        retriever._docids = meta["docids"]
        retriever._units = meta["units"]
        retriever._tfidf._arm = tfidf_arm
        retriever._bm25._arm = bm25_arm
        return retriever


#: Retriever classes by name.
REGISTRY: dict[str, type[Retriever]] = {"lexical": LexicalRetriever}

#: Public parameter names that differ from constructor keywords, per retriever.
_CTOR_KWARG_MAP: dict[str, dict[str, str]] = {}


def resolve_ctor_kwargs(name: str, cls: type, params: Mapping[str, Any] | None) -> dict[str, Any]:
    """``params`` filtered to ``cls.ACCEPTS`` (unknown keys dropped silently) and renamed
    to constructor keywords; ``{}`` for ``None`` or empty ``params``."""
    if not params:
        return {}
    accepts: frozenset[str] = getattr(cls, "ACCEPTS", frozenset())
    mapping = _CTOR_KWARG_MAP.get(name, {})
    return {mapping.get(k, k): v for k, v in params.items() if k in accepts}


def build_retriever(name: str, params: Mapping[str, Any] | None = None) -> Retriever:
    """A new retriever ``name`` built with the ``params`` its class accepts.

    Raises:
        ValueError: For a name not in :data:`REGISTRY`.
    """
    if name not in REGISTRY:
        raise ValueError(f"unknown retriever {name!r}; choose from {list(REGISTRY)}")
    cls = REGISTRY[name]
    return cls(**resolve_ctor_kwargs(name, cls, params))
