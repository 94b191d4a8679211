"""Command-line options of the feedback models (RM3, Rocchio), shared by ``rserini run``
and ``rserini parity``."""

from __future__ import annotations

import argparse

RM3_KEYS = ("fb_terms", "fb_docs", "original_query_weight")
ROCCHIO_KEYS = (
    "top_fb_terms",
    "top_fb_docs",
    "bottom_fb_terms",
    "bottom_fb_docs",
    "alpha",
    "beta",
    "gamma",
    "use_negative",
)


def add_feedback_args(p: argparse.ArgumentParser) -> None:
    """Adds ``--rm3`` and ``--rocchio`` with their parameters (Pyserini's defaults)."""
    g = p.add_argument_group("pseudo-relevance feedback over Lucene BM25, as Pyserini's")
    model = g.add_mutually_exclusive_group()
    model.add_argument("--rm3", action="store_true", help="RM3 (Pyserini's set_rm3)")
    model.add_argument("--rocchio", action="store_true", help="Rocchio (set_rocchio)")
    g.add_argument("--fb-terms", type=int, default=10, help="RM3 expansion terms (10)")
    g.add_argument("--fb-docs", type=int, default=10, help="RM3 feedback documents (10)")
    g.add_argument("--original-query-weight", type=float, default=0.5, help="RM3, in [0, 1] (0.5)")
    for name in ("top", "bottom"):
        g.add_argument(f"--{name}-fb-terms", type=int, default=10, help=f"Rocchio {name} terms")
        g.add_argument(f"--{name}-fb-docs", type=int, default=10, help=f"Rocchio {name} docs")
    g.add_argument("--alpha", type=float, default=1.0, help="Rocchio query weight (1)")
    g.add_argument("--beta", type=float, default=0.75, help="Rocchio top weight (0.75)")
    g.add_argument("--gamma", type=float, default=0.0, help="Rocchio bottom weight (0)")
    g.add_argument(
        "--use-negative", action="store_true", help="Rocchio: subtract the bottom documents"
    )


def feedback_kwargs(args: argparse.Namespace) -> dict[str, object]:
    """The parameters of the chosen feedback model, by their Python names."""
    keys = RM3_KEYS if args.rm3 else ROCCHIO_KEYS if args.rocchio else ()
    return {key: getattr(args, key) for key in keys}
