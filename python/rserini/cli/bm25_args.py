"""Command-line options of BM25, shared by ``rserini search``, ``run``, ``explain`` and
``tune`` and the agent servers; their defaults and choices are the core's (see
:class:`rserini.Bm25`)."""

from __future__ import annotations

import argparse

from rserini._core import BM25_VARIANTS, DEFAULT_B, DEFAULT_K1, LENGTH_MODES, Bm25


def add_k1_b(g: argparse._ActionsContainer) -> None:
    """Adds ``--k1`` and ``--b``."""
    g.add_argument(
        "--k1",
        type=float,
        default=DEFAULT_K1,
        help=f"BM25 term-frequency saturation, >= 0 (default {DEFAULT_K1:g}, as Pyserini; "
        "25 suits long documents)",
    )
    g.add_argument(
        "--b",
        type=float,
        default=DEFAULT_B,
        help=f"BM25 length normalisation in [0, 1] (default {DEFAULT_B:g}, as Pyserini; "
        "1 suits long documents)",
    )


def add_bm25_shape(g: argparse._ActionsContainer) -> None:
    """Adds ``--variant``, ``--length`` and ``--delta``: BM25 besides its k1 and b."""
    default = Bm25()
    g.add_argument(
        "--variant",
        choices=BM25_VARIANTS,
        default=default.variant,
        help=f"BM25 variant (Kamphuis et al. 2020 naming); default: {default.variant}",
    )
    g.add_argument(
        "--length",
        choices=LENGTH_MODES,
        default=default.length,
        help="document length: Lucene's one-byte norm, as Pyserini (default), "
        "or the exact token count",
    )
    g.add_argument(
        "--delta",
        type=float,
        default=None,
        help="delta of bm25l (default 0.5) and bm25+ (default 1.0)",
    )
