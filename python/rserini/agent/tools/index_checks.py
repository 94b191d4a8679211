"""What an index and BM25 parameters must be to serve the agent tools: checked once,
when a session or a server opens the index."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rserini._core import Bm25

if TYPE_CHECKING:
    from rserini._core import Index

__all__ = ["check_bm25", "require_document_store"]


def require_document_store(index: Index) -> None:
    """Refuses an index that cannot serve ``read_document`` (built with ``store=False``).

    Raises
    ------
    ValueError
        Naming the fix.
    """
    stats = index.stats()
    if len(index) and not stats.get("store_bytes"):
        raise ValueError(
            "this index keeps no documents (it was built with --no-store / store=False), so "
            "read_document cannot serve it; rebuild it without --no-store"
        )


def check_bm25(k1: float, b: float) -> None:
    """Refuses BM25 parameters out of range (:class:`QueryError`, a ``ValueError``), as
    :class:`rserini.Bm25` does."""
    Bm25(k1, b)
