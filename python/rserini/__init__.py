"""rserini: fast, faithful lexical search with a Rust core.

>>> import rserini
>>> index = rserini.Index.build([("d1", "Routers forward packets."), ("d2", "Plants grow.")],
...                            progress=False)
>>> [hit.docid for hit in index.search("router packet")]
['d1']
"""

from rserini._core import (
    ANALYZER_PRESETS,
    BM25_VARIANTS,
    DEFAULT_B,
    DEFAULT_K1,
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

__all__ = [
    "ANALYZER_PRESETS",
    "BM25_VARIANTS",
    "DEFAULT_B",
    "DEFAULT_K1",
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
    "IndexVersionError",
    "LexicalRetriever",
    "ParseError",
    "QueryError",
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
