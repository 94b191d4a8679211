"""The units a :class:`~rserini.retrieval.retrievers.LexicalRetriever` indexes and returns.

Field names, order and defaults are those of agentic-retrieval's ``retrieval.document``,
so ``Document("d1", "text")`` and code that reads the fields keep working unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Document", "SearchHit"]


@dataclass
class Document:
    """A document to index: its id, its text and where it came from.

    Only ``text`` is indexed; the other fields travel to the :class:`SearchHit`.

    Attributes:
        docid: The id returned by searches. Not checked for uniqueness.
        text: The text to index.
        url: Kept for compatibility; not indexed and not returned.
        source_path: The file the text comes from, relative to the project root.
        start_line: First line of the text in ``source_path`` (1-based), if known.
        end_line: Last line of the text in ``source_path`` (inclusive), if known.
        context: A heading or breadcrumb carried to the hit; not indexed.
    """

    docid: str
    text: str
    url: str = ""
    source_path: str = ""
    start_line: int | None = None
    end_line: int | None = None
    context: str = ""


@dataclass
class SearchHit:
    """One ranked result: the document's id and span, and its 0-based rank.

    There is no score: the fused ranking is an order, not a measurement.
    """

    docid: str
    source_path: str
    start_line: int | None
    end_line: int | None
    rank: int
    context: str = ""
