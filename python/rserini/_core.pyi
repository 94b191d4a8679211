"""Type stubs of the compiled ``rserini._core`` extension module."""

from collections.abc import Iterable, Mapping, Sequence
from os import PathLike
from pathlib import Path
from typing import Literal, TypeAlias

import numpy as np
import numpy.typing as npt

__version__: str
INDEX_FORMAT_VERSION: int
ANALYZER_PRESETS: list[str]

PresetName: TypeAlias = Literal["lucene-english", "plain", "code", "whitespace"]
ModelName: TypeAlias = Literal["bm25", "tfidf"]
Variant: TypeAlias = Literal["lucene", "robertson", "atire", "bm25l", "bm25+"]
LengthMode: TypeAlias = Literal["lucene", "exact"]
Algorithm: TypeAlias = Literal["auto", "exhaustive", "maxscore", "bmw"]
StrPath: TypeAlias = str | PathLike[str]
DocLike: TypeAlias = tuple[str, str] | Mapping[str, str]

class Analyzer:
    """A text analysis chain: a named preset, optionally with steps overridden.

    Parameters
    ----------
    name
        Preset: ``"lucene-english"`` (Pyserini's default analyzer: UAX#29 words,
        possessives, lowercase, 33 stopwords, Porter), ``"plain"`` (Python's
        ``\\w+`` on lowercased text), ``"code"`` (``plain`` plus identifier
        sub-tokens) or ``"whitespace"``.
    tokenizer, lowercase, possessive, code_subtokens, stopwords, stemmer
        Override one step of the preset. ``stopwords`` is ``"none"``,
        ``"lucene-english"`` or a list of words; ``stemmer`` is ``"none"``,
        ``"porter"`` or ``"snowball-english"``.

    Raises
    ------
    AnalyzerError
        For an unknown preset or option.
    """

    def __init__(
        self,
        name: PresetName | str = "lucene-english",
        *,
        tokenizer: Literal["standard", "word", "whitespace"] | None = None,
        lowercase: bool | None = None,
        possessive: bool | None = None,
        code_subtokens: bool | None = None,
        stopwords: str | Sequence[str] | None = None,
        stemmer: Literal["none", "porter", "snowball-english"] | None = None,
    ) -> None: ...
    def analyze(self, text: str) -> list[str]:
        """The terms of ``text``, in order."""
    def analyze_batch(self, texts: Sequence[str]) -> list[list[str]]:
        """The terms of each text, computed in parallel without the GIL."""
    @property
    def name(self) -> str:
        """The preset name, or ``"custom"``."""
    @property
    def config(self) -> dict[str, object]:
        """The full configuration."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class Hit:
    """One search result; unpacks as ``docid, score, rank``."""

    def __init__(self, docid: str, score: float, rank: int) -> None: ...
    @property
    def docid(self) -> str: ...
    @property
    def score(self) -> float:
        """The score, a float32 value."""
    @property
    def rank(self) -> int:
        """1-based rank."""
    def __iter__(self) -> Iterable[str | float | int]: ...
    def __eq__(self, other: object) -> bool: ...

class TermExplanation:
    """One query term's share of a score."""

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

class Explanation:
    """A score broken down by query term; ``str()`` prints it with the formula."""

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
    def terms(self) -> list[TermExplanation]: ...

class Index:
    """An immutable inverted index, safe to share between threads.

    Build it with :meth:`build`, :meth:`from_jsonl` or :meth:`from_source_tree`,
    or open a saved one with :meth:`load`. All scoring parameters are chosen
    per query. A saved index pickles as its path, an in-memory one as its bytes.
    """

    @staticmethod
    def build(
        docs: Iterable[DocLike],
        *,
        analyzer: PresetName | str | Analyzer = "lucene-english",
        store: bool = True,
        threads: int | None = None,
        progress: bool = True,
        memory_mb: float = 256,
        duplicates: Literal["error", "keep"] = "error",
    ) -> Index:
        """Indexes ``(docid, text)`` pairs or dicts (``{"id", "contents"}``, or
        BEIR ``{"_id", "title", "text"}`` indexed as ``title + " " + text``).
        With ``store``, the documents are kept for :meth:`doc` and :meth:`contents`.
        ``memory_mb`` bounds the memory the build keeps uncompressed: past it, the
        postings gathered so far are compressed into a segment of their own, and
        the segments are merged into one at the end (the index is the same
        whatever the budget; only the build's time and peak memory change).
        ``duplicates="keep"`` indexes every copy of a repeated docid, as Lucene
        does (see :meth:`add`). ``threads`` is ``None`` (all cores) or between 1
        and 256 (four per core on larger machines); every call with threads runs
        on a kept pool, rebuilt after ``fork()``.

        Raises
        ------
        DocumentError
            For an empty docid, or a duplicate one unless ``duplicates="keep"``.
        QueryError
            For ``threads`` out of range or an unknown ``duplicates`` policy.
        TypeError
            For an item that is neither a pair nor a dict, or non-str fields.
        """
    @staticmethod
    def from_jsonl(
        path: StrPath,
        *,
        analyzer: PresetName | str | Analyzer = "lucene-english",
        store: bool = True,
        threads: int | None = None,
        progress: bool = True,
        memory_mb: float = 256,
        duplicates: Literal["error", "keep"] = "error",
    ) -> Index:
        """Indexes JSONL files (``.jsonl``, ``.jsonl.gz``, ``.json``; a file or a folder),
        reading them in a stream; ``memory_mb``, ``threads`` and ``duplicates`` are as
        for :meth:`build`.

        Raises
        ------
        ParseError
            For a malformed line, with ``path`` and ``line`` set.
        """
    @staticmethod
    def from_source_tree(
        root: StrPath,
        *,
        analyzer: PresetName | str | Analyzer = "code",
        max_file_bytes: int = 1048576,
        store: bool = True,
        threads: int | None = None,
        progress: bool = True,
    ) -> Index:
        """Indexes the text files under ``root`` (honouring ``.gitignore``), one
        document per file, docid = relative path."""
    @staticmethod
    def load(path: StrPath, *, mmap: bool = True) -> Index:
        """Opens an index saved with :meth:`save`; ``mmap`` maps its large files
        (milliseconds to open, pages shared between processes) instead of reading them.

        Raises
        ------
        FileNotFoundError
            If the folder does not exist.
        IndexCorruptedError
            If a file is missing, truncated or damaged.
        IndexVersionError
            If the index was written in another format version.
        """
    def save(self, path: StrPath) -> None:
        """Saves into the folder ``path``, crash-safely; replaces only an existing
        rserini index.

        Raises
        ------
        FileExistsError
            If ``path`` is a non-empty folder that is not an rserini index.
        IndexLockedError
            If another writer holds the folder.
        """
    def add(
        self, docs: Iterable[DocLike], *, duplicates: Literal["error", "keep"] = "error"
    ) -> None:
        """Queues documents to add at the next :meth:`commit` (takes the folder's
        writer lock when the index lives in a folder).

        With ``duplicates="keep"``, a docid already in the index (or given twice) is
        indexed again, as Lucene's ``addDocument`` does: every copy is searched and
        ranked on its own, copies with equal scores in the order they were added;
        :meth:`doc`, :meth:`contents`, :meth:`explain` and ``in`` read the first copy;
        :meth:`delete` deletes every copy. One commit's additions share one policy
        (a :class:`QueryError` otherwise)."""
    def add_jsonl(self, path: StrPath, *, duplicates: Literal["error", "keep"] = "error") -> int:
        """Queues the documents of JSONL files; returns how many."""
    def delete(self, docids: str | Sequence[str]) -> None:
        """Queues documents to delete at the next :meth:`commit`; a docid with several
        copies loses them all, as Lucene's delete-by-term.

        Raises
        ------
        UnknownDocidError
            For a docid that is neither in the index nor queued.
        """
    def commit(self, *, threads: int | None = None) -> None:
        """Applies the queued changes (deletions, then additions as a new segment,
        then merges) on top of the latest saved state, saves them crash-safely if
        the index lives in a folder, and releases the writer lock. A failed
        commit discards the queued changes."""
    def rollback(self) -> None:
        """Discards the queued changes and releases the writer lock."""
    def optimize(self) -> None:
        """Merges all segments into one, dropping deleted documents."""
    def verify(self) -> None:
        """Checks every file of the saved index, including the checksums of large
        files that loading skips; raises :class:`IndexCorruptedError`."""
    @property
    def has_pending_changes(self) -> bool:
        """Whether changes are waiting for :meth:`commit`."""
    def doc(self, docid: str) -> dict[str, object]:
        """The original fields of a stored document (its JSON object, or
        ``{"id", "contents"}`` for a pair).

        Raises
        ------
        UnknownDocidError
            For a docid not in the index.
        QueryError
            If the index was built with ``store=False``.
        """
    def contents(self, docid: str) -> str:
        """The indexed text of a stored document."""
    @property
    def path(self) -> Path | None:
        """Where the index was last saved or loaded from."""
    @property
    def source(self) -> str | None:
        """Origin of the documents, if recorded."""
    @property
    def analyzer(self) -> Analyzer:
        """The analyzer of documents and queries."""
    def stats(self) -> dict[str, object]:
        """Counts (live documents, terms, postings, total terms, avgdl, segments,
        deleted documents), sizes (postings and store bytes) and the analyzer.
        ``avgdl`` is the mean length over all documents (0 for an empty index);
        ``avgdl_lucene`` and ``avgdl_exact`` are the means BM25 scores with under
        ``length="lucene"`` (documents with at least one indexed term, as Lucene)
        and ``length="exact"`` (every document)."""
    def __len__(self) -> int: ...
    def __contains__(self, docid: str) -> bool: ...
    def docids(self, ids: npt.ArrayLike) -> list[str] | list[list[str]]:
        """Maps internal ids (1-D or 2-D, ``-1`` skipped) to docids. The ids array of
        :meth:`batch_search` (or a view of it) is read in the snapshot that produced
        it, even after a commit; other ids (lists, copies) in the current one."""
    def search(
        self,
        query: str,
        k: int = 10,
        *,
        model: ModelName = "bm25",
        variant: Variant = "lucene",
        k1: float = 0.9,
        b: float = 0.4,
        length: LengthMode = "lucene",
        delta: float | None = None,
        algorithm: Algorithm = "auto",
    ) -> list[Hit]:
        """The ``k`` best documents sharing a term with ``query``: score
        descending, then docid ascending. ``algorithm`` chooses how the top k is
        found (exhaustive scoring or exact MaxScore / block-max WAND pruning);
        every choice returns the same hits, ``"auto"`` picks the fastest.

        Raises
        ------
        QueryError
            For an empty query, ``k`` outside [1, 2**63 - 1], ``k1`` or ``delta``
            negative or not finite in float32, or ``b`` outside [0, 1].
        TypeError
            For a ``k`` that is not an int.
        """
    def search_pairs(
        self,
        query: str,
        k: int = 10,
        *,
        model: ModelName = "bm25",
        variant: Variant = "lucene",
        k1: float = 0.9,
        b: float = 0.4,
        length: LengthMode = "lucene",
        delta: float | None = None,
        algorithm: Algorithm = "auto",
    ) -> list[tuple[str, float]]:
        """``search`` as ``(docid, score)`` tuples, best first, without ``Hit``
        objects: the cheapest way to a deep ranking (evaluation, fusion).
        Raises as ``search`` does."""
    def batch_search(
        self,
        queries: Sequence[str],
        k: int = 1000,
        *,
        threads: int | None = None,
        model: ModelName = "bm25",
        variant: Variant = "lucene",
        k1: float = 0.9,
        b: float = 0.4,
        length: LengthMode = "lucene",
        delta: float | None = None,
        algorithm: Algorithm = "auto",
    ) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.float32]]:
        """Runs all queries in parallel without the GIL; returns ``(ids, scores)``
        of shape ``(len(queries), k)``, padded with ``-1`` / ``-inf``. ``ids`` stays
        bound to the snapshot searched: :meth:`docids` maps it right even after a
        commit. ``threads`` as for :meth:`build`."""
    def batch_search_pairs(
        self,
        queries: Sequence[str],
        k: int = 1000,
        *,
        threads: int | None = None,
        model: ModelName = "bm25",
        variant: Variant = "lucene",
        k1: float = 0.9,
        b: float = 0.4,
        length: LengthMode = "lucene",
        delta: float | None = None,
        algorithm: Algorithm = "auto",
    ) -> list[list[tuple[str, float]]]:
        """``batch_search`` as ``(docid, score)`` tuples: one list per query, in
        input order, each as ``search_pairs`` gives it (``[]`` for an empty query).
        The calling thread makes the tuples of each ranking as soon as it is found,
        and searches too (without the GIL) while none is waiting."""
    def explain(
        self,
        query: str,
        docid: str,
        *,
        model: ModelName = "bm25",
        variant: Variant = "lucene",
        k1: float = 0.9,
        b: float = 0.4,
        length: LengthMode = "lucene",
        delta: float | None = None,
    ) -> Explanation:
        """Breaks the score of ``docid`` for ``query`` down by term."""
    def query_terms(self, query: str) -> list[tuple[str, int, bool]]:
        """``(term, query frequency, known to the index)`` for each distinct query term."""

def rrf(
    rankings: Sequence[Sequence[str]] | Sequence[Sequence[int]],
    k: float = 60.0,
    weights: Sequence[float] | None = None,
    depth: int | None = None,
) -> list[tuple[str | int, float]]:
    """Reciprocal-rank fusion: ``sum_i w_i / (k + rank_i + 1)``, 0-based ranks;
    an item repeated within a ranking counts once, at its first (best) rank;
    ties keep first appearance (ranking 0 first). Only the first ``depth``
    entries of each ranking count when given."""

def rrf_full_depth(
    num_docs: int,
    rankings: Sequence[Sequence[int]],
    k: float = 60.0,
    weights: Sequence[float] | None = None,
    top: int | None = None,
) -> list[tuple[int, float]]:
    """Fusion over documents ``0..num_docs``, each ranking continuing with its
    unlisted documents in ascending order; the ``top`` best. Memory grows with
    the rankings and ``top``, not ``num_docs``; :class:`MemoryError` when the
    result cannot be held."""

def _check_bm25(
    k1: float, b: float, *, variant: Variant = "lucene", delta: float | None = None
) -> None:
    """Checks BM25 parameters as every search does; raises :class:`QueryError`."""

def _index_from_files(files: Mapping[str, bytes], source: str | None = None) -> Index:
    """Rebuilds an in-memory index from its pickled files."""

def read_queries(path: StrPath) -> list[tuple[str, str]]:
    """Reads a BEIR ``queries.jsonl`` or a ``qid<TAB>text`` file."""

def source_fingerprint(root: StrPath, max_file_bytes: int = 1048576) -> str:
    """Fingerprint of the files under ``root`` as :meth:`Index.from_source_tree` sees them."""

def saved_index_source(path: StrPath) -> str | None:
    """The ``source`` recorded in a saved index."""
