"""Type stubs of the compiled ``rserini._core`` extension module."""

from collections.abc import Iterable, Iterator, Mapping, Sequence
from os import PathLike
from pathlib import Path
from typing import Any, Literal, TypeAlias, TypedDict, final, overload

import numpy as np
import numpy.typing as npt
from typing_extensions import Unpack

from rserini.columns import Columns
from rserini.retrieval.document import Document

__version__: str
INDEX_FORMAT_VERSION: int
ANALYZER_PRESETS: list[str]
DOCID_FIELDS: tuple[str, ...]
DEFAULT_K1: float
DEFAULT_B: float
DEFAULT_MU: float
MODELS: tuple[str, ...]
BM25_VARIANTS: tuple[str, ...]
LENGTH_MODES: tuple[str, ...]
TOKENIZERS: tuple[str, ...]
STEMMERS: tuple[str, ...]
STOPWORD_LISTS: tuple[str, ...]
ALGORITHMS: tuple[str, ...]
DEFAULT_MEMORY_MB: int
DEFAULT_MAX_LINE_BYTES: int

PresetName: TypeAlias = Literal["lucene-english", "plain", "code", "whitespace"]
ModelName: TypeAlias = Literal["bm25", "tfidf", "qld"]
Variant: TypeAlias = Literal["lucene", "robertson", "atire", "bm25l", "bm25+"]
LengthMode: TypeAlias = Literal["lucene", "exact"]
Algorithm: TypeAlias = Literal["auto", "exhaustive", "maxscore", "bmw"]
StrPath: TypeAlias = str | PathLike[str]
DocLike: TypeAlias = tuple[str, str] | Mapping[str, str] | Document

@final
class Analyzer:
    """A text analysis chain: a named preset, optionally with steps overridden.

    Parameters
    ----------
    name
        Preset: ``"lucene-english"`` (Pyserini's default analyzer: UAX#29 words,
        possessives, lowercase, 33 stopwords, Porter), ``"plain"`` (Python's
        ``\\w+`` on lowercased text), ``"code"`` (``plain`` plus identifier
        sub-tokens), ``"whitespace"``, or ``"lucene-<code>"``: Lucene's analyzer
        for a language, as Pyserini's ``get_lucene_analyzer(language=<code>)``
        (``rserini.ANALYZER_PRESETS`` lists them).
    tokenizer, lowercase, possessive, code_subtokens, stopwords, stemmer
        Override one step of the preset. ``stopwords`` is ``"none"``,
        ``"lucene-english"``, a language's ``"lucene-<code>"`` or a list of words;
        ``stemmer`` is ``"none"``, ``"porter"``, ``"snowball-english"`` or, for a
        language preset, ``"lucene"`` (its own).

    Raises
    ------
    AnalyzerError
        For an unknown preset or option, or ``"lucene-ja"`` without its dictionary
        (``pip install 'rserini[ja]'``).
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
        stemmer: Literal["none", "porter", "snowball-english", "lucene"] | None = None,
    ) -> Analyzer: ...
    def analyze(self, text: str) -> list[str]:
        """The terms of ``text``, in order."""
    def analyze_with_offsets(self, text: str) -> list[tuple[str, int, int]]:
        """The terms of ``text`` with where each comes from: ``(term, start, end)``
        with ``text[start:end]`` its source (``str`` indices; Lucene's
        ``OffsetAttribute`` counts UTF-16 units instead, the same for text
        within the Basic Multilingual Plane). A stemmed or normalized term
        spans its whole token, a CJK bigram both characters; the terms are
        :meth:`analyze`'s."""
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
class Bm25:
    """BM25's parameters as one value: ``scoring=Bm25(...)`` in every search,
    ``explain``, the feedback searches, ``LuceneSearcher`` and ``tune``.

    Frozen, comparable, hashable and picklable; every parameter is checked here,
    once.

    Parameters
    ----------
    k1
        Term-frequency saturation, ``>= 0`` and finite in float32
        (:data:`DEFAULT_K1`, Pyserini's 0.9).
    b
        Length normalisation, in [0, 1] (:data:`DEFAULT_B`, Pyserini's 0.4).
    variant
        One of :data:`BM25_VARIANTS`: ``"lucene"`` (Pyserini's), ``"robertson"``,
        ``"atire"``, ``"bm25l"`` or ``"bm25+"``.
    length
        One of :data:`LENGTH_MODES`: ``"lucene"`` (Lucene's one-byte
        document-length norm and statistics, as Pyserini) or ``"exact"``.
    delta
        The delta of ``bm25l`` and ``bm25+``, in [0, 1000]; ``None`` takes the
        variant's default (0.5 and 1.0).

    Raises
    ------
    QueryError
        For ``k1`` negative or not finite in float32, ``delta`` outside [0, 1000],
        ``b`` outside [0, 1], or an unknown variant or length mode.
    """

    def __new__(
        cls,
        k1: float = 0.9,
        b: float = 0.4,
        variant: Variant = "lucene",
        length: LengthMode = "lucene",
        delta: float | None = None,
    ) -> Bm25: ...
    @property
    def k1(self) -> float:
        """Term-frequency saturation."""
    @property
    def b(self) -> float:
        """Length normalisation."""
    @property
    def variant(self) -> Variant:
        """The variant's name."""
    @property
    def length(self) -> LengthMode:
        """The length mode's name."""
    @property
    def delta(self) -> float | None:
        """The delta as given (``None``: the variant's default)."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    def __reduce__(
        self,
    ) -> tuple[type[Bm25], tuple[float, float, Variant, LengthMode, float | None]]:
        """Pickle rebuilds the value from its constructor's arguments."""

@final
class Rm3:
    """RM3 pseudo-relevance feedback, as Anserini's reranker (Pyserini's
    ``set_rm3``): ``feedback=Rm3(...)`` in the searches, over a Lucene BM25 first
    stage. The defaults are Pyserini's (``Rm3()`` shows them).

    Frozen, comparable, hashable and picklable; every parameter is checked here,
    once.

    Parameters
    ----------
    fb_terms
        Expansion terms, >= 1.
    fb_docs
        Feedback documents, >= 1 (at most 50 are used, as in Anserini).
    original_query_weight
        Weight of the original query, in [0, 1] (float32, as Anserini's).
    filter_terms
        Keep only ``[a-z0-9]+`` feedback terms.

    Raises
    ------
    QueryError
        For values outside those ranges.
    """

    def __new__(
        cls,
        fb_terms: int = ...,
        fb_docs: int = ...,
        original_query_weight: float = ...,
        filter_terms: bool = ...,
    ) -> Rm3: ...
    @property
    def fb_terms(self) -> int:
        """Expansion terms."""
    @property
    def fb_docs(self) -> int:
        """Feedback documents."""
    @property
    def original_query_weight(self) -> float:
        """Weight of the original query, as given."""
    @property
    def filter_terms(self) -> bool:
        """Whether only ``[a-z0-9]+`` feedback terms are kept."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    def __reduce__(self) -> tuple[type[Rm3], tuple[int, int, float, bool]]:
        """Pickle rebuilds the value from its constructor's arguments."""

@final
class Rocchio:
    """Rocchio pseudo-relevance feedback, as Anserini's reranker (Pyserini's
    ``set_rocchio``): ``feedback=Rocchio(...)`` in the searches, over a Lucene
    BM25 first stage searched to the depth asked. The defaults are Pyserini's
    (``Rocchio()`` shows them).

    Frozen, comparable, hashable and picklable; every parameter is checked here,
    once.

    Parameters
    ----------
    top_fb_terms, top_fb_docs
        Terms and documents from the top of the first stage, >= 1.
    bottom_fb_terms, bottom_fb_docs
        The same from its bottom, used with ``use_negative``.
    alpha, beta, gamma
        Weights of the query, the top and the bottom documents, in [0, 1]
        (float32, as Anserini's).
    use_negative
        Subtract the bottom documents' mean vector.

    Raises
    ------
    QueryError
        For values outside those ranges.
    """

    def __new__(
        cls,
        top_fb_terms: int = ...,
        top_fb_docs: int = ...,
        bottom_fb_terms: int = ...,
        bottom_fb_docs: int = ...,
        alpha: float = ...,
        beta: float = ...,
        gamma: float = ...,
        use_negative: bool = ...,
    ) -> Rocchio: ...
    @property
    def top_fb_terms(self) -> int:
        """Terms kept from the top documents."""
    @property
    def top_fb_docs(self) -> int:
        """Top documents."""
    @property
    def bottom_fb_terms(self) -> int:
        """Terms kept from the bottom documents."""
    @property
    def bottom_fb_docs(self) -> int:
        """Bottom documents."""
    @property
    def alpha(self) -> float:
        """Weight of the original query, as given."""
    @property
    def beta(self) -> float:
        """Weight of the top documents, as given."""
    @property
    def gamma(self) -> float:
        """Weight of the bottom documents, as given."""
    @property
    def use_negative(self) -> bool:
        """Whether the bottom documents count (negative feedback)."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    def __reduce__(
        self,
    ) -> tuple[type[Rocchio], tuple[int, int, int, int, float, float, float, bool]]:
        """Pickle rebuilds the value from its constructor's arguments."""

@final
class IndexStats:
    """An index's statistics (:meth:`Index.stats`): counts of live documents, terms
    and postings, sizes, the mean lengths and the analyzer. Frozen and typed; also a
    read-only mapping with the same keys (``stats["num_docs"]``, ``keys()``,
    ``items()``, ``get()``, ``dict(stats)``), and :meth:`to_dict` gives a plain dict.
    Equal to another :class:`IndexStats` or a mapping with the same items."""

    @property
    def num_docs(self) -> int:
        """Live documents, empty ones included."""
    @property
    def num_nonempty_docs(self) -> int:
        """Live documents with at least one indexed term (Lucene's ``docCount``)."""
    @property
    def num_terms(self) -> int:
        """Distinct terms over all segments (a deleted document's terms may count until
        its segment merges)."""
    @property
    def num_postings(self) -> int:
        """``(term, document)`` pairs stored, deleted documents included."""
    @property
    def total_terms(self) -> int:
        """The sum of the live documents' lengths."""
    @property
    def avgdl(self) -> float:
        """The mean length over every live document (``total_terms / num_docs``), 0 for
        an empty index."""
    @property
    def avgdl_lucene(self) -> float:
        """The mean length BM25 scores with under ``length="lucene"`` (the default):
        over the documents with at least one indexed term, as Lucene's ``docCount``;
        1 for an index without terms."""
    @property
    def avgdl_exact(self) -> float:
        """The mean length BM25 scores with under ``length="exact"``: over every live
        document, as :attr:`avgdl`, but 1 for an empty index."""
    @property
    def postings_bytes(self) -> int:
        """Bytes of compressed postings."""
    @property
    def store_bytes(self) -> int:
        """Bytes of the compressed document store (0 without one)."""
    @property
    def num_segments(self) -> int:
        """Segments."""
    @property
    def num_deleted(self) -> int:
        """Deleted documents not yet merged away."""
    @property
    def analyzer(self) -> dict[str, Any]:
        """The analyzer's configuration (:attr:`Analyzer.config`)."""
    def to_dict(self) -> dict[str, Any]:
        """The statistics as a plain dict, keys in :meth:`keys` order."""
    def keys(self) -> list[str]:
        """The keys: the names of the properties."""
    def values(self) -> list[Any]:
        """The values, in :meth:`keys` order."""
    def items(self) -> list[tuple[str, Any]]:
        """``(key, value)`` pairs, in :meth:`keys` order."""
    def get(self, key: object, default: Any = None) -> Any:
        """The value of ``key``, or ``default`` when there is no such key."""
    def __getitem__(self, key: str, /) -> Any: ...
    def __contains__(self, key: object, /) -> bool: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[str]: ...
    def __eq__(self, other: object, /) -> bool: ...

@final
class GlobalStats:
    """Collection statistics as integers: what a shard contributes to, and a
    search takes as ``stats=`` to score as one index of the whole collection.

    Counts are of live documents. Frozen, comparable, hashable and picklable;
    ``a + b`` and :meth:`sum` add every count (dfs term by term), so the
    statistics of a partition's parts sum to those of the whole.

    Parameters
    ----------
    documents
        Live documents, empty ones included (N of ``length="exact"``).
    documents_with_terms
        Live documents with at least one indexed term (Lucene's ``docCount``:
        N of ``length="lucene"``), at most ``documents`` and ``total_terms``.
    total_terms
        The sum of the live documents' lengths (avgdl's numerator).
    dfs
        Analyzed term → live documents holding it, each at most
        ``documents_with_terms``.
    cfs
        Analyzed term → its occurrences in live documents (collection
        frequency), between its df and ``total_terms``: needed by ``model="qld"``
        only (``Index.global_stats(queries, cfs=True)``).

    Raises
    ------
    ValueError
        For a negative count or one beyond 64 bits, or inconsistent counts.
    TypeError
        For a count that is not an int, or ``dfs`` not a dict of str to int.
    """

    def __new__(
        cls,
        documents: int,
        documents_with_terms: int,
        total_terms: int,
        dfs: dict[str, int] | None = None,
        cfs: dict[str, int] | None = None,
    ) -> GlobalStats: ...
    @property
    def documents(self) -> int:
        """Live documents, empty ones included."""
    @property
    def documents_with_terms(self) -> int:
        """Live documents with at least one indexed term."""
    @property
    def total_terms(self) -> int:
        """The sum of the live documents' lengths."""
    @property
    def dfs(self) -> dict[str, int]:
        """Analyzed term → live document frequency (a new dict, in term order)."""
    @property
    def cfs(self) -> dict[str, int]:
        """Analyzed term → live collection frequency (a new dict, in term order)."""
    def __add__(self, other: GlobalStats, /) -> GlobalStats: ...
    def __radd__(self, other: GlobalStats, /) -> GlobalStats: ...
    @classmethod
    def sum(cls, parts: Iterable[GlobalStats]) -> GlobalStats:
        """The sum of ``parts`` (all counts zero for none), in 64-bit integers.

        Raises
        ------
        ValueError
            If a sum exceeds 2**64 - 1.
        TypeError
            For a part that is not a ``GlobalStats``.
        """
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    def __reduce__(
        self,
    ) -> tuple[type[GlobalStats], tuple[int, int, int, dict[str, int], dict[str, int]]]: ...

# BM25's ``k1`` and ``b`` as keywords (Lucene's BM25 of the feedback searches).
class LuceneBm25Keywords(TypedDict, total=False):
    k1: float
    b: float

# The keywords of ``batch_search_rm3`` and ``rm3_query``: :class:`Rm3`'s, and BM25's.
class Rm3Keywords(LuceneBm25Keywords, total=False):
    fb_terms: int
    fb_docs: int
    original_query_weight: float
    filter_terms: bool

# The keywords of ``batch_search_rocchio`` and ``rocchio_query``: :class:`Rocchio`'s,
# and BM25's.
class RocchioKeywords(LuceneBm25Keywords, total=False):
    top_fb_terms: int
    top_fb_docs: int
    bottom_fb_terms: int
    bottom_fb_docs: int
    alpha: float
    beta: float
    gamma: float
    use_negative: bool

# The scoring keywords of the searches and ``explain``, besides ``scoring=``.
class ScoringKeywords(LuceneBm25Keywords, total=False):
    model: ModelName
    variant: Variant
    length: LengthMode
    delta: float | None
    mu: float

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
        duplicates: Literal["error", "keep"] = "error",
        reorder: Literal["bp", "none"] | None = None,
        fields: Sequence[str] = (),
    ) -> Index:
        """Indexes ``(docid, text)`` pairs, :class:`rserini.Document` objects or dicts
        (``{"id", "contents"}``, or BEIR ``{"_id", "title", "text"}`` indexed as
        ``title + " " + text``).
        With ``store``, the documents are kept for :meth:`doc` and :meth:`contents`.
        ``memory_mb`` bounds the memory the build keeps uncompressed: past it, the
        postings gathered so far are compressed into a segment of their own, and
        the segments are merged into one at the end (the index is the same
        whatever the budget; only the build's time and peak memory change).
        ``duplicates="keep"`` indexes every copy of a repeated docid, as Lucene
        does (see :meth:`add`). ``threads`` is ``None`` (all cores) or between 1
        and 256 (four per core on larger machines); every call with threads runs
        on a kept pool, rebuilt after ``fork()``. ``reorder="bp"`` renumbers the
        documents by recursive graph bisection once built, so that documents sharing
        terms are adjacent (shorter gaps in the postings): the same results, for a
        build several times slower. ``fields`` names other fields to index beside
        the main text, as Anserini's ``-fields`` (``fields=["title"]``): a field's
        text is the document dict's member of that name (``None`` or missing: empty;
        a ``(docid, text)`` pair has none), analyzed as the main text; search them
        with ``fields=`` of :meth:`search` (:meth:`field_names`).

        Raises
        ------
        DocumentError
            For an empty docid, or a duplicate one unless ``duplicates="keep"``; for a
            named field whose value is not a string.
        QueryError
            For ``threads`` out of range or an unknown ``duplicates`` policy.
        ValueError
            For a ``reorder`` other than ``"bp"``, ``"none"`` or ``None``; for a field
            named twice, ``"contents"``, or not 1 to 128 ASCII letters, digits, ``_``,
            ``-`` or ``.``.
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
        max_line_bytes: int = 67108864,
        reorder: Literal["bp", "none"] | None = None,
        fields: Sequence[str] = (),
    ) -> Index:
        """Indexes JSONL files (``.jsonl``, ``.jsonl.gz``, ``.json``; a file or a folder),
        reading them in a stream; ``memory_mb``, ``threads``, ``duplicates``,
        ``reorder`` and ``fields`` (a line's members of those names) are as for
        :meth:`build`. In a folder holding ``corpus.jsonl`` or
        ``corpus.jsonl.gz`` (a BEIR data set) only that file is read. A UTF-8 byte order
        mark opening a file is skipped.

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
    def load(path: StrPath, *, mmap: bool = True, cache: bool | StrPath = True) -> Index:
        """Opens an index saved with :meth:`save`; ``mmap`` maps its large files
        (milliseconds to open, pages shared between processes) instead of reading them.

        A Lucene index folder (Anserini's, Pyserini's) is converted into rserini's
        format once and the conversion kept in a cache outside the folder, which is
        never written: ``cache=True`` uses rserini's cache folder (``$RSERINI_CACHE``,
        else ``$XDG_CACHE_HOME/rserini``, else ``~/.cache/rserini``), a path uses that
        folder instead, ``False`` converts in memory and writes nothing. A new commit
        of the Lucene index is converted again; a damaged cache entry is never used. A
        cache that cannot be written (read-only, full) gives a ``RuntimeWarning`` and
        the conversion in memory.

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
        (a :class:`QueryError` otherwise).

        Raises
        ------
        IndexLockedError
            If another writer holds the folder, or this process was forked from the
            process that took the lock (a child never commits its parent's changes).
        """
    def add_jsonl(
        self,
        path: StrPath,
        *,
        duplicates: Literal["error", "keep"] = "error",
        max_line_bytes: int = 67108864,
    ) -> int:
        """Queues the documents of JSONL files (read as by :meth:`from_jsonl`);
        returns how many."""
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
    def raw(self, docid: str) -> str | None:
        """The original document exactly as stored (Pyserini's ``raw()``: the JSON
        line, or for a Lucene index Anserini's ``raw`` field), ``None`` if only its
        text was kept. Errors as :meth:`doc`."""
    def contents(self, docid: str) -> str:
        """The indexed text of a stored document."""
    def raw_and_contents(self, docid: str) -> tuple[str | None, str]:
        """``(raw(docid), contents(docid))`` from one read of the document store (the
        agent servers need both for every previewed hit). Errors as :meth:`doc`."""
    def internal_id(self, docid: str) -> int:
        """The internal id of the live document ``docid`` (its first copy), the
        inverse of :meth:`docids`; in a Lucene index, Lucene's own docid."""
    def postings(
        self, term: str, *, deleted: bool = False
    ) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]:
        """The live postings of ``term``, taken as it is (not analyzed): internal
        ids, ascending, and term frequencies, two int32 arrays, empty when no
        live document holds the term. With ``deleted``, the postings of deleted
        documents too, as a Lucene index keeps them until its segments merge."""
    @property
    def path(self) -> Path | None:
        """Where the index was last saved or loaded from."""
    @property
    def source(self) -> str | None:
        """Origin of the documents, if recorded."""
    @property
    def lucene_version(self) -> str | None:
        """For an index opened from a Lucene folder, the Lucene version that wrote
        its commit (``"9.9.1"``); else ``None``."""
    def _with_source(self, source: str | None) -> Index:
        """This index's current snapshot, recording ``source`` as the origin of its
        documents when saved (no queued changes; for a sharded build, whose shards
        name the corpus rather than their spill file)."""
    @property
    def analyzer(self) -> Analyzer:
        """The analyzer of documents and queries."""
    def stats(self) -> IndexStats:
        """The index's counts, sizes, mean lengths and analyzer, as an
        :class:`IndexStats` (also a mapping with the keys of its properties).
        ``avgdl_lucene`` and ``avgdl_exact`` are the mean lengths BM25 scores with
        under ``length="lucene"`` (the default: documents with at least one indexed
        term, as Lucene's ``docCount``) and ``length="exact"`` (every document); they
        differ when some document has no indexed term. ``avgdl`` is the mean over
        every live document, ``avgdl_exact``'s value (but 0 for an empty index)."""
    def info(self) -> dict[str, Any]:
        """What ``rserini info`` prints: ``path``, ``format_version``, ``written_by``,
        ``generation``, ``bytes`` (of every file) and ``segments`` (``name``,
        ``documents``, ``deleted``) from the folder's ``meta.json``, with ``analyzer``,
        ``documents``, ``deleted``, ``terms``, ``postings``, ``avgdl`` (the mean length
        over every live document, ``stats()``'s), ``postings_bytes`` and ``store_bytes``;
        for a multifield index, ``fields`` (:meth:`field_names`).
        If another writer has committed since this snapshot, the folder's latest
        generation is described, as :meth:`load` would give it now.

        Raises
        ------
        ValueError
            If the index was never saved (it has no folder to describe).
        """
    def __len__(self) -> int: ...
    def __contains__(self, docid: str, /) -> bool: ...
    def field_names(self) -> list[str]:
        """The fields ``fields=`` of a search can name: ``"contents"`` first, then
        the others of an index that keeps several (a Lucene index built with
        Anserini's ``-fields``)."""
    def docids(self, ids: npt.ArrayLike) -> list[str] | list[list[str]]:
        """Maps internal ids (1-D or 2-D, ``-1`` skipped) to docids. The ids array of
        :meth:`batch_search`, its views, its numpy copies (``.copy()``, ``.astype()``)
        and its ``.tolist()`` are read in the snapshot that produced them, even after a
        commit (:mod:`rserini.snapshot_ids`); ids that lost it (unpickled) raise
        ``ValueError``; plain numbers (``internal_id``, ``np.array(ids)``) are read in
        the current one."""
    def search(
        self,
        query: str,
        k: int = 10,
        *,
        scoring: Bm25 | None = None,
        algorithm: Algorithm = "auto",
        stats: GlobalStats | None = None,
        feedback: Rm3 | Rocchio | None = None,
        fields: Mapping[str, float] | None = None,
        **options: Unpack[ScoringKeywords],
    ) -> list[Hit]:
        """The ``k`` best documents sharing a term with ``query``: score
        descending, then docid ascending.

        Parameters
        ----------
        query
            The query text, analyzed as the documents were.
        k
            The number of hits (any positive number: 1000 is as cheap per hit as 10).
        scoring
            A :class:`Bm25`: BM25's parameters as one value. Give it or the keywords
            below, not both (a ``TypeError``).
        algorithm
            How the top k is found: ``"exhaustive"`` scoring, exact ``"maxscore"`` or
            block-max WAND (``"bmw"``) pruning; every choice returns the same hits,
            ``"auto"`` picks the fastest.
        fields
            Search these fields with these boosts, as Pyserini's
            ``search(q, k, fields={"contents": 1.0, "title": 0.5})``: per field BM25
            under the field's own statistics, summed as Lucene sums a boolean query
            of boosted per-field queries. ``"contents"`` is the main field; the
            others are those of the index (:meth:`field_names`). BM25 only, with the
            index's own statistics and no feedback.
        model
            ``"bm25"``, ``"tfidf"`` (cosine of log-tf, smoothed-idf vectors) or ``"qld"``
            (query likelihood with Dirichlet smoothing, as Lucene's
            ``LMDirichletSimilarity``: Pyserini's ``set_qld``; scored exhaustively).
        variant, k1, b, length, delta
            BM25's parameters as keywords, each as :class:`Bm25` takes it (``k1=1.2``
            is ``scoring=Bm25(k1=1.2)``); ``k1`` and ``b`` default to
            :data:`DEFAULT_K1` and :data:`DEFAULT_B` (0.9 and 0.4, Pyserini's).
        mu
            The Dirichlet prior of ``"qld"`` (:data:`DEFAULT_MU`, Pyserini's 1000).
        stats
            A :class:`GlobalStats` to score with instead of the index's own
            statistics: those of a whole collection this index is a shard of
            (``GlobalStats.sum`` of every shard's :meth:`global_stats`), from which
            N, avgdl and idf are derived as one index derives its own; the shards'
            hits, merged by :func:`merge_topk`, are then the single index's, bit for
            bit. It must hold the df of every analyzed query term, and for
            ``model="qld"`` its collection frequency (``cfs``); not with ``"tfidf"``.
        feedback
            Pseudo-relevance feedback, an :class:`Rm3` or a :class:`Rocchio` (``None``:
            none), over a Lucene BM25 first stage (``scoring`` or the keywords, with
            ``variant`` and ``length`` ``"lucene"``) and the index's own statistics.

        Returns
        -------
        list[Hit]
            At most ``k`` hits, best first (fewer when fewer documents match).

        Raises
        ------
        QueryError
            For an empty query or one over :func:`query_limits`, ``k`` outside
            [1, 2**63 - 1], ``k1`` negative or not finite in float32, ``delta`` outside
            [0, 1000], ``b`` outside [0, 1], or ``mu`` not a positive normal float32;
            for ``stats`` lacking a query term's df, counting
            less than this index holds, or given with ``model="tfidf"`` (its document
            norms need every term's global df) or, without a query term's ``cfs``,
            with ``model="qld"``; for ``feedback`` with another model than Lucene's
            BM25, with ``stats``, or on an index without a document store.
        TypeError
            For a ``k`` that is not an int, an unknown keyword, both ``scoring``
            and a keyword of it, or a ``feedback`` that is not a feedback value.
        """
    def search_pairs(
        self,
        query: str,
        k: int = 10,
        *,
        scoring: Bm25 | None = None,
        algorithm: Algorithm = "auto",
        stats: GlobalStats | None = None,
        feedback: Rm3 | Rocchio | None = None,
        fields: Mapping[str, float] | None = None,
        **options: Unpack[ScoringKeywords],
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
        scoring: Bm25 | None = None,
        algorithm: Algorithm = "auto",
        stats: GlobalStats | None = None,
        feedback: Rm3 | Rocchio | None = None,
        fields: Mapping[str, float] | None = None,
        **options: Unpack[ScoringKeywords],
    ) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.float32]]:
        """Runs all queries in parallel without the GIL; returns ``(ids, scores)``,
        two arrays of shape ``(len(queries), min(k, N))`` for an index of ``N``
        documents: int32 internal ids, ``-1`` padding rows with fewer hits, and
        float32 scores, ``-inf`` padding. The ids are a
        :class:`~rserini.snapshot_ids.SnapshotIdArray`: :meth:`docids` maps them, their
        copies and their ``tolist()`` in the snapshot searched, even after a commit. An
        empty query gives a row of padding.
        Other parameters and errors as ``search``; ``threads`` defaults to all cores.
        """
    def batch_search_pairs(
        self,
        queries: Sequence[str],
        k: int = 1000,
        *,
        threads: int | None = None,
        scoring: Bm25 | None = None,
        algorithm: Algorithm = "auto",
        stats: GlobalStats | None = None,
        feedback: Rm3 | Rocchio | None = None,
        fields: Mapping[str, float] | None = None,
        **options: Unpack[ScoringKeywords],
    ) -> list[list[tuple[str, float]]]:
        """``batch_search`` as ``(docid, score)`` tuples: one list per query, in
        input order, each as ``search_pairs`` gives it (``[]`` for an empty query).
        The calling thread makes the tuples of each ranking as soon as it is found,
        and searches too (without the GIL) while none is waiting.
        """
    def batch_search_columns(
        self,
        queries: Sequence[str],
        k: int = 1000,
        *,
        threads: int | None = None,
        scoring: Bm25 | None = None,
        algorithm: Algorithm = "auto",
        stats: GlobalStats | None = None,
        feedback: Rm3 | Rocchio | None = None,
        fields: Mapping[str, float] | None = None,
        **options: Unpack[ScoringKeywords],
    ) -> Columns:
        """``batch_search`` as one :class:`Columns`: the rankings as four flat numpy
        arrays (row offsets, float32 scores, docid offsets, UTF-8 docid bytes), made
        without the GIL and without a Python object per hit. The compact form to
        ship many rankings between processes (:func:`merge_topk` merges them;
        ``Columns.to_pairs()`` gives ``batch_search_pairs``' lists). Parameters and
        errors as ``batch_search``.
        """
    def explain(
        self,
        query: str,
        docid: str,
        *,
        scoring: Bm25 | None = None,
        stats: GlobalStats | None = None,
        **options: Unpack[ScoringKeywords],
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
    def best_passages(
        self,
        query: str,
        units: Sequence[str],
        window: int,
        k: int = 1,
        *,
        scoring: Bm25 | None = None,
    ) -> list[tuple[int, int, float]]:
        """The ``k`` best windows of ``window`` consecutive ``units`` (lines, runs of
        words; at least 1, at most all of them) that do not overlap, best first, as
        ``(start, end, score)``: units ``start`` to ``end - 1`` (0-based) and a score
        above 0; ``[]`` when the query has no term or no window holds one.

        Each window is scored as a document of the collection of the text's windows:
        BM25 with the ``(k1 + 1)`` factor, ``qtf · idf · tf · (k1 + 1) / (tf + k1 · (1 -
        b + b · len / avglen))`` summed over the query's distinct terms, with idf the
        variant's over this index's live documents and document frequencies, ``len``
        the window's token count and ``avglen`` the mean window length (at least 1),
        in float64. ``scoring`` gives ``k1``, ``b`` and the idf's variant (its length
        mode and delta do not apply); by default ``k1=1.2``, ``b=0.75``, the usual
        passage setting, with Lucene's idf. Ties go to the earlier window. The units
        are analyzed with the index's analyzer, in parallel when there are many.

        Raises
        ------
        TypeError
            If ``units`` is a single str or holds something else.
        QueryError
            For a query past the query limits."""
    def collection_stats(self) -> GlobalStats:
        """The index's collection statistics as a :class:`GlobalStats` without dfs:
        live documents, those with at least one term, and their total length."""
    def term_dfs(self, terms: Sequence[str]) -> list[int]:
        """The live document frequency of each of ``terms``, analyzed terms taken as
        they are (not analyzed again); 0 for a term the index does not hold.

        Raises
        ------
        TypeError
            For a single str or an item that is not a str.
        """
    def term_cfs(self, terms: Sequence[str]) -> list[int]:
        """The live collection frequency (occurrences in live documents) of each of
        ``terms``, analyzed terms taken as they are; 0 for a term the index does not
        hold. Each costs a pass over the term's postings.

        Raises
        ------
        TypeError
            For a single str or an item that is not a str.
        """
    def global_stats(self, queries: Sequence[str], *, cfs: bool = False) -> GlobalStats:
        """:meth:`collection_stats` with the dfs of every analyzed term of
        ``queries``: what this index, as one shard of a collection, contributes to
        the :class:`GlobalStats` its shards search with (``GlobalStats.sum`` of
        every shard's). With ``cfs``, their collection frequencies too, which
        ``model="qld"`` needs (a pass over each term's postings).

        Raises
        ------
        TypeError
            For a single str or an item that is not a str.
        """
    def batch_search_rm3(
        self,
        queries: Sequence[str],
        k: int = 1000,
        *,
        threads: int | None = None,
        scoring: Bm25 | None = None,
        **options: Unpack[Rm3Keywords],
    ) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.float32]]:
        """RM3 feedback as Anserini's reranker (Pyserini's ``set_rm3``), for many
        queries in parallel: ``batch_search`` with ``feedback=Rm3(...)``, the
        keywords of :class:`Rm3` given here as keywords, over a Lucene BM25 first
        stage (``scoring``, or ``k1`` and ``b`` as keywords); returns ``(ids,
        scores)`` as ``batch_search``.

        Raises
        ------
        QueryError
            For ``k <= 0``, a parameter :class:`Rm3` refuses, a ``scoring`` of another
            variant or length mode than ``"lucene"``, or an index without a document
            store (rebuild it with ``store=True``).
        """
    def batch_search_rocchio(
        self,
        queries: Sequence[str],
        k: int = 1000,
        *,
        threads: int | None = None,
        scoring: Bm25 | None = None,
        **options: Unpack[RocchioKeywords],
    ) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.float32]]:
        """Rocchio feedback as Anserini's reranker (Pyserini's ``set_rocchio``), for
        many queries in parallel: ``batch_search`` with ``feedback=Rocchio(...)``,
        the keywords of :class:`Rocchio` given here as keywords, over a Lucene BM25
        first stage (``scoring``, or ``k1`` and ``b`` as keywords) to depth ``k``;
        returns ``(ids, scores)`` as ``batch_search``.

        Raises
        ------
        QueryError
            For ``k <= 0``, a parameter :class:`Rocchio` refuses, a ``scoring`` of
            another variant or length mode than ``"lucene"``, or an index without a
            document store (rebuild it with ``store=True``).
        """
    def rocchio_query(
        self,
        query: str,
        k: int = 1000,
        *,
        scoring: Bm25 | None = None,
        **options: Unpack[RocchioKeywords],
    ) -> list[tuple[str, float]]:
        """The Rocchio query of ``query`` (first stage to depth ``k``) as ``(term,
        weight)`` pairs, terms in ascending order. Keywords and errors as
        ``batch_search_rocchio``.
        """
    def rm3_query(
        self,
        query: str,
        *,
        scoring: Bm25 | None = None,
        **options: Unpack[Rm3Keywords],
    ) -> list[tuple[str, float]]:
        """The RM3-expanded query of ``query`` as ``(term, weight)`` pairs, terms in
        ascending order: the boosts of the second-stage BM25 query. Keywords and
        errors as ``batch_search_rm3``.
        """
    def check_feedback(self, feedback: Rm3 | Rocchio) -> None:
        """Checks that this index can serve ``feedback`` (an :class:`Rm3` or a
        :class:`Rocchio`), as a search with it would, without searching.

        Raises
        ------
        QueryError
            If the index keeps no document store (rebuild it with ``store=True``).
        TypeError
            For a ``feedback`` that is neither.
        """

def query_limits() -> tuple[int, int]:
    """``(max_bytes, max_terms)``: the longest query in UTF-8 bytes and the most distinct
    analyzed terms a query may have (by default 1 MiB and 65,536). A longer query or one
    with more terms raises :class:`QueryError` rather than being cut. Both bound the work
    of one query, which is linear in its size."""

def set_query_limits(
    *, max_bytes: int | None = None, max_terms: int | None = None
) -> tuple[int, int]:
    """Sets the query limits given, for the whole process; returns the previous
    ``(max_bytes, max_terms)``. Raises :class:`QueryError` for a limit below 1."""

def rrf(
    rankings: Sequence[Sequence[str]]
    | Sequence[Sequence[int]]
    | Sequence[Sequence[Hit]]
    | Sequence[Sequence[tuple[str, float]]],
    k: float = 60.0,
    weights: Sequence[float] | None = None,
    depth: int | None = None,
) -> list[tuple[str | int, float]]:
    """Reciprocal-rank fusion: ``sum_i w_i / (k + rank_i + 1)``, 0-based ranks;
    an item repeated within a ranking counts once, at its first (best) rank;
    ties keep first appearance (ranking 0 first). Only the first ``depth``
    entries of each ranking count when given. A ranking may be what
    ``search`` (hits), ``search_pairs`` (``(docid, score)`` pairs) or ``docids``
    returns, or int ids; an item of another type raises ``TypeError`` naming
    these shapes."""

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

def lucene_stores_contents(path: StrPath) -> bool:
    """Whether the Lucene index in ``path`` stores the ``contents`` field
    (Anserini's ``-storeContents``), an index-wide choice read from the
    documents of its smallest segment (``False`` for an empty index).

    Raises
    ------
    IndexCorruptedError
        If a file read is damaged.
    """

def lucene_info(path: StrPath) -> dict[str, Any]:
    """What the Lucene index in ``path`` holds: ``lucene_version`` (of the
    newest commit's writer), ``created_major``, ``generation`` (of
    ``segments_N``), ``documents`` (live), ``max_doc``, ``deleted``,
    ``segments`` (``name``, ``codec``, ``lucene_version``, ``documents``,
    ``deleted``, ``compound``) and ``fields`` (``name``, ``index_options``,
    ``norms``, ``term_vectors``, over every segment). Every file read is
    checked as when searching; nothing is written.

    Raises
    ------
    FileNotFoundError
        If the folder does not exist.
    IndexCorruptedError
        If a file is damaged or the folder is not a Lucene index.
    IndexVersionError
        For a Lucene version that is not read.
    """

@overload
def merge_topk(parts: Sequence[Sequence[tuple[str, float]]], k: int) -> list[tuple[str, float]]:
    """The ``k`` best hits of the rankings of disjoint parts of a collection
    (shards): score descending, then docid ascending (byte-wise), as one index
    ranks them. Exact when every part ranked with the same statistics (a
    :class:`GlobalStats` summed over the parts, given as ``stats=``).

    ``parts`` holds one ranking per part, each a list of ``(docid, score)``
    tuples in rank order (as ``search_pairs`` returns it), and the result is one
    such list (of the same tuples); or one :class:`Columns` per part (as
    ``batch_search_columns`` returns it, all with the same number of rows), and
    the result is one ``Columns``, merged row by row. No part gives ``[]``.

    Raises
    ------
    ValueError
        For a part not in rank order, ``Columns`` with different numbers of rows,
        or inconsistent ``Columns`` arrays.
    QueryError
        For ``k`` outside [1, 2**63 - 1].
    TypeError
        For a ``k`` that is not an int, or parts that are neither lists of
        ``(str, float)`` tuples nor ``Columns``.
    """

@overload
def merge_topk(parts: Sequence[Columns], k: int) -> Columns: ...
def _index_from_files(files: Mapping[str, bytes], source: str | None = None) -> Index:
    """Rebuilds an in-memory index from its pickled files."""

def check_added_docids(
    docids: Sequence[str], duplicates: str, existing: set[str] | frozenset[str]
) -> None:
    """The docid rule of one commit's additions, as :meth:`Index.add` and
    :meth:`Index.commit` apply it, for additions queued over several indexes:
    ``docids`` in the order they were queued, none empty; under
    ``duplicates="error"``, none twice and none in ``existing`` (the docids live
    in the index and not deleted by the same commit).

    Raises
    ------
    DocumentError
        For the first docid that breaks the rule, with the message the index gives.
    QueryError
        For an unknown ``duplicates`` policy.
    """

def check_query(query: str) -> None:
    """Refuses a query with nothing to search for, as the searches do.

    Raises
    ------
    QueryError
        For an empty or blank query.
    """

def read_queries(path: StrPath) -> list[tuple[str, str]]:
    """Reads a BEIR ``queries.jsonl`` or a ``qid<TAB>text`` file."""

def document_fields(line: str) -> tuple[str, str]:
    """``(docid, indexed text)`` of one JSON document, by the rule
    :meth:`Index.from_jsonl` reads lines with: the id is ``"id"``, ``"_id"`` or
    ``"docid"`` (a string, or a number kept as written); the text is
    ``"contents"``, or else ``title + " " + text`` (BEIR).

    Raises
    ------
    DocumentError
        If ``line`` is not a JSON object, or has no id or no text field.
    TypeError
        If a field has the wrong JSON type.
    """

def corpus_files(path: StrPath) -> list[Path]:
    """The files :meth:`Index.from_jsonl` reads for ``path``: the file itself, or every
    ``.jsonl``, ``.jsonl.gz`` and ``.json`` file below the folder, sorted; a BEIR
    folder (one holding ``corpus.jsonl`` or ``corpus.jsonl.gz``) gives that file alone.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    DocumentError
        If the folder holds no corpus file, or a BEIR folder holds both corpus files.
    """

def read_documents(path: StrPath, *, max_line_bytes: int = 67108864) -> list[tuple[str, str]]:
    """``(docid, indexed text)`` of every document under ``path``, read as
    :meth:`Index.from_jsonl` reads it: the same files (:func:`corpus_files`), the same
    rule per line (:func:`document_fields`), in file and line order.

    Raises
    ------
    ParseError
        For a line that is not a document, naming the file and the line.
    FileNotFoundError
        If ``path`` does not exist.
    """

def beir_files(
    folder: StrPath, split: str = "test"
) -> tuple[Path, Path | None, Path | None] | None:
    """``(corpus, queries, qrels)`` of a BEIR folder: ``corpus.jsonl`` or
    ``corpus.jsonl.gz``, then ``queries.jsonl`` and ``qrels/<split>.tsv`` or ``None``
    where missing; ``None`` if ``folder`` holds no corpus file (it is not a BEIR folder).

    Raises
    ------
    DocumentError
        If the folder holds both ``corpus.jsonl`` and ``corpus.jsonl.gz``.
    """

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

@final
class _TfidfArm:
    """Statistics of a fitted TF-IDF index (``rserini.retrieval.tfidf.TfidfIndex``)."""

    def __new__(cls, tokenizer: str = "plain") -> _TfidfArm: ...
    @property
    def tokenizer(self) -> str: ...
    @property
    def n_docs(self) -> int: ...
    def query(self, text: str) -> list[tuple[int, float]]:
        """``(doc, score)`` for every document, best first, ties by number."""
    def to_dict(self) -> dict[str, object]:
        """``n_docs``, ``doc_vectors`` and ``postings`` as agentic-retrieval stores them."""
    @staticmethod
    def from_dict(data: Mapping[str, object], tokenizer: str) -> _TfidfArm: ...

@final
class _Bm25Arm:
    """Statistics of a fitted BM25 index (``rserini.retrieval.bm25.BM25Index``)."""

    def __new__(cls, tokenizer: str = "plain", avgdl: float = 1.0) -> _Bm25Arm: ...
    @property
    def tokenizer(self) -> str: ...
    @property
    def n_docs(self) -> int: ...
    @property
    def avgdl(self) -> float: ...
    def query(self, text: str, k1: float, b: float) -> list[tuple[int, float]]:
        """``(doc, score)`` for every document, best first, ties by number."""
    def to_dict(self) -> dict[str, object]:
        """``n_docs``, ``avgdl``, ``tf``, ``dl``, ``postings`` and ``df`` as
        agentic-retrieval stores them."""
    @staticmethod
    def from_dict(data: Mapping[str, object], tokenizer: str) -> _Bm25Arm: ...

def _lexical_fit(texts: Sequence[str], tokenizer: str) -> tuple[_TfidfArm, _Bm25Arm]:
    """Both arms over ``texts``, each text analyzed once, without the GIL."""

def _lexical_units(documents: Iterable[object]) -> tuple[list[str], list[dict[str, Any]]]:
    """The texts and the span units of documents, their field types checked."""

def _lexical_search(
    tfidf: _TfidfArm, bm25: _Bm25Arm, query: str, k1: float, b: float, top: int
) -> list[int]:
    """The first ``top`` document numbers of the fused ranking, without the GIL."""

def _lexical_save(path: StrPath, meta: str, tfidf: _TfidfArm, bm25: _Bm25Arm) -> None:
    """Writes a retriever's file crash-safely."""

def _lexical_load(path: StrPath) -> tuple[str, _TfidfArm, _Bm25Arm]:
    """Reads a retriever's file, checking its checksum."""
