"""Best passages of a document under BM25, with the index's analyzer and statistics.

A document is cut into units (runs of words for excerpts, lines for ``find_in_document``);
a passage is a window of consecutive units. Each window is scored with BM25 (Lucene's idf
from the index's document frequencies via :meth:`rserini.Index.term_stats`, the query's
term frequencies, and the window's length against the mean window of the document, with
k1 = 1.2 and b = 0.75, the usual passage setting). Ties go to the earlier window. The units
are analyzed outside the GIL (many of them in one parallel
:meth:`rserini.Analyzer.analyze_batch` call).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from rserini._core import Index

__all__ = ["Passage", "PassageScorer", "best_excerpt", "word_runs"]

PASSAGE_K1 = 1.2
PASSAGE_B = 0.75
PARALLEL_UNITS = 128

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
    """BM25 for text spans, with the weights of ``query`` in ``index``."""

    def __init__(
        self, index: Index, query: str, *, k1: float = PASSAGE_K1, b: float = PASSAGE_B
    ) -> None:
        n = len(index)
        self.k1 = k1
        self.b = b
        self.analyzer = index.analyzer
        # Lucene's idf, times the query frequency (repeated terms weigh more, as Anserini).
        self.weights = {
            term: qtf * math.log(1 + (n - df + 0.5) / (df + 0.5))
            for term, qtf, df in index.term_stats(query)
        }

    def best(self, units: Sequence[str], window: int, k: int = 1) -> list[Passage]:
        """The ``k`` best-scoring windows of ``window`` consecutive units that do not
        overlap, best first; only windows matching a query term (score > 0) count."""
        if not self.weights or not units:
            return []
        n = len(units)
        window = max(1, min(window, n))
        # The parallel batch pays a thread hand-off that a few short units do not repay.
        analyzed = (
            self.analyzer.analyze_batch(list(units))
            if n > PARALLEL_UNITS
            else [self.analyzer.analyze(u) for u in units]
        )
        row = {term: i for i, term in enumerate(self.weights)}
        counts = np.zeros((len(row), n + 1))  # column 0 stays 0 for the prefix sums
        lengths = np.zeros(n + 1)
        for i, terms in enumerate(analyzed, start=1):
            lengths[i] = len(terms)
            for term in terms:
                r = row.get(term)
                if r is not None:
                    counts[r, i] += 1
        # Window sums from prefix sums: window s covers units s .. s + window - 1.
        counts = counts.cumsum(axis=1)
        tf = counts[:, window:] - counts[:, :-window]
        lengths = lengths.cumsum()
        window_lengths = lengths[window:] - lengths[:-window]
        norm = self.k1 * (1 - self.b + self.b * window_lengths / max(window_lengths.mean(), 1.0))
        weights = np.fromiter(self.weights.values(), dtype=np.float64)[:, None]
        scores = (weights * tf * (self.k1 + 1) / (tf + norm)).sum(axis=0)
        chosen: list[Passage] = []
        for s in np.argsort(-scores, kind="stable"):  # ties: the earlier window first
            if scores[s] <= 0 or len(chosen) == k:
                break
            start = int(s)
            if all(start + window <= q.start or start >= q.end for q in chosen):
                chosen.append(Passage(start, start + window, float(scores[s])))
        return chosen


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
