"""Pyserini's ``IndexReader`` (``pyserini.index.lucene.LuceneIndexReader``) over an rserini
index or a Lucene index folder: statistics, term counts, postings, document vectors, stored
documents, BM25 term weights and docid conversions.

>>> from rserini.pyserini import IndexReader   # was: from pyserini.index.lucene import ...
>>> reader = IndexReader("indexes/lucene-index.adi")             # doctest: +SKIP
>>> reader.get_term_counts("retrieval")                           # doctest: +SKIP
(28, 45)

Internal ids are rserini's; in a Lucene index they are Lucene's own docids (segment by
segment, deleted documents keeping their numbers). What differs from Pyserini:

- Of a Lucene index, statistics, counts and postings include the deleted documents Lucene
  still counts until their segment is merged, as Pyserini's do; of an rserini index they
  cover live documents.
- Postings carry no positions (``Posting.positions`` is ``None``).
- Document vectors are re-derived from the stored ``contents`` field, or the contents of
  the raw JSON: a Lucene index written with ``-storeDocvectors`` but with neither
  ``-storeContents`` nor ``-storeRaw`` cannot give them.
- Analyzers are rserini's :class:`rserini.Analyzer` values; ``None`` means what it means
  in Pyserini for each method.
"""

from __future__ import annotations

import json
import math
import os
from collections import Counter
from dataclasses import dataclass

import numpy as np

from rserini._core import (
    ANALYZER_PRESETS,
    DEFAULT_B,
    DEFAULT_K1,
    Analyzer,
    Index,
    lucene_info,
    lucene_stores_contents,
)
from rserini.exceptions import QueryError, UnknownDocidError
from rserini.stored_document import (
    Document,
    NotSupportedError,
    docid_at,
    is_lucene,
    read_document,
)

__all__ = ["IndexReader", "IndexTerm", "Posting"]

DEFAULT = "default"
"""The ``analyzer`` default: the index's own analyzer (Anserini's default analyzer)."""


@dataclass(frozen=True)
class Posting:
    """One posting, as Pyserini's ``Posting``: the internal docid and the term frequency
    (``positions`` is ``None``: positions are not read)."""

    docid: int
    tf: int
    positions: list[int] | None = None

    def __repr__(self) -> str:
        return f"({self.docid}, {self.tf})"


@dataclass(frozen=True)
class IndexTerm:
    """An analyzed term with its document and collection frequencies."""

    term: str
    df: int
    cf: int


class IndexReader:
    """Pyserini's ``IndexReader`` over an rserini index or a Lucene index folder.

    Parameters
    ----------
    index_dir
        An rserini index folder, a Lucene index folder, or an open :class:`rserini.Index`.
    cache
        For a Lucene folder: where its conversion is kept, as :meth:`rserini.Index.load`
        takes it (``False``: converted in memory, nothing written).

    Raises
    ------
    FileNotFoundError
        If the folder does not exist.
    IndexCorruptedError
        If it is neither a readable rserini index nor a readable Lucene index.
    """

    def __init__(
        self,
        index_dir: str | os.PathLike[str] | Index,
        *,
        cache: bool | str | os.PathLike[str] = True,
    ) -> None:
        self.index = (
            index_dir if isinstance(index_dir, Index) else Index.load(index_dir, cache=cache)
        )
        # The folder, if given as one.
        self.path = None if isinstance(index_dir, Index) else os.fspath(index_dir)
        # Whether it is a Lucene index folder.
        self.lucene: bool = is_lucene(index_dir)
        # Whether documents keep their contents field (Lucene: -storeContents).
        self.contents_stored: bool = (
            lucene_stores_contents(index_dir) if self.lucene and self.path else True
        )

    def __repr__(self) -> str:
        return f"IndexReader({self.path!r})"

    @classmethod
    def from_prebuilt_index(
        cls,
        prebuilt_index_name: str,
        verbose: bool = False,
        *,
        download: bool = True,
        cache: bool | str | os.PathLike[str] = True,
    ) -> IndexReader:
        """Opens one of Pyserini's prebuilt Lucene indexes by name (see
        :meth:`rserini.pyserini.LuceneSearcher.from_prebuilt_index`) and checks its document
        count and total terms against Pyserini's table, as Pyserini does.

        Raises
        ------
        ValueError
            If the index's counts are not the table's (a stale or damaged copy).
        """
        from rserini.lucene.prebuilt import prebuilt_index, prebuilt_index_path

        path = prebuilt_index_path(prebuilt_index_name, download=download)
        reader = cls(path, cache=cache)
        info = prebuilt_index(prebuilt_index_name)
        stats = reader.stats()
        for name, expected in (("documents", info.documents), ("total_terms", info.total_terms)):
            if expected is not None and stats[name] != expected:
                raise ValueError(
                    f"prebuilt index fails consistency check: {name} is {stats[name]} in "
                    f"{path}, {expected} in Pyserini's table"
                )
        if verbose:
            print(stats)
        return reader

    def _analyzer(self, analyzer: Analyzer | str | None, none: Analyzer | None) -> Analyzer | None:
        """The analyzer of an ``analyzer`` argument; ``none`` stands for ``None``."""
        if analyzer is None:
            return none
        if analyzer == DEFAULT:
            return self.index.analyzer
        if isinstance(analyzer, Analyzer):
            return analyzer
        raise NotSupportedError(
            f"analyzers are rserini.Analyzer values, not {type(analyzer).__name__}"
        )

    def _term(self, term: str, analyzer: Analyzer | None) -> str | None:
        """``term`` analyzed (its first term, as Anserini), or as given without analyzer;
        ``None`` when analysis leaves nothing (a stopword)."""
        if analyzer is None:
            return term
        terms = analyzer.analyze(term)
        return terms[0] if terms else None

    def analyze(self, text: str, analyzer: Analyzer | None = None) -> list[str]:
        """The terms of ``text`` under ``analyzer`` (default: the index's)."""
        chosen = self._analyzer(analyzer, self.index.analyzer)
        assert chosen is not None
        return chosen.analyze(text)

    def stats(self) -> dict[str, int]:
        """Pyserini's index statistics: ``total_terms`` (term occurrences), ``documents``
        (live documents), ``non_empty_documents`` (those with at least one term; both as
        Lucene counts them, deleted documents included until merged) and ``unique_terms``
        (-1 for a Lucene index of several segments, as Lucene reports)."""
        stats = self.index.stats()
        unique = -1 if self.lucene and stats.num_segments > 1 else stats.num_terms
        return {
            "total_terms": stats.total_terms,
            "documents": stats.num_docs,
            "non_empty_documents": stats.num_nonempty_docs,
            "unique_terms": unique,
        }

    def get_term_counts(
        self, term: str, analyzer: Analyzer | str | None = DEFAULT
    ) -> tuple[int, int]:
        """``(document frequency, collection frequency)`` of ``term``, analyzed with
        ``analyzer`` (default: the index's; ``None``: tokenized and lowercased only, as
        Pyserini), as the index's statistics count them.

        Raises
        ------
        QueryError
            If the analysis leaves no term (a stopword).
        """
        # Pyserini's analyzer=None: the default analyzer without stemming or stopwords.
        name = self.index.analyzer.name
        plain = Analyzer(
            name if name in ANALYZER_PRESETS else "lucene-english", stopwords="none", stemmer="none"
        )
        analyzed = self._term(term, self._analyzer(analyzer, plain))
        if analyzed is None:
            raise QueryError(f"{term!r} analyzes to no term")
        return self.index.term_dfs([analyzed])[0], self.index.term_cfs([analyzed])[0]

    def get_postings_list(
        self, term: str, analyzer: Analyzer | str | None = DEFAULT
    ) -> list[Posting] | None:
        """The postings of ``term`` (analyzed with ``analyzer``, default the index's;
        ``None``: taken as it is), internal docids ascending, of a Lucene index with its
        deleted documents as Lucene keeps them; ``None`` if no document holds it, as
        Pyserini.

        Raises
        ------
        QueryError
            If the analysis leaves no term (a stopword).
        """
        analyzed = self._term(term, self._analyzer(analyzer, None))
        if analyzed is None:
            raise QueryError(f"{term!r} analyzes to no term")
        ids, tfs = self.index.postings(analyzed, deleted=self.lucene)
        if len(ids) == 0:
            return None
        return [Posting(d, tf) for d, tf in zip(ids.tolist(), tfs.tolist(), strict=True)]

    def get_document_vector(self, docid: str) -> dict[str, int] | None:
        """``{term: frequency}`` of document ``docid``, from its stored text analyzed with
        the index's analyzer (of a Lucene index, its ``contents`` field or the contents of
        its raw JSON); ``None`` for an unknown docid. A Lucene index without document
        vectors gives ``{}``, as Pyserini does.

        Raises
        ------
        NotSupportedError
            For a Lucene index with document vectors but no stored text, or an rserini
            index that stores no documents.
        """
        document = read_document(self.index, docid, self.lucene, self.contents_stored)
        if document is None:
            return None
        if self.lucene and not self._has_term_vectors():
            return {}
        if self.lucene and document.contents() is None and document.raw() is None:
            raise NotSupportedError(
                "the document vectors of a Lucene index are derived from its stored "
                "contents field, or the contents of its raw JSON: this index was written "
                "with -storeDocvectors but neither -storeContents nor -storeRaw"
            )
        text = document.contents()
        if text is None:  # a Lucene index without -storeContents: its raw JSON's contents
            text = _raw_contents(document.raw())
        return dict(Counter(self.index.analyzer.analyze(text)))

    def _has_term_vectors(self) -> bool:
        """Whether the Lucene index keeps term vectors of its ``contents`` field."""
        assert self.path is not None
        fields = lucene_info(self.path)["fields"]
        return any(f["name"] == "contents" and f["term_vectors"] for f in fields)

    def doc(self, docid: str) -> Document | None:
        """The stored document ``docid``, ``None`` if there is none."""
        return read_document(self.index, docid, self.lucene, self.contents_stored)

    def doc_raw(self, docid: str) -> str | None:
        """The raw document of ``docid`` (:meth:`Document.raw`), ``None`` if unknown."""
        document = self.doc(docid)
        return None if document is None else document.raw()

    def doc_contents(self, docid: str) -> str | None:
        """The stored contents of ``docid``, ``None`` if unknown or not stored."""
        document = self.doc(docid)
        return None if document is None else document.contents()

    def compute_bm25_term_weight(
        self,
        docid: str,
        term: str,
        analyzer: Analyzer | str | None = DEFAULT,
        k1: float = DEFAULT_K1,
        b: float = DEFAULT_B,
    ) -> float:
        """Lucene's BM25 weight of the one term ``term`` in ``docid`` as Anserini computes
        it (the score of the term under a filter clause worth 1, less 1, in float32: the
        search score rounded to float32's step near 1 to 2), 0 if it does not occur
        there; ``analyzer=None`` for an already analyzed term, e.g. a key of
        :meth:`get_document_vector`.

        Raises
        ------
        UnknownDocidError
            For a docid not in the index.
        """
        analyzed = self._term(term, self._analyzer(analyzer, None))
        internal = self.index.internal_id(docid)
        if analyzed is None:
            return 0.0
        ids, tfs = self.index.postings(analyzed, deleted=self.lucene)
        at = int(np.searchsorted(ids, internal))
        if at == len(ids) or ids[at] != internal:
            return 0.0
        f32 = np.float32
        # The length BM25 sees (the document's norm decoded), whatever the query.
        doclen = f32(self.index.explain(analyzed, docid).seen_length)
        stats = self.index.stats()
        count = stats.num_nonempty_docs
        avgdl = f32(stats.avgdl_lucene)
        df = len(ids)
        idf = f32(math.log(1 + (count - df + 0.5) / (df + 0.5)))
        k1_, b_ = f32(k1), f32(b)
        # Lucene's BM25 score, every step in float32 as its scorer takes them.
        norm_inverse = f32(1) / (k1_ * ((f32(1) - b_) + b_ * doclen / avgdl))
        score = idf - idf / (f32(1) + f32(tfs[at]) * norm_inverse)
        # Anserini scores the term under a filter clause worth 1, summed in double and
        # narrowed to float32, then subtracts the 1 again.
        return float(f32(f32(1.0 + float(score)) - f32(1)))

    def convert_internal_docid_to_collection_docid(self, docid: int) -> str | None:
        """The docid at internal id ``docid`` (Lucene's docid in a Lucene index), ``None``
        past the last one."""
        return docid_at(self.index, docid)

    def convert_collection_docid_to_internal_docid(self, docid: str) -> int:
        """The internal id of the live document ``docid``, -1 if there is none (as
        Anserini)."""
        try:
            return self.index.internal_id(docid)
        except UnknownDocidError:
            return -1


LuceneIndexReader = IndexReader
"""Pyserini's current name of :class:`IndexReader`."""


def _raw_contents(raw: str | None) -> str:
    """The ``contents`` of a raw document Anserini stored as JSON (its ``JsonCollection``),
    the text its document vectors were made of; empty for any other raw document, as the
    feedback models read it."""
    try:
        value = json.loads(raw) if raw is not None else None
    except ValueError:
        return ""
    contents = value.get("contents") if isinstance(value, dict) else None
    return contents if isinstance(contents, str) else ""
