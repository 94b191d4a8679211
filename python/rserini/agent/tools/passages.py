"""Best passages of a document for a query: :meth:`rserini.Index.best_passages`, the
core's BM25 over windows of consecutive units with the index's analyzer and statistics.

A document is cut into units (runs of words for excerpts, lines for ``find_in_document``);
a passage is a window of consecutive units, scored as a document of the collection of the
text's windows (the index's idf, the query's term frequencies, the window's length against
the mean window of the text; k1 = 1.2 and b = 0.75 unless a :class:`rserini.Bm25` says
otherwise). Ties go to the earlier window.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rserini._core import Bm25, Index

__all__ = ["Passage", "PassageScorer", "best_excerpt", "word_runs"]

# A run of at most `n` characters from a non-space to a non-space that ends a word, or the
# first `n` characters of a longer word.
_RUN_PATTERNS: dict[int, re.Pattern[str]] = {}


def word_runs(text: str, max_chars: int) -> list[str]:
    """``text`` as consecutive runs of whole words of at most ``max_chars`` characters each,
    whitespace collapsed to single spaces (a longer word is cut)."""
    pattern = _RUN_PATTERNS.get(max_chars)
    if pattern is None:
        n = max(2, max_chars)
        pattern = re.compile(rf"\S(?:[\s\S]{{0,{n - 2}}}\S)?(?!\S)|\S{{1,{n}}}")
        _RUN_PATTERNS[max_chars] = pattern
    return [" ".join(m.group().split()) for m in pattern.finditer(text)]


@dataclass(frozen=True)
class Passage:
    """Units ``start`` to ``end - 1`` (0-based) of the scored sequence, and their score."""

    start: int
    end: int
    score: float


class PassageScorer:
    """The best passages for ``query`` in ``index``, under ``scoring`` (``None``: the
    core's passage setting)."""

    def __init__(self, index: Index, query: str, *, scoring: Bm25 | None = None) -> None:
        self.index = index
        self.query = query
        self.scoring = scoring

    def best(self, units: Sequence[str], window: int, k: int = 1) -> list[Passage]:
        """The ``k`` best-scoring windows of ``window`` consecutive units that do not
        overlap, best first; only windows matching a query term (score > 0) count."""
        if not units or k < 1:
            return []
        found = self.index.best_passages(
            self.query, list(units), max(1, window), k, scoring=self.scoring
        )
        return [Passage(start, end, score) for start, end, score in found]


def best_excerpt(scorer: PassageScorer, text: str, max_chars: int) -> tuple[str, bool]:
    """The best window of ``text`` of at most ``max_chars`` characters (two runs of half
    that), whitespace collapsed, with ``...`` where text was cut; else the head. Returns the
    excerpt and whether it leaves text out (``("", False)`` for blank text)."""
    runs = word_runs(text, max(1, max_chars // 2))
    if not runs:
        return "", False
    found = scorer.best(runs, 2)
    passage = found[0] if found else Passage(0, min(2, len(runs)), 0.0)
    excerpt = " ".join(runs[passage.start : passage.end])
    cut_before = passage.start > 0
    cut_after = passage.end < len(runs)
    return (
        ("..." if cut_before else "") + excerpt + ("..." if cut_after else ""),
        cut_before or cut_after,
    )
