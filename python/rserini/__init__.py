"""rserini: fast, faithful lexical search with a Rust core.

>>> import rserini
>>> index = rserini.Index.build([("d1", "Routers forward packets."), ("d2", "Plants grow.")],
...                            progress=False)
>>> [hit.docid for hit in index.search("router packet")]
['d1']
"""

from collections.abc import Mapping

from rserini._core import (
    ALGORITHMS,
    ANALYZER_PRESETS,
    BM25_VARIANTS,
    DEFAULT_B,
    DEFAULT_K1,
    DEFAULT_MAX_LINE_BYTES,
    DEFAULT_MEMORY_MB,
    DEFAULT_MU,
    INDEX_FORMAT_VERSION,
    LENGTH_MODES,
    MODELS,
    STEMMERS,
    STOPWORD_LISTS,
    TOKENIZERS,
    Analyzer,
    Bm25,
    Explanation,
    GlobalStats,
    Hit,
    Index,
    IndexStats,
    Rm3,
    Rocchio,
    TermExplanation,
    __version__,
    lucene_info,
    merge_topk,
    query_limits,
    read_queries,
    rrf,
    rrf_full_depth,
    set_query_limits,
)
from rserini.columns import Columns
from rserini.exceptions import (
    AnalyzerError,
    DocumentError,
    IndexCorruptedError,
    IndexLockedError,
    IndexVersionError,
    ParseError,
    QueryError,
    RseriniError,
    UnknownDocidError,
)
from rserini.retrieval.document import Document, SearchHit
from rserini.retrieval.retrievers import LexicalRetriever

# Index.stats() reads as a mapping too (keys, items, get, ...): say so to isinstance.
Mapping.register(IndexStats)

__all__ = [
    "ALGORITHMS",
    "ANALYZER_PRESETS",
    "BM25_VARIANTS",
    "DEFAULT_B",
    "DEFAULT_K1",
    "DEFAULT_MAX_LINE_BYTES",
    "DEFAULT_MEMORY_MB",
    "DEFAULT_MU",
    "INDEX_FORMAT_VERSION",
    "LENGTH_MODES",
    "MODELS",
    "STEMMERS",
    "STOPWORD_LISTS",
    "TOKENIZERS",
    "Analyzer",
    "AnalyzerError",
    "Bm25",
    "Columns",
    "Document",
    "DocumentError",
    "Explanation",
    "GlobalStats",
    "Hit",
    "Index",
    "IndexCorruptedError",
    "IndexLockedError",
    "IndexStats",
    "IndexVersionError",
    "LexicalRetriever",
    "ParseError",
    "QueryError",
    "Rm3",
    "Rocchio",
    "RseriniError",
    "SearchHit",
    "TermExplanation",
    "UnknownDocidError",
    "__version__",
    "lucene_info",
    "merge_topk",
    "query_limits",
    "read_queries",
    "rrf",
    "rrf_full_depth",
    "set_query_limits",
]
