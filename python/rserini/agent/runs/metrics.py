"""Retrieval metrics of an agent's docid lists, as pi-serini's evaluators compute them.

A *ranking* is the deduplicated surfaced order. Gains are graded (``2**rel - 1`` by
default, pi-serini's; ``linear`` is ``rel``, trec_eval's), and the ideal ranking uses every
judged document with ``rel > 0``, whatever the recall threshold.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Literal

__all__ = ["GAINS", "Gain", "coverage", "dcg", "ndcg", "positives", "recall"]

Gain = Literal["exponential", "linear"]
GAINS: tuple[str, ...] = ("exponential", "linear")


def positives(judged: Mapping[str, int], threshold: int = 1) -> set[str]:
    """The documents judged at least ``threshold``."""
    return {docid for docid, rel in judged.items() if rel >= threshold}


def recall(ranking: Sequence[str], relevant: set[str], k: int | None = None) -> float:
    """``|ranking[:k] ∩ relevant| / |relevant|``, 0 when nothing is relevant.

    ``ranking`` must be deduplicated (a repeated docid would count twice).
    """
    if not relevant:
        return 0.0
    head = ranking if k is None else ranking[:k]
    return sum(1 for docid in head if docid in relevant) / len(relevant)


def _gain(rel: int, gain: Gain) -> float:
    if rel <= 0:
        return 0.0
    if gain == "exponential":
        return float(2**rel - 1)
    if gain == "linear":
        return float(rel)
    raise ValueError(f"unknown gain {gain!r}: 'exponential' or 'linear'")


def dcg(rels: Sequence[int], gain: Gain = "exponential") -> float:
    """``sum(gain(rel_i) / log2(i + 1))`` over ranks ``i = 1, 2, ...``."""
    return sum(_gain(rel, gain) / math.log2(i + 2) for i, rel in enumerate(rels))


def ndcg(
    ranking: Sequence[str], judged: Mapping[str, int], k: int, gain: Gain = "exponential"
) -> float:
    """nDCG@k of a deduplicated ranking; 0 when no document has ``rel > 0``."""
    ideal = dcg(sorted((r for r in judged.values() if r > 0), reverse=True)[:k], gain)
    if ideal == 0:
        return 0.0
    return dcg([judged.get(docid, 0) for docid in ranking[:k]], gain) / ideal


def coverage(docids: Sequence[str], relevant: set[str]) -> float | None:
    """The share of the relevant documents in a docid set; ``None`` when none is relevant
    (such a query is left out of macro averages, as pi-serini's coverage tiers do)."""
    if not relevant:
        return None
    return len(relevant.intersection(docids)) / len(relevant)
