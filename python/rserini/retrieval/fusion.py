"""Reciprocal-rank fusion and candidate pools: agentic-retrieval's ``retrieval.fusion``."""

from __future__ import annotations

from collections.abc import Sequence

from rserini._core import rrf

__all__ = ["POOL_FLOOR", "POOL_MULTIPLIER", "candidate_pool", "reciprocal_rank_fusion"]

#: Each retriever of a fused search is asked for ``top_k * POOL_MULTIPLIER`` candidates...
POOL_MULTIPLIER = 10
#: ...and never fewer than ``POOL_FLOOR``.
POOL_FLOOR = 50


def candidate_pool(top_k: int, n_units: int | None = None) -> int:
    """``min(max(top_k * POOL_MULTIPLIER, POOL_FLOOR), n_units)``; no cap when ``n_units``
    is ``None``."""
    pool = max(top_k * POOL_MULTIPLIER, POOL_FLOOR)
    if n_units is not None:
        pool = min(pool, n_units)
    return pool


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[int]],
    k: int = 60,
    weights: Sequence[float] | None = None,
) -> list[tuple[int, float]]:
    """``(doc, sum_i w_i / (k + rank_i + 1))`` for every ranked doc (0-based ranks), best
    first; ties keep first appearance, scanning ranking 0 first. Weights pair with
    rankings as ``zip`` pairs them: extra rankings (or weights) are ignored.
    """
    if weights is not None:
        n = min(len(rankings), len(weights))
        rankings, weights = rankings[:n], list(weights[:n])
    return rrf(rankings, k, weights)  # type: ignore[return-value]
