"""Okapi BM25 over ``plain`` or ``code`` tokens: agentic-retrieval's ``retrieval.bm25``.

``idf * f * (k1 + 1) / (f + k1 * (1 - b + b * dl / avgdl))`` with
``idf = ln(1 + (N - df + 0.5)/(df + 0.5))``, summed over the *distinct* query terms (a
repeated query word counts once), in float64. The reference sums the terms in Python
``set`` order, which changes with the hash seed; rserini sums them in sorted term order,
so a score is the same in every process.
"""

from __future__ import annotations

from typing import Any

from rserini._core import _Bm25Arm, _lexical_fit
from rserini.retrieval.tfidf import check_mode

__all__ = ["BM25Index"]


class BM25Index:
    """A BM25 index: :meth:`fit` documents, then :meth:`query` scores every one.

    Attributes:
        k1: Term-frequency saturation, read at each query (not validated, as in the
            reference).
        b: Length normalisation, read at each query.
        tokenizer: The tokenizer mode, fixed at construction and persisted.
    """

    def __init__(self, k1: float = 1.5, b: float = 0.75, tokenizer: str = "plain") -> None:
        self._arm = _Bm25Arm(check_mode(tokenizer))
        self.k1 = k1
        self.b = b

    @property
    def tokenizer(self) -> str:
        """The tokenizer mode."""
        return self._arm.tokenizer

    def fit(self, docs: list[str]) -> None:
        """Indexes ``docs``, replacing what was indexed before. Like the reference, an
        empty list keeps the previous mean length (seen only in :meth:`to_dict`)."""
        if not docs:
            self._arm = _Bm25Arm(self.tokenizer, self._arm.avgdl)
        else:
            self._arm = _lexical_fit(docs, self.tokenizer)[1]

    def query(self, text: str) -> list[tuple[int, float]]:
        """``(doc_idx, score)`` for every document, best first, ties by ``doc_idx``;
        ``[]`` when nothing is indexed."""
        return self._arm.query(text, self.k1, self.b)

    def to_dict(self) -> dict[str, Any]:
        """The reference's JSON-safe dict: ``k1``, ``b``, ``tokenizer``, ``n_docs``,
        ``avgdl``, ``tf``, ``dl``, ``postings``, ``df``."""
        return {"k1": self.k1, "b": self.b, "tokenizer": self.tokenizer, **self._arm.to_dict()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BM25Index:
        """Rebuilds an index from :meth:`to_dict` output (a missing ``tokenizer`` is
        ``plain``); ``KeyError`` for a missing key."""
        index = cls(k1=data["k1"], b=data["b"], tokenizer=data.get("tokenizer", "plain"))
        index._arm = _Bm25Arm.from_dict(data, index.tokenizer)
        return index
