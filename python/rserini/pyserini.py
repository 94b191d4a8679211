"""A Pyserini-shaped facade: switch from Pyserini's ``LuceneSearcher`` with one import.

>>> from rserini.pyserini import LuceneSearcher      # was: from pyserini.search.lucene import ...
>>> searcher = LuceneSearcher("my-index")              # doctest: +SKIP
>>> searcher.set_bm25(0.9, 0.4)                        # doctest: +SKIP
>>> [(hit.docid, hit.score) for hit in searcher.search("query text", k=10)]  # doctest: +SKIP

The index is an rserini index folder (``rserini index`` or :meth:`rserini.Index.save`) built
with the default ``lucene-english`` analyzer, Pyserini's default analyzer. Results come in
Pyserini's final order and with Pyserini's scores:

1. Lucene's BM25 scores (float32), ranked by score descending, then docid ascending, as
   Anserini sorts its hits;
2. every score rounded to 4 decimals (the product with 10,000 in double precision, rounded
   half up, divided back and stored as a float32);
3. then, walking down the list, a score within 1e-4 of the one above it (itself possibly
   nudged) is lowered by 1e-6 times its position in that run of ties, so that the printed
   scores keep the list's order under any tool that sorts by score (Anserini's score-ties
   adjuster, whose float32 arithmetic is reproduced exactly).

Each hit also keeps rserini's own unrounded score as :attr:`ScoredDoc.raw_score`.

Covered: ``LuceneSearcher(index_dir)``, ``set_bm25``, ``search`` (with ``strip_segment_id``
and ``remove_dups``), ``batch_search``, ``doc`` and ``batch_get_docs`` (on indexes that
store their documents), ``num_docs``, ``close`` and context management; and
:func:`run`/:func:`write_run` for the ``--remove-query`` runs and TREC files of Pyserini's
``pyserini.search.lucene`` command. Not covered (each raises :class:`NotSupportedError`
naming the feature): Lucene documents, prebuilt indexes, RM3 and Rocchio feedback, query
likelihood, other languages and analyzers, custom query generators, multi-field search,
Lucene ``Query`` objects, and impact or dense search.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import numpy as np
import numpy.typing as npt

from rserini._core import Index, _check_bm25
from rserini.exceptions import QueryError, RseriniError, UnknownDocidError

DEFAULT_K1 = 0.9
"""Pyserini's default BM25 k1."""
DEFAULT_B = 0.4
"""Pyserini's default BM25 b."""

_TIE_GAP = np.float32(1e-4)
_TIE_STEP = np.float32(1e-6)

__all__ = [
    "DEFAULT_B",
    "DEFAULT_K1",
    "Document",
    "LuceneSearcher",
    "NotSupportedError",
    "ScoredDoc",
    "adjust_ties",
    "round_scores",
    "run",
    "write_run",
]


class NotSupportedError(RseriniError, NotImplementedError):
    """A Pyserini feature this facade does not provide."""


def round_scores(scores: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """Anserini's rounding of output scores to 4 decimals.

    Each float32 score is widened to double, multiplied by 10,000, rounded to the nearest
    integer with halves rounded up, divided by 10,000 and narrowed back to float32. (In
    float32 the product can land exactly on a half: ``6.6472497 * 1e4`` is 66472.5 there,
    but 66472.497 in double.)

    Parameters
    ----------
    scores
        Scores, converted to float32 first.

    Returns
    -------
    numpy.ndarray
        The rounded scores, float32.
    """
    x = np.asarray(scores, dtype=np.float32).astype(np.float64) * 10000.0
    whole = np.floor(x)
    # x - floor(x) is exact, so this is round-half-up without double rounding.
    rounded = whole + (x - whole >= 0.5)
    return (rounded / 10000.0).astype(np.float32)


def adjust_ties(scores: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """Anserini's score-ties adjuster on one ranked list: :func:`round_scores`, then each
    score within 1e-4 of the (adjusted) score above it is lowered by 1e-6 times its place
    in the run of ties. All arithmetic is float32, in Anserini's order.

    Parameters
    ----------
    scores
        One query's scores, best first (the order is kept).

    Returns
    -------
    numpy.ndarray
        The adjusted scores, float32, in the same order.
    """
    out = round_scores(scores)
    dup = 0
    for i in range(1, len(out)):
        if out[i - 1] - out[i] > _TIE_GAP:
            dup = 0
        else:
            dup += 1
            out[i] = out[i] - _TIE_STEP * np.float32(dup)
    return out


@dataclass(frozen=True)
class ScoredDoc:
    """One hit, shaped like Pyserini's ``JScoredDoc``.

    Attributes
    ----------
    docid
        The external document id.
    score
        The score Pyserini reports: rounded to 4 decimals, ties nudged apart.
    raw_score
        rserini's unrounded float32 BM25 score.
    rank
        1-based rank.
    lucene_docid
        rserini's internal document id (the counterpart of Lucene's).
    """

    docid: str
    score: float
    raw_score: float
    rank: int
    lucene_docid: int

    @property
    def lucene_document(self) -> Any:
        """Not available: there are no Lucene documents; use :meth:`LuceneSearcher.doc`.

        Raises
        ------
        NotSupportedError
            Always.
        """
        raise NotSupportedError(_NO_LUCENE)


_NO_LUCENE = "there are no Lucene documents: use LuceneSearcher.doc(docid) instead"
_NO_STORE = (
    "this index stores no documents (it was built with store=False), so doc() and "
    "batch_get_docs() are not available; keep the corpus alongside the index"
)


class Document:
    """A stored document, shaped like Pyserini's ``Document``.

    Parameters
    ----------
    docid
        Its id.
    fields
        Its original fields (the JSON object it was read from).
    contents
        The text that was indexed.
    """

    def __init__(self, docid: str, fields: Mapping[str, object], contents: str) -> None:
        self._docid = docid
        self._fields = dict(fields)
        self._contents = contents

    def __repr__(self) -> str:
        return f"Document({self._docid!r})"

    def docid(self) -> str:
        """The document's id."""
        return self._docid

    def id(self) -> str:
        """The document's id (Pyserini's alias of :meth:`docid`)."""
        return self._docid

    def contents(self) -> str:
        """The indexed text."""
        return self._contents

    def raw(self) -> str:
        """The original fields as a JSON object, as Pyserini's ``-storeRaw`` keeps them."""
        return json.dumps(self._fields, ensure_ascii=False)

    def get(self, field: str) -> str | None:
        """One original field as a string (``None`` when absent)."""
        value = self._fields.get(field)
        return None if value is None else str(value)

    def lucene_document(self) -> Any:
        """Not available: there are no Lucene documents.

        Raises
        ------
        NotSupportedError
            Always.
        """
        raise NotSupportedError(_NO_LUCENE)


def _hits(
    index: Index, ids: npt.NDArray[np.int32], scores: npt.NDArray[np.float32]
) -> list[ScoredDoc]:
    found = ids >= 0
    ids, raw = ids[found], scores[found]
    docids = index.docids(ids)
    adjusted = adjust_ties(raw)
    return [
        ScoredDoc(docid, score, raw_score, rank, lucene_docid)
        for rank, (docid, score, raw_score, lucene_docid) in enumerate(
            zip(docids, adjusted.tolist(), raw.tolist(), ids.tolist(), strict=True), start=1
        )
    ]


class LuceneSearcher:
    """Pyserini's ``LuceneSearcher`` over an rserini index: same calls, same results.

    Parameters
    ----------
    index_dir
        An rserini index folder (or an open :class:`rserini.Index`).

    Raises
    ------
    FileNotFoundError
        If the folder does not exist.
    IndexCorruptedError
        If it is not a readable rserini index.
    """

    def __init__(self, index_dir: str | os.PathLike[str] | Index) -> None:
        if isinstance(index_dir, Index):
            self.index = index_dir
            self.index_dir = str(index_dir.path) if index_dir.path is not None else None
        else:
            self.index_dir = os.fspath(index_dir)
            self.index = Index.load(index_dir)
        self.num_docs: int = len(self.index)
        self.k1: float = DEFAULT_K1
        self.b: float = DEFAULT_B

    def __repr__(self) -> str:
        return f"LuceneSearcher({self.index_dir!r}, k1={self.k1}, b={self.b})"

    @classmethod
    def from_prebuilt_index(cls, prebuilt_index_name: str, verbose: bool = False) -> LuceneSearcher:
        """Not supported: prebuilt indexes are Lucene indexes.

        Raises
        ------
        NotSupportedError
            Always.
        """
        raise NotSupportedError(
            f"prebuilt Pyserini indexes ({prebuilt_index_name!r}) are Lucene indexes; build an "
            "rserini index from the corpus with `rserini index` and open its folder"
        )

    def set_bm25(self, k1: float = DEFAULT_K1, b: float = DEFAULT_B) -> None:
        """Sets the BM25 parameters of later searches.

        Parameters
        ----------
        k1
            Term-frequency saturation, >= 0.
        b
            Length normalisation, in [0, 1].

        Raises
        ------
        QueryError
            For values outside those ranges.
        """
        k1, b = float(k1), float(b)
        _check_bm25(k1, b)
        # Pyserini passes the parameters to Java as float32.
        self.k1, self.b = float(np.float32(k1)), float(np.float32(b))

    def get_similarity(self) -> str:
        """A description of the scoring function, e.g. ``"BM25(k1=0.9,b=0.4)"``."""
        return f"BM25(k1={np.float32(self.k1)},b={np.float32(self.b)})"

    def _check(self, query_generator: object, fields: Mapping[str, float] | None) -> None:
        if query_generator is not None:
            raise NotSupportedError(
                "custom query generators are not supported: queries are always Anserini's "
                "bag of words (one clause per distinct term, boosted by its count)"
            )
        if fields:
            raise NotSupportedError("multi-field search is not supported: one field is indexed")

    def search(
        self,
        q: str,
        k: int = 10,
        query_generator: object = None,
        fields: Mapping[str, float] | None = None,
        strip_segment_id: bool = False,
        remove_dups: bool = False,
    ) -> list[ScoredDoc]:
        """Searches with BM25, as Pyserini's ``LuceneSearcher.search``.

        Parameters
        ----------
        q
            The query text (a query matching no term gives no hits).
        k
            Number of hits.
        query_generator, fields
            Only the defaults (``None``, no fields) are supported.
        strip_segment_id
            Cut each docid at its first ``.``, as Pyserini does for segmented corpora.
        remove_dups
            Keep only the first hit of each docid (after ``strip_segment_id``).

        Returns
        -------
        list of ScoredDoc
            Best first, with Pyserini's rounded scores.

        Raises
        ------
        QueryError
            For ``k <= 0``.
        NotSupportedError
            For a query generator, fields or a Lucene query object.
        """
        if not isinstance(q, str):
            raise NotSupportedError("only query strings are supported, not Lucene Query objects")
        self._check(query_generator, fields)
        ids, scores = self.index.batch_search([q], k=k, threads=1, k1=self.k1, b=self.b)
        hits = _hits(self.index, ids[0], scores[0])
        if not (strip_segment_id or remove_dups):
            return hits
        seen: set[str] = set()
        kept = []
        for hit in hits:
            docid = hit.docid.split(".")[0] if strip_segment_id else hit.docid
            if docid in seen:
                continue
            if remove_dups:
                seen.add(docid)
            kept.append(ScoredDoc(docid, hit.score, hit.raw_score, len(kept) + 1, hit.lucene_docid))
        return kept

    def batch_search(
        self,
        queries: Sequence[str],
        qids: Sequence[str],
        k: int = 10,
        threads: int = 1,
        query_generator: object = None,
        fields: Mapping[str, float] | None = None,
    ) -> dict[str, list[ScoredDoc]]:
        """Searches many queries in parallel, as Pyserini's ``LuceneSearcher.batch_search``.

        Parameters
        ----------
        queries
            Query texts.
        qids
            Their ids, one per query.
        k
            Hits per query.
        threads
            Search threads.
        query_generator, fields
            Only the defaults are supported.

        Returns
        -------
        dict
            ``{qid: hits}``; results equal :meth:`search` on each query.

        Raises
        ------
        ValueError
            If ``queries`` and ``qids`` differ in length.
        """
        self._check(query_generator, fields)
        if len(queries) != len(qids):
            raise ValueError(f"{len(queries)} queries but {len(qids)} query ids")
        if not queries:
            return {}
        ids, scores = self.index.batch_search(
            list(queries), k=k, threads=max(1, int(threads)), k1=self.k1, b=self.b
        )
        return {str(qid): _hits(self.index, ids[i], scores[i]) for i, qid in enumerate(qids)}

    def doc(self, docid: str | int) -> Document | None:
        """A stored document, as Pyserini's ``LuceneSearcher.doc``.

        A docid indexed more than once (``duplicates="keep"``) gives its first copy, as
        Pyserini does; an internal id of a later copy also gives the first copy, where
        Pyserini gives that copy.

        Parameters
        ----------
        docid
            The docid, or an internal id (:attr:`ScoredDoc.lucene_docid`).

        Returns
        -------
        Document or None
            The document; ``None`` for an unknown id, as Pyserini.

        Raises
        ------
        NotSupportedError
            If the index stores no documents.
        """
        if isinstance(docid, int):
            if not 0 <= docid < self.num_docs:
                return None
            found = self.index.docids(np.array([docid], dtype=np.int32))
            if not found:
                return None
            docid = str(found[0])
        reader = getattr(self.index, "doc", None)
        if reader is None:
            raise NotSupportedError(_NO_STORE)
        try:
            fields = reader(docid)
            contents = self.index.contents(docid)
        except UnknownDocidError:
            return None
        except QueryError as e:
            raise NotSupportedError(f"{_NO_STORE} ({e})") from None
        return Document(docid, fields, contents)

    def batch_get_docs(self, docids: Sequence[str], threads: int = 1) -> dict[str, Document]:
        """Stored documents by docid, as Pyserini's ``batch_get_docs``.

        Parameters
        ----------
        docids
            The docids.
        threads
            Accepted for compatibility.

        Returns
        -------
        dict
            ``{docid: Document}`` for the docids found.

        Raises
        ------
        NotSupportedError
            If the index stores no documents.
        """
        out = {}
        for docid in docids:
            document = self.doc(docid)
            if document is not None:
                out[docid] = document
        return out

    def doc_by_field(self, field: str, q: str) -> Any:
        """Not supported: documents are looked up by docid only.

        Raises
        ------
        NotSupportedError
            Always.
        """
        raise NotSupportedError("documents are looked up by docid only: use doc(docid)")

    def _unsupported(self, what: str) -> NotSupportedError:
        return NotSupportedError(f"{what} is not supported by rserini's LuceneSearcher")

    def set_rm3(self, *args: object, **kwargs: object) -> None:
        """Not supported: RM3 feedback.

        Raises
        ------
        NotSupportedError
            Always.
        """
        raise self._unsupported("RM3 pseudo-relevance feedback")

    def set_rocchio(self, *args: object, **kwargs: object) -> None:
        """Not supported: Rocchio feedback.

        Raises
        ------
        NotSupportedError
            Always.
        """
        raise self._unsupported("Rocchio pseudo-relevance feedback")

    def set_qld(self, *args: object, **kwargs: object) -> None:
        """Not supported: query likelihood.

        Raises
        ------
        NotSupportedError
            Always.
        """
        raise self._unsupported("query likelihood with Dirichlet smoothing")

    def set_analyzer(self, analyzer: object) -> None:
        """Not supported: the analyzer is the index's.

        Raises
        ------
        NotSupportedError
            Always.
        """
        raise self._unsupported("changing the analyzer (it is saved with the index)")

    def set_language(self, language: str) -> None:
        """Not supported: only English.

        Raises
        ------
        NotSupportedError
            Always.
        """
        raise self._unsupported(f"language {language!r}")

    def is_using_rm3(self) -> bool:
        """Always ``False``."""
        return False

    def is_using_rocchio(self) -> bool:
        """Always ``False``."""
        return False

    def close(self) -> None:
        """Does nothing (kept for Pyserini compatibility)."""

    def __enter__(self) -> LuceneSearcher:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def run(
    searcher: LuceneSearcher,
    queries: Sequence[tuple[str, str]],
    k: int = 1000,
    *,
    remove_query: bool = False,
    threads: int = 1,
) -> dict[str, list[ScoredDoc]]:
    """A run as Pyserini's ``python -m pyserini.search.lucene`` makes it.

    Parameters
    ----------
    searcher
        The searcher, with its BM25 parameters set.
    queries
        ``(qid, text)`` pairs.
    k
        Hits searched per query (``--hits``).
    remove_query
        Drop the hit whose docid is the query id, as ``--remove-query``: like Pyserini,
        ``k`` hits are searched (and their scores adjusted) before the removal, so such a
        query keeps ``k - 1`` hits.
    threads
        Search threads.

    Returns
    -------
    dict
        ``{qid: hits}`` in query order; ranks are renumbered after removal.
    """
    results = searcher.batch_search(
        [text for _, text in queries], [qid for qid, _ in queries], k=k, threads=threads
    )
    out: dict[str, list[ScoredDoc]] = {}
    for qid, _ in queries:
        hits = results[qid]
        if remove_query:
            hits = [h for h in hits if h.docid != qid]
            hits = [
                ScoredDoc(h.docid, h.score, h.raw_score, rank, h.lucene_docid)
                for rank, h in enumerate(hits, start=1)
            ]
        out[qid] = hits
    return out


def write_run(
    results: Mapping[str, Sequence[ScoredDoc]], path: str | os.PathLike[str], tag: str = "Anserini"
) -> int:
    """Writes a TREC run the way Pyserini does: ``qid Q0 docid rank score tag``, scores
    with 6 decimals, hits in list order.

    Parameters
    ----------
    results
        ``{qid: hits}``, e.g. from :func:`run`.
    path
        The file to write.
    tag
        The last column.

    Returns
    -------
    int
        Lines written.
    """
    lines = 0
    with open(path, "w", encoding="utf-8") as out:
        for qid, hits in results.items():
            for rank, hit in enumerate(hits, start=1):
                out.write(f"{qid} Q0 {hit.docid.strip()} {rank} {hit.score:.6f} {tag}\n")
                lines += 1
    return lines
