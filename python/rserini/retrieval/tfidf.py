"""TF-IDF cosine over ``plain`` or ``code`` tokens: agentic-retrieval's ``retrieval.tfidf``.

Document weights are ``(1 + ln tf) * (ln((N + 1)/(df + 1)) + 1)``, L2-normalised; the query
weighs ``1 + ln qtf`` (no idf), L2-normalised. Scores are computed in the Rust core, in
float64 and in the reference's operand order.
"""

from __future__ import annotations

from typing import Any

from rserini._core import Analyzer, _lexical_fit, _TfidfArm

__all__ = ["TOKENIZER_MODES", "TfidfIndex", "tokenize"]

#: The tokenizer modes: ``plain`` (``re.findall(r"\w+", text.lower())``) and ``code``
#: (``plain`` plus camelCase / acronym / snake_case sub-tokens after each whole token).
TOKENIZER_MODES = ("plain", "code")

_ANALYZERS = {mode: Analyzer(mode) for mode in TOKENIZER_MODES}


def check_mode(mode: str) -> str:
    """``mode`` if it is a tokenizer mode, else the reference's ``ValueError``."""
    if mode not in TOKENIZER_MODES:
        raise ValueError(f"unknown tokenizer mode {mode!r}; choose from {TOKENIZER_MODES}")
    return mode


def tokenize(text: str, mode: str = "plain") -> list[str]:
    """The tokens of ``text`` in ``mode``: ``tokenize("getUserById", "code")`` is
    ``["getuserbyid", "get", "user", "by", "id"]``.

    Raises:
        ValueError: For a mode other than ``"plain"`` or ``"code"``.
    """
    return _ANALYZERS[check_mode(mode)].analyze(text)


class TfidfIndex:
    """A TF-IDF index: :meth:`fit` documents, then :meth:`query` scores every one.

    Attributes:
        tokenizer: The tokenizer mode, fixed at construction and persisted.
    """

    def __init__(self, tokenizer: str = "plain") -> None:
        self._arm = _TfidfArm(check_mode(tokenizer))

    @property
    def tokenizer(self) -> str:
        """The tokenizer mode."""
        return self._arm.tokenizer

    def fit(self, docs: list[str]) -> None:
        """Indexes ``docs``, replacing what was indexed before."""
        self._arm = _lexical_fit(docs, self.tokenizer)[0]

    def query(self, text: str) -> list[tuple[int, float]]:
        """``(doc_idx, score)`` for every document, best first, ties by ``doc_idx``;
        ``[]`` when nothing is indexed."""
        return self._arm.query(text)

    def to_dict(self) -> dict[str, Any]:
        """The reference's JSON-safe dict: ``tokenizer``, ``n_docs``, ``doc_vectors``,
        ``postings``."""
        return {"tokenizer": self.tokenizer, **self._arm.to_dict()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TfidfIndex:
        """Rebuilds an index from :meth:`to_dict` output (a missing ``tokenizer`` is
        ``plain``); ``KeyError`` for a missing key."""
        index = cls(tokenizer=data.get("tokenizer", "plain"))
        index._arm = _TfidfArm.from_dict(data, index.tokenizer)
        return index
