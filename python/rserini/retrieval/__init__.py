"""A drop-in for agentic-retrieval's lexical retrieval (``retrieval.*``), on the Rust core."""

from rserini.retrieval.bm25 import BM25Index
from rserini.retrieval.document import Document, SearchHit
from rserini.retrieval.fusion import reciprocal_rank_fusion
from rserini.retrieval.retrievers import (
    REGISTRY,
    LexicalRetriever,
    Retriever,
    build_retriever,
)
from rserini.retrieval.tfidf import TfidfIndex, tokenize

__all__ = [
    "REGISTRY",
    "BM25Index",
    "Document",
    "LexicalRetriever",
    "Retriever",
    "SearchHit",
    "TfidfIndex",
    "build_retriever",
    "reciprocal_rank_fusion",
    "tokenize",
]
