"""An index as the agent tools and the servers read it: every ranking under one
:class:`rserini.Bm25`, and a stored document's text by pi-serini's rule. What the index
must be to serve them is checked once, when a session or a server opens it."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from rserini.exceptions import UnknownDocidError

if TYPE_CHECKING:
    from rserini._core import Bm25, Index

__all__ = ["ToolIndex", "require_document_store"]


def require_document_store(index: Index) -> None:
    """Refuses an index that cannot serve ``read_document`` (built with ``store=False``).

    Raises
    ------
    ValueError
        Naming the fix.
    """
    if len(index) and not index.stats().store_bytes:
        raise ValueError(
            "this index keeps no documents (it was built with --no-store / store=False), so "
            "read_document cannot serve it; rebuild it without --no-store"
        )


class ToolIndex:
    """``index`` searched under ``bm25``, its stored documents read as the tools show them.

    Raises
    ------
    ValueError
        If the index keeps no documents.
    """

    def __init__(self, index: Index, bm25: Bm25) -> None:
        require_document_store(index)
        self.index = index
        self.bm25 = bm25

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        """The top ``k`` hits of ``query`` as ``(docid, score)``, best first; ``[]`` for a
        query without terms (blank, Python's whitespace included: Lucene finds nothing)
        or an empty index. ``k`` past the number of documents is the number of documents
        (the hits are the same)."""
        if not query.strip() or not len(self.index):
            return []
        k = max(1, min(k, len(self.index)))
        return self.index.search_pairs(query, k=k, scoring=self.bm25)

    def stored(self, docid: str) -> tuple[dict[str, object], str] | None:
        """``(fields, text)`` of ``docid`` from one read of the store, or ``None`` when the
        index does not hold it. The fields are :meth:`rserini.Index.doc`'s; the text is
        the stored ``contents`` field, as pi-serini's server reads it (a BEIR document has
        none, and its indexed text, title + " " + text, stands in)."""
        try:
            raw, indexed = self.index.raw_and_contents(docid)
        except UnknownDocidError:
            return None
        fields = json.loads(raw) if raw is not None else {"id": docid, "contents": indexed}
        contents = fields.get("contents")
        return fields, contents if isinstance(contents, str) else indexed
