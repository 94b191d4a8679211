"""Command-line options of the feedback models (RM3, Rocchio), shared by ``rserini run``
and ``rserini parity``: sugar for :class:`rserini.Rm3` and :class:`rserini.Rocchio`, whose
defaults (Pyserini's) they show and fill in."""

from __future__ import annotations

import argparse

from rserini._core import Rm3, Rocchio

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
    rm3, rocchio = Rm3(), Rocchio()
    g = p.add_argument_group("pseudo-relevance feedback over Lucene BM25, as Pyserini's")
    model = g.add_mutually_exclusive_group()
    model.add_argument("--rm3", action="store_true", help="RM3 (Pyserini's set_rm3)")
    model.add_argument("--rocchio", action="store_true", help="Rocchio (set_rocchio)")
    g.add_argument("--fb-terms", type=int, help=f"RM3 expansion terms ({rm3.fb_terms})")
    g.add_argument("--fb-docs", type=int, help=f"RM3 feedback documents ({rm3.fb_docs})")
    g.add_argument(
        "--original-query-weight",
        type=float,
        help=f"RM3, in [0, 1] ({rm3.original_query_weight:g})",
    )
    for name in ("top", "bottom"):
        terms, docs = getattr(rocchio, f"{name}_fb_terms"), getattr(rocchio, f"{name}_fb_docs")
        g.add_argument(f"--{name}-fb-terms", type=int, help=f"Rocchio {name} terms ({terms})")
        g.add_argument(f"--{name}-fb-docs", type=int, help=f"Rocchio {name} docs ({docs})")
    g.add_argument("--alpha", type=float, help=f"Rocchio query weight ({rocchio.alpha:g})")
    g.add_argument("--beta", type=float, help=f"Rocchio top weight ({rocchio.beta:g})")
    g.add_argument("--gamma", type=float, help=f"Rocchio bottom weight ({rocchio.gamma:g})")
    g.add_argument(
        "--use-negative",
        action="store_true",
        default=None,
        help="Rocchio: subtract the bottom documents",
    )


def feedback_value(args: argparse.Namespace) -> Rm3 | Rocchio | None:
    """The chosen feedback model with the parameters given (its defaults for the rest)."""
    if args.rm3:
        return Rm3(**_given(args, RM3_KEYS))
    if args.rocchio:
        return Rocchio(**_given(args, ROCCHIO_KEYS))
    return None


def feedback_kwargs(args: argparse.Namespace) -> dict[str, object]:
    """The parameters of the chosen feedback model, by their Python names, every one
    filled in."""
    value = feedback_value(args)
    keys = RM3_KEYS if isinstance(value, Rm3) else ROCCHIO_KEYS if value is not None else ()
    return {key: getattr(value, key) for key in keys}


def _given(args: argparse.Namespace, keys: tuple[str, ...]) -> dict[str, object]:
    return {key: value for key in keys if (value := getattr(args, key)) is not None}
