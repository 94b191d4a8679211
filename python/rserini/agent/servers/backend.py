"""What pi-search's backends serve, over an :class:`rserini.Index`: BM25 rankings, hit
previews and document line chunks, for the http-json and JSON-lines RPC servers.

Documents are read as pi-serini's Anserini server reads them: the title is the first
non-blank of the stored ``title``, ``name`` and ``headline`` fields, the text the stored
``contents`` field (a BEIR document, stored without one, gives its indexed text).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rserini._core import DEFAULT_B, DEFAULT_K1, Bm25
from rserini.agent.tools.excerpt import SNIPPET_MAX_CHARS, build_preview, document_title
from rserini.agent.tools.lines import LineChunk, read_chunk, split_lines
from rserini.agent.tools.tool_index import ToolIndex

if TYPE_CHECKING:
    from rserini._core import Index

__all__ = ["IndexBackend", "StoredDocument", "highlight"]


@dataclass(frozen=True)
class StoredDocument:
    """A stored document as the server sees it."""

    docid: str
    title: str | None
    contents: str


def highlight(text: str, terms: Sequence[str]) -> str:
    """Every match of each term (longest first, ASCII case-insensitive) as ``[[term]]``,
    term after term as the server's ``replaceAll`` calls do: a shorter term is marked again
    inside a longer one's marks (``[[[[graph]]ene]]``)."""
    for term in sorted(terms, key=len, reverse=True):
        if term.strip():
            marked = f"[[{term}]]"
            text = re.sub(
                re.escape(term),
                marked.replace("\\", "\\\\"),
                text,
                flags=re.IGNORECASE | re.ASCII,
            )
    return text


class IndexBackend(ToolIndex):
    """Rankings, previews and chunks of one index with fixed BM25 ``k1`` and ``b`` (as
    given, for the server's info).

    Raises
    ------
    ValueError
        If the index keeps no documents, or ``k1``/``b`` are out of range.
    """

    def __init__(self, index: Index, *, k1: float = DEFAULT_K1, b: float = DEFAULT_B) -> None:
        super().__init__(index, Bm25(k1, b))
        self.k1 = k1
        self.b = b

    def document(self, docid: str) -> StoredDocument | None:
        """The stored document, or ``None`` when the index does not hold ``docid``."""
        stored = self.stored(docid)
        if stored is None:
            return None
        fields, contents = stored
        return StoredDocument(docid, document_title(fields), contents)

    def preview(
        self,
        document: StoredDocument,
        tokens: Sequence[str],
        max_chars: int = SNIPPET_MAX_CHARS,
        inline_highlights: bool = False,
    ) -> dict[str, object]:
        """The server's preview row: ``title``, ``matched_terms``, ``excerpt`` and
        ``excerpt_truncated`` (``tokens`` are the clues' tokens, in order)."""
        p = build_preview(document.contents, document.title, "", max_chars, tokens)
        title, terms, excerpt = p.title, p.matched_terms, p.excerpt
        if inline_highlights and terms:
            excerpt = highlight(excerpt, terms)
            title = highlight(title, terms) if title is not None else None
        return {
            "title": title,
            "matched_terms": terms,
            "excerpt": excerpt,
            "excerpt_truncated": p.excerpt_truncated,
        }

    @staticmethod
    def chunk(document: StoredDocument, offset: int, limit: int) -> LineChunk:
        """Lines ``offset``.. (at most ``limit``) of the document."""
        return read_chunk(split_lines(document.contents), offset, limit)
