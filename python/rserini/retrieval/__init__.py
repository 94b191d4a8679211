"""A drop-in for agentic-retrieval's lexical retrieval (``retrieval.*``), on the Rust core."""

from rserini.retrieval.document import Document, SearchHit

__all__ = ["Document", "SearchHit"]
