"""A Pyserini-shaped facade: switch from Pyserini's ``LuceneSearcher`` with one import.

>>> from rserini.pyserini import LuceneSearcher      # was: from pyserini.search.lucene import ...
>>> searcher = LuceneSearcher("my-index")              # doctest: +SKIP
>>> searcher.set_bm25(0.9, 0.4)                        # doctest: +SKIP
>>> [(hit.docid, hit.score) for hit in searcher.search("query text", k=10)]  # doctest: +SKIP

The index is an rserini index folder (``rserini index`` or :meth:`rserini.Index.save`) built
with the default ``lucene-english`` analyzer, Pyserini's default analyzer, or a Lucene index
folder written by Anserini or Pyserini (read without a JVM and never written; prebuilt ones
by name with :meth:`LuceneSearcher.from_prebuilt_index`). Results come in Pyserini's final
order and with Pyserini's scores:

1. Lucene's BM25 scores (float32), or with ``set_qld(mu)`` its Dirichlet query-likelihood
   scores, ranked by score descending, then docid ascending, as
   Anserini sorts its hits;
2. every score rounded to 4 decimals (the product with 10,000 in double precision, rounded
   half up, divided back and stored as a float32);
3. then, walking down the list, a score within 1e-4 of the one above it (itself possibly
   nudged) is lowered by 1e-6 times its position in that run of ties, so that the printed
   scores keep the list's order under any tool that sorts by score (Anserini's score-ties
   adjuster, whose float32 arithmetic is reproduced exactly).

Each hit also keeps rserini's own unrounded score as :attr:`ScoredDoc.raw_score`.

Covered: ``LuceneSearcher(index_dir)`` (an rserini index or a Lucene folder) and
``from_prebuilt_index``, ``set_bm25``, ``set_qld``, ``set_rm3``, ``set_rocchio`` (and
``unset_``/``is_using_``), ``search`` (with ``fields``, ``strip_segment_id`` and
``remove_dups``), ``batch_search``, ``doc`` (by docid or internal id) and
``batch_get_docs``, ``num_docs``, ``set_language`` (the language the index was built with,
``rserini index --language``), ``close`` and context management; :class:`IndexReader`
(Pyserini's ``LuceneIndexReader``); :func:`run`/:func:`write_run` for the
``--remove-query`` runs and TREC files of Pyserini's ``pyserini.search.lucene`` command;
and ``pyserini.analysis``'s :func:`get_lucene_analyzer` (every ``language=`` code but
``ja`` and ``th``) and :class:`Analyzer`. Not covered (each raises
:class:`NotSupportedError` naming the feature): Lucene (Java) document objects, changing an
index's analyzer, the ``krovetz`` stemmer, the tweet and Hugging Face analyzers, custom
query generators, multi-field search with QLD or feedback, Lucene ``Query`` objects, and
impact or dense
search.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import numpy as np
import numpy.typing as npt

from rserini._core import (
    DEFAULT_B,
    DEFAULT_K1,
    DEFAULT_MU,
    Bm25,
    Index,
    Rm3,
    Rocchio,
    lucene_stores_contents,
)
from rserini.exceptions import QueryError
from rserini.index_reader import IndexReader, LuceneIndexReader
from rserini.languages import language_preset
from rserini.pyserini_analysis import Analyzer, get_lucene_analyzer
from rserini.stored_document import (
    NO_LUCENE_OBJECTS,
    Document,
    NotSupportedError,
    docid_at,
    is_lucene,
    read_document,
)

_TIE_GAP = np.float32(1e-4)
_TIE_STEP = np.float32(1e-6)

__all__ = [
    "DEFAULT_B",
    "DEFAULT_K1",
    "Analyzer",
    "Document",
    "IndexReader",
    "LuceneIndexReader",
    "LuceneSearcher",
    "NotSupportedError",
    "ScoredDoc",
    "adjust_ties",
    "get_lucene_analyzer",
    "round_scores",
    "run",
    "write_run",
]


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
        raise NotSupportedError(NO_LUCENE_OBJECTS)


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


def _lucene_bm25(scoring: Bm25) -> Bm25:
    """``scoring`` as Pyserini runs it: Lucene's BM25, k1 and b passed to Java as float32."""
    if (scoring.variant, scoring.length) != ("lucene", "lucene"):
        raise NotSupportedError(
            f"Pyserini's LuceneSearcher scores with Lucene's BM25, not {scoring!r}: "
            "use variant='lucene' and length='lucene', or rserini.Index.search"
        )
    return Bm25(float(np.float32(scoring.k1)), float(np.float32(scoring.b)))


def _given(**params: object) -> dict[str, Any]:
    """The parameters given (not ``None``): a feedback value takes its own defaults for
    the rest."""
    return {name: value for name, value in params.items() if value is not None}


class LuceneSearcher:
    """Pyserini's ``LuceneSearcher`` over an rserini index: same calls, same results.

    Parameters
    ----------
    index_dir
        An rserini index folder, a Lucene index folder written by Anserini or Pyserini
        (read without a JVM and never written), or an open :class:`rserini.Index` (taken
        as an rserini index: give a Lucene folder by its path, so that :meth:`doc` reads
        the fields Anserini stored).
    scoring
        The BM25 parameters to start with, as :meth:`set_bm25` takes them (Lucene's
        BM25: ``variant="lucene"``, ``length="lucene"``); Pyserini's defaults,
        :data:`rserini.DEFAULT_K1` and :data:`rserini.DEFAULT_B`, when ``None``.
    cache
        For a Lucene folder: where its conversion into rserini's format is kept and
        reused, as :meth:`rserini.Index.load` takes it (``True``: rserini's cache
        folder; ``False``: converted in memory, nothing written).

    Raises
    ------
    FileNotFoundError
        If the folder does not exist.
    IndexCorruptedError
        If it is neither a readable rserini index nor a readable Lucene index.
    IndexVersionError
        For a Lucene version that is not read.
    NotSupportedError
        For a ``scoring`` of another BM25 variant or length mode.
    """

    def __init__(
        self,
        index_dir: str | os.PathLike[str] | Index,
        *,
        scoring: Bm25 | None = None,
        cache: bool | str | os.PathLike[str] = True,
    ) -> None:
        if isinstance(index_dir, Index):
            self.index = index_dir
            self.index_dir = str(index_dir.path) if index_dir.path is not None else None
        else:
            self.index_dir = os.fspath(index_dir)
            self.index = Index.load(index_dir, cache=cache)
        # Whether the index is a Lucene folder (stored fields as Anserini's).
        self.lucene: bool = is_lucene(index_dir)
        # Whether that folder stores the contents field, read on first need.
        self._contents_stored: bool | None = None
        self.num_docs: int = len(self.index)
        # The BM25 of later searches.
        self.scoring: Bm25 = _lucene_bm25(scoring or Bm25())
        # Dirichlet mu while query likelihood is set (set_qld), else None for BM25.
        self.mu: float | None = None
        # RM3 while feedback is on (set_rm3), else None.
        self.rm3: Rm3 | None = None
        # Rocchio while feedback is on (set_rocchio), else None.
        self.rocchio: Rocchio | None = None

    def __repr__(self) -> str:
        return f"LuceneSearcher({self.index_dir!r}, k1={self.k1}, b={self.b})"

    @classmethod
    def from_prebuilt_index(
        cls,
        prebuilt_index_name: str,
        verbose: bool = False,
        *,
        download: bool = True,
        cache: bool | str | os.PathLike[str] = True,
    ) -> LuceneSearcher:
        """Opens one of Pyserini's prebuilt Lucene indexes by name, as Pyserini does: the
        copy in Pyserini's cache (``$PYSERINI_CACHE`` or ``~/.cache/pyserini``) with no
        network access, else downloaded (a progress bar on stderr), checked against its
        md5 and unpacked into that cache (:mod:`rserini.lucene.prebuilt`).

        Parameters
        ----------
        prebuilt_index_name
            Pyserini's name, e.g. ``"beir-v1.0.0-scifact.flat"`` or ``"msmarco-v1-passage"``.
        verbose
            Say what is opened, on stdout.
        download
            Allow downloading; when false only the cache is looked at.
        cache
            Where the conversion into rserini's format is kept, as for the constructor.

        Raises
        ------
        rserini.lucene.prebuilt.UnknownPrebuiltIndexError
            For a name that is not one of Pyserini's prebuilt Lucene indexes (a
            ``ValueError``; Pyserini prints it and returns ``None``).
        rserini.lucene.prebuilt.NotCachedError
            If the index is not cached and ``download`` is false.
        rserini.lucene.prebuilt.ChecksumError
            If the downloaded tarball's md5 is wrong.
        rserini.lucene.prebuilt.DownloadError
            If the download fails (offline, HTTP error, interrupted transfer).
        """
        from rserini.lucene.prebuilt import prebuilt_index_path

        if verbose:
            print(f"Attempting to initialize prebuilt index {prebuilt_index_name}.")
        path = prebuilt_index_path(prebuilt_index_name, download=download)
        if verbose:
            print(f"Initializing {prebuilt_index_name} from {path}...")
        return cls(path, cache=cache)

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
        self.scoring = _lucene_bm25(Bm25(float(k1), float(b)))
        self.mu = None

    @property
    def k1(self) -> float:
        """BM25's k1 of later searches, a float32 value."""
        return self.scoring.k1

    @property
    def b(self) -> float:
        """BM25's b of later searches, a float32 value."""
        return self.scoring.b

    def get_similarity(self) -> str:
        """A description of the scoring function, e.g. ``"BM25(k1=0.9,b=0.4)"`` or
        ``"LM Dirichlet(1000.000000)"``."""
        if self.mu is not None:
            return f"LM Dirichlet({self.mu:f})"
        return f"BM25(k1={np.float32(self.k1)},b={np.float32(self.b)})"

    def _batch(
        self,
        queries: list[str],
        k: int,
        threads: int,
        fields: Mapping[str, float] | None = None,
    ) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.float32]]:
        """``(ids, scores)`` of ``queries`` under the current similarity and feedback,
        over ``fields`` with their boosts when given."""
        feedback = self.rm3 if self.rm3 is not None else self.rocchio
        if fields:
            if self.mu is not None or feedback is not None:
                raise NotSupportedError(
                    "fields= searches with BM25 alone here: call set_bm25, unset_rm3 and "
                    "unset_rocchio first"
                )
            return self.index.batch_search(
                queries, k=k, threads=threads, scoring=self.scoring, fields=dict(fields)
            )
        if feedback is not None and self.mu is not None:
            raise NotSupportedError(
                "feedback runs over BM25 here: call set_bm25 before set_rm3 or set_rocchio"
            )
        if feedback is not None:
            return self.index.batch_search(
                queries, k=k, threads=threads, scoring=self.scoring, feedback=feedback
            )
        return self.index.batch_search(queries, k=k, threads=threads, **self._model())

    def _model(self) -> dict[str, Any]:
        """The scoring keywords of ``Index.batch_search`` for the current similarity."""
        if self.mu is not None:
            return {"model": "qld", "mu": self.mu}
        return {"scoring": self.scoring}

    def _check(self, query_generator: object) -> None:
        if query_generator is not None:
            raise NotSupportedError(
                "custom query generators are not supported: queries are always Anserini's "
                "bag of words (one clause per distinct term, boosted by its count)"
            )

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
        query_generator
            Only the default (``None``) is supported.
        fields
            Fields to search with their boosts, e.g. ``{"contents": 1.0, "title": 0.5}``
            on a Lucene index built with Anserini's ``-fields title`` (the BEIR
            ``multifield`` indexes), as Pyserini; BM25 only.
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
            For a query generator, a Lucene query object, or fields with QLD or feedback.
        """
        if not isinstance(q, str):
            raise NotSupportedError("only query strings are supported, not Lucene Query objects")
        self._check(query_generator)
        ids, scores = self._batch([q], k, 1, fields)
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
            As in :meth:`search`.

        Returns
        -------
        dict
            ``{qid: hits}``; results equal :meth:`search` on each query.

        Raises
        ------
        ValueError
            If ``queries`` and ``qids`` differ in length.
        """
        self._check(query_generator)
        if len(queries) != len(qids):
            raise ValueError(f"{len(queries)} queries but {len(qids)} query ids")
        if not queries:
            return {}
        ids, scores = self._batch(list(queries), k, max(1, int(threads)), fields)
        return {str(qid): _hits(self.index, ids[i], scores[i]) for i, qid in enumerate(qids)}

    def doc(self, docid: str | int) -> Document | None:
        """A stored document, as Pyserini's ``LuceneSearcher.doc``.

        A docid indexed more than once (``duplicates="keep"``) gives its first copy, as
        Pyserini does; an internal id of a later copy also gives the first copy, where
        Pyserini gives that copy. Of a Lucene index, the document's stored fields as
        Anserini wrote them: ``raw()`` and ``contents()`` are ``None`` where they were
        not stored, as in Pyserini.

        Parameters
        ----------
        docid
            The docid, or an internal id (:attr:`ScoredDoc.lucene_docid`; Lucene's docid
            in a Lucene index).

        Returns
        -------
        Document or None
            The document; ``None`` for an unknown id, as Pyserini.

        Raises
        ------
        NotSupportedError
            If the index is an rserini index that stores no documents.
        """
        if isinstance(docid, int):
            found = docid_at(self.index, docid)
            if found is None:
                return None
            docid = found
        return read_document(self.index, docid, self.lucene, self.contents_stored())

    def contents_stored(self) -> bool:
        """Whether documents keep their ``contents`` field: always in an rserini index
        that stores documents; in a Lucene index, with Anserini's ``-storeContents``."""
        if not self.lucene:
            return True
        if self._contents_stored is None:
            assert self.index_dir is not None
            self._contents_stored = lucene_stores_contents(self.index_dir)
        return self._contents_stored

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

    def set_rm3(
        self,
        fb_terms: int | None = None,
        fb_docs: int | None = None,
        original_query_weight: float | None = None,
        debug: bool = False,
        filter_terms: bool | None = None,
    ) -> None:
        """Turns on RM3 pseudo-relevance feedback, as Pyserini's ``set_rm3`` (Anserini's
        ``Rm3Reranker`` over the BM25 first stage; the feedback documents' terms come
        from their stored text, re-analyzed with the index's analyzer): searches then
        run with ``feedback=Rm3(...)``. A parameter left ``None`` takes
        :class:`rserini.Rm3`'s default, Pyserini's.

        Parameters
        ----------
        fb_terms
            Expansion terms, >= 1.
        fb_docs
            Feedback documents, >= 1 (at most 50 are used, as in Anserini).
        original_query_weight
            Weight of the original query, in [0, 1].
        debug
            Ignored (Pyserini logs the expanded query).
        filter_terms
            Keep only ``[a-z0-9]+`` feedback terms.

        Raises
        ------
        QueryError
            For values outside those ranges, or an index without a document store (its
            message names the fix: rebuild with ``store=True``).
        """
        self._check_feedback_text("RM3")
        rm3 = Rm3(
            **_given(
                fb_terms=fb_terms,
                fb_docs=fb_docs,
                original_query_weight=original_query_weight,
                filter_terms=filter_terms,
            )
        )
        self.index.check_feedback(rm3)
        self.rm3 = rm3

    def _check_feedback_text(self, model: str) -> None:
        """Feedback reads the feedback documents' text: a Lucene index must have kept its
        ``contents`` field, or the raw JSON documents that hold it."""
        if not self.lucene or self.contents_stored():
            return
        for internal in range(64):
            docid = docid_at(self.index, internal)
            if docid is None:
                return
            document = read_document(self.index, docid, True, False)
            if document is None:
                continue
            if document.raw() is None:
                raise NotSupportedError(
                    f"{model} reads the feedback documents' terms from their stored text, "
                    "and this Lucene index was written with neither -storeContents nor "
                    "-storeRaw (Pyserini reads its document vectors, -storeDocvectors, "
                    "which rserini does not)"
                )
            return

    def unset_rm3(self) -> None:
        """Turns RM3 feedback off."""
        self.rm3 = None

    def set_rocchio(
        self,
        top_fb_terms: int | None = None,
        top_fb_docs: int | None = None,
        bottom_fb_terms: int | None = None,
        bottom_fb_docs: int | None = None,
        alpha: float | None = None,
        beta: float | None = None,
        gamma: float | None = None,
        debug: bool = False,
        use_negative: bool | None = None,
    ) -> None:
        """Turns on Rocchio pseudo-relevance feedback, as Pyserini's ``set_rocchio``
        (Anserini's ``RocchioReranker`` over the BM25 first stage, searched to the depth
        asked; the feedback documents' terms come from their stored text): searches then
        run with ``feedback=Rocchio(...)``. A parameter left ``None`` takes
        :class:`rserini.Rocchio`'s default, Pyserini's.

        Parameters
        ----------
        top_fb_terms, top_fb_docs
            Terms and documents from the top of the first stage, >= 1.
        bottom_fb_terms, bottom_fb_docs
            The same from its bottom, used with ``use_negative``.
        alpha, beta, gamma
            Weights of the query, the top and the bottom documents, in [0, 1].
        debug
            Ignored (Pyserini logs the new query).
        use_negative
            Subtract the bottom documents' mean vector.

        Raises
        ------
        QueryError
            For values outside those ranges, or an index without a document store (its
            message names the fix: rebuild with ``store=True``).
        """
        self._check_feedback_text("Rocchio")
        rocchio = Rocchio(
            **_given(
                top_fb_terms=top_fb_terms,
                top_fb_docs=top_fb_docs,
                bottom_fb_terms=bottom_fb_terms,
                bottom_fb_docs=bottom_fb_docs,
                alpha=alpha,
                beta=beta,
                gamma=gamma,
                use_negative=use_negative,
            )
        )
        self.index.check_feedback(rocchio)
        self.rocchio = rocchio

    def unset_rocchio(self) -> None:
        """Turns Rocchio feedback off."""
        self.rocchio = None

    def set_qld(self, mu: float = DEFAULT_MU) -> None:
        """Scores later searches by query likelihood with Dirichlet smoothing, as
        Pyserini's ``set_qld`` (Lucene's ``LMDirichletSimilarity``, bitwise); ``set_bm25``
        switches back.

        Parameters
        ----------
        mu
            The Dirichlet prior, a finite number > 0 that is a normal float32 (passed
            on as float32, as Pyserini does; 0 would score every match 0).

        Raises
        ------
        QueryError
            For a ``mu`` that is not a positive, normal, finite float32.
        """
        mu = float(mu)
        f32 = np.finfo(np.float32)
        if not float(f32.tiny) <= mu <= float(f32.max):
            raise QueryError(
                f"mu must be a finite number > 0, at least {float(f32.tiny)} (float32) "
                f"(got {mu}); Pyserini's default is 1000"
            )
        self.mu = float(np.float32(mu))

    def set_analyzer(self, analyzer: object) -> None:
        """Not supported: the analyzer is the index's.

        Raises
        ------
        NotSupportedError
            Always.
        """
        raise self._unsupported("changing the analyzer (it is saved with the index)")

    def set_language(self, language: str) -> None:
        """Pyserini's ``set_language``: queries are analyzed in ``language``, which must be
        the one the index was built with (its analyzer is saved with it; ``rserini index
        --language``).

        Raises
        ------
        AnalyzerError
            For an unknown language.
        NotSupportedError
            For another language than the index's.
        """
        preset = language_preset(language)
        built = self.index.analyzer.name
        if preset != built:
            raise NotSupportedError(
                f"language {language!r} ({preset}) on an index built with {built}: the "
                f"analyzer is the index's; build it with `rserini index --language {language}`"
            )

    def is_using_rm3(self) -> bool:
        """Whether RM3 feedback is on."""
        return self.rm3 is not None

    def is_using_rocchio(self) -> bool:
        """Whether Rocchio feedback is on."""
        return self.rocchio is not None

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
    fields: Mapping[str, float] | None = None,
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
    fields
        Fields searched with their boosts, as ``--fields contents=1.0 title=0.5``.

    Returns
    -------
    dict
        ``{qid: hits}`` in query order; ranks are renumbered after removal.
    """
    results = searcher.batch_search(
        [text for _, text in queries],
        [qid for qid, _ in queries],
        k=k,
        threads=threads,
        fields=fields,
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
