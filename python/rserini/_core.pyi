"""Type stubs of the compiled ``rserini._core`` extension module."""

from collections.abc import Iterable, Mapping, Sequence
from os import PathLike
from pathlib import Path
from typing import Literal, TypeAlias, final

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

@final
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

    def __new__(
        cls,
        name: PresetName | str = "lucene-english",
        *,
        tokenizer: Literal["standard", "word", "whitespace"] | None = None,
        lowercase: bool | None = None,
        possessive: bool | None = None,
        code_subtokens: bool | None = None,
        stopwords: str | Sequence[str] | None = None,
        stemmer: Literal["none", "porter", "snowball-english"] | None = None,
    ) -> Analyzer: ...
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
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Hit:
    """One search result; unpacks as ``docid, score, rank``."""

    def __new__(cls, docid: str, score: float, rank: int) -> Hit: ...
    @property
    def docid(self) -> str: ...
    @property
    def score(self) -> float:
        """The score, a float32 value."""
    @property
    def rank(self) -> int:
        """1-based rank."""
    def __iter__(self) -> Iterable[str | float | int]: ...
    def __eq__(self, other: object, /) -> bool: ...

@final
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

@final
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

@final
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
    ) -> Index:
        """Indexes ``(docid, text)`` pairs or dicts (``{"id", "contents"}``, or
        BEIR ``{"_id", "title", "text"}`` indexed as ``title + " " + text``).
        With ``store``, the documents are kept for :meth:`doc` and :meth:`contents`.
        ``memory_mb`` bounds the memory the build keeps uncompressed: past it, the
        postings gathered so far are compressed into a segment of their own, and
        the segments are merged into one at the end (the index is the same
        whatever the budget; only the build's time and peak memory change).

        Raises
        ------
        DocumentError
            For an empty or duplicate docid.
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
        max_line_bytes: int = 67108864,
    ) -> Index:
        """Indexes JSONL files (``.jsonl``, ``.jsonl.gz``, ``.json``; a file or a folder),
        reading them in a stream; ``memory_mb`` is as for :meth:`build`. In a folder
        holding ``corpus.jsonl`` or ``corpus.jsonl.gz`` (a BEIR data set) only that
        file is read. A UTF-8 byte order mark opening a file is skipped.

        Raises
        ------
        ParseError
            For a malformed line, or one longer than ``max_line_bytes`` (64 MiB by
            default), with ``path`` and ``line`` set.
        DocumentError
            For a corpus file that is not a regular file (a FIFO, a device).
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
        document per file, docid = relative path; a file whose path is not UTF-8 is
        left out, since no docid names it losslessly."""
    @staticmethod
    def load(path: StrPath, *, mmap: bool = True) -> Index:
        """Opens an index saved with :meth:`save`; ``mmap`` maps its large files
        (milliseconds to open, pages shared between processes) instead of reading them.

        Raises
        ------
        FileNotFoundError
            If the folder does not exist.
        IndexCorruptedError
            If a file is missing, truncated or damaged, or is a link, FIFO or device
            (links inside an index folder are never followed).
        IndexVersionError
            If the index was written in another format version.
        MemoryError
            If ``mmap=False`` and a file does not fit in memory.
        """
    def save(self, path: StrPath) -> None:
        """Saves into the folder ``path``, crash-safely; replaces only an existing
        rserini index.

        Raises
        ------
        FileExistsError
            If ``path`` is a non-empty folder that is not an rserini index (its
            ``meta.json``, if any, is not an index's); nothing in it is touched.
        IndexLockedError
            If another writer holds the folder.
        """
    def add(self, docs: Iterable[DocLike]) -> None:
        """Queues documents to add at the next :meth:`commit` (takes the folder's
        writer lock when the index lives in a folder).

        Raises
        ------
        IndexLockedError
            If another writer holds the folder, or this process was forked from the
            process that took the lock (a child never commits its parent's changes).
        """
    def add_jsonl(self, path: StrPath, *, max_line_bytes: int = 67108864) -> int:
        """Queues the documents of JSONL files (read as by :meth:`from_jsonl`);
        returns how many."""
    def delete(self, docids: str | Sequence[str]) -> None:
        """Queues documents to delete at the next :meth:`commit`.

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
        deleted documents), sizes (postings and store bytes) and the analyzer."""
    def __len__(self) -> int: ...
    def __contains__(self, docid: str, /) -> bool: ...
    def docids(self, ids: npt.ArrayLike) -> list[str] | list[list[str]]:
        """Maps internal ids (1-D or 2-D, ``-1`` skipped) to docids."""
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
        descending, then docid ascending.

        Parameters
        ----------
        query
            The query text, analyzed as the documents were.
        k
            The number of hits (any positive number: 1000 is as cheap per hit as 10).
        model
            ``"bm25"`` or ``"tfidf"`` (cosine of log-tf, smoothed-idf vectors).
        variant
            The BM25 variant: ``"lucene"`` (Pyserini's), ``"robertson"``, ``"atire"``,
            ``"bm25l"`` or ``"bm25+"``.
        k1, b
            BM25's term-frequency saturation (``k1 >= 0``) and length normalisation
            (``0 <= b <= 1``); 0.9 and 0.4 are Pyserini's defaults.
        length
            ``"lucene"``: Lucene's one-byte document-length norm and statistics, as
            Pyserini; ``"exact"``: exact token counts.
        delta
            The delta of ``bm25l`` (default 0.5) and ``bm25+`` (default 1.0).
        algorithm
            How the top k is found: ``"exhaustive"`` scoring, exact ``"maxscore"`` or
            block-max WAND (``"bmw"``) pruning; every choice returns the same hits,
            ``"auto"`` picks the fastest.

        Returns
        -------
        list[Hit]
            At most ``k`` hits, best first (fewer when fewer documents match).

        Raises
        ------
        QueryError
            For an empty query, ``k <= 0``, ``k1 < 0`` or ``b`` outside [0, 1].
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
        Parameters and errors as ``search``.
        """
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
        """Runs all queries in parallel without the GIL; returns ``(ids, scores)``,
        two arrays of shape ``(len(queries), min(k, N))`` for an index of ``N``
        documents: int32 internal ids, ``-1`` padding rows with fewer hits, and
        float32 scores, ``-inf`` padding. :meth:`docids` maps the ids to docids; an
        empty query gives a row of padding. Other parameters and errors as
        ``search``; ``threads`` defaults to all cores.
        """
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
        and searches too (without the GIL) while none is waiting.
        """
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
        """Breaks the score of ``docid`` for ``query`` down by term: each term's
        query and document frequencies, idf and share, with the formula; ``str()``
        prints it. Parameters as ``search``; an unknown docid raises
        ``UnknownDocidError``.
        """
    def query_terms(self, query: str) -> list[tuple[str, int, bool]]:
        """``(term, query frequency, known to the index)`` for each distinct query term."""
    def term_stats(self, query: str) -> list[tuple[str, int, int]]:
        """``(term, query frequency, document frequency)`` for each distinct analyzed
        term of ``query``, in first-occurrence order; df counts live documents. With
        ``stats()``'s ``num_docs`` and ``avgdl``, enough to score any text span with the
        index's BM25 statistics."""

def rrf(
    rankings: Sequence[Sequence[str]] | Sequence[Sequence[int]],
    k: float = 60.0,
    weights: Sequence[float] | None = None,
    depth: int | None = None,
) -> list[tuple[str | int, float]]:
    """Reciprocal-rank fusion: ``sum_i w_i / (k + rank_i + 1)``, 0-based ranks;
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
    unlisted documents in ascending order; the ``top`` best."""

def _index_from_files(files: Mapping[str, bytes], source: str | None = None) -> Index:
    """Rebuilds an in-memory index from its pickled files."""

def read_queries(path: StrPath) -> list[tuple[str, str]]:
    """Reads a BEIR ``queries.jsonl`` or a ``qid<TAB>text`` file."""

def source_fingerprint(root: StrPath, max_file_bytes: int = 1048576) -> str:
    """Fingerprint of the files under ``root`` as :meth:`Index.from_source_tree` sees them."""

def saved_index_source(path: StrPath) -> str | None:
    """The ``source`` recorded in a saved index."""

def list_source_files(
    root: StrPath, *, max_file_bytes: int = 1048576, generated_names: Sequence[str] = ()
) -> tuple[list[tuple[str, int, int]], dict[str, int]]:
    """``(path, size, mtime_ns)`` of each file under ``root``, sorted by path (honouring
    ``.gitignore``; no hidden file, no symbolic link, nothing under ``.rserini/``), and
    how many files were left out, by reason: larger than ``max_file_bytes`` (``huge``),
    a name matching ``generated_names`` (``generated``) or a path that is not UTF-8
    (``non_utf8_name``). Nothing is read.

    Raises
    ------
    FileNotFoundError
        If ``root`` is not a folder.
    ValueError
        For a malformed glob in ``generated_names``.
    """

def read_source_files(
    root: StrPath,
    paths: Sequence[str],
    *,
    max_file_bytes: int = 1048576,
    generated_markers: Sequence[str] = (),
    header_lines: int = 0,
    max_line_bytes: int | None = None,
) -> list[tuple[str | None, str | None, str | None]]:
    """``(skip reason, BLAKE3 hex hash of the bytes, text)`` of each of ``paths`` under
    ``root``, read in parallel without the GIL. The reason is ``None`` for a text file,
    else ``unreadable`` or ``huge`` (no hash), ``binary`` (a NUL byte), ``non_utf8``, or
    ``generated`` (a marker in the first ``header_lines`` lines, or a line longer than
    ``max_line_bytes``); the text is given only for a text file."""

def chunk_lines(text: str, lines: int) -> list[tuple[int, int, str]]:
    """``(start_line, end_line, text)`` of each run of ``lines`` lines of ``text``
    (1-based, inclusive; lines end at ``\\n``; the last run may be shorter). The runs
    tile the text; a blank text has none.

    Raises
    ------
    ValueError
        If ``lines`` is 0.
    """
