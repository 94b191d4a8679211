"""What the ``rserini`` commands share: the index options, the scoring and algorithm
options and the progress rule.

Every command family is one module of :mod:`rserini.cli` with an ``add_commands``
function that adds its subcommands to the main parser, each with ``func`` set to the
function that runs it and returns the exit status.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TypeAlias

from rserini._core import ALGORITHMS, DEFAULT_MU, MODELS
from rserini.cli.bm25_args import add_bm25_shape, add_k1_b

#: The subcommands of the main parser, to which each family adds its own.
Subcommands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def add_model_args(p: argparse.ArgumentParser, models: Sequence[str] = MODELS) -> None:
    """Adds ``--model`` and the parameters of the models in ``models``."""
    g = p.add_argument_group("scoring (all chosen at query time)")
    g.add_argument(
        "--model",
        choices=models,
        default="bm25",
        help="default: bm25"
        + ("; rrf fuses the BM25 and TF-IDF rankings (reciprocal rank)" if "rrf" in models else ""),
    )
    add_k1_b(g)
    add_bm25_shape(g)
    if "qld" in models:
        g.add_argument(
            "--qld",
            dest="model",
            action="store_const",
            const="qld",
            help="query likelihood with Dirichlet smoothing, as Pyserini's set_qld "
            "(same as --model qld)",
        )
        g.add_argument(
            "--mu",
            type=float,
            default=DEFAULT_MU,
            help=f"Dirichlet mu of qld (default {DEFAULT_MU:g})",
        )


def add_algorithm_arg(p: argparse.ArgumentParser) -> None:
    """Adds ``--algorithm``."""
    p.add_argument(
        "--algorithm",
        choices=ALGORITHMS,
        default="auto",
        help="how the top k is found: exhaustive scoring or exact MaxScore / block-max WAND "
        "pruning; every choice returns the same hits (default: auto, the fastest)",
    )


def model_kwargs(args: argparse.Namespace) -> dict[str, object]:
    """The scoring keywords of a search, from the options of :func:`add_model_args`."""
    return {
        "model": args.model,
        "variant": args.variant,
        "k1": args.k1,
        "b": args.b,
        "length": args.length,
        "delta": args.delta,
        **({"mu": args.mu} if args.model == "qld" else {}),
    }


def add_field_boosts_arg(p: argparse.ArgumentParser, *flags: str) -> None:
    """Adds the multifield search option, spelled ``flags``: ``NAME=BOOST`` pairs, as
    Pyserini's ``--fields contents=1.0 title=0.5``."""
    p.add_argument(
        *flags,
        dest="field_boosts",
        nargs="+",
        type=_field_boost,
        default=None,
        metavar="NAME=BOOST",
        help="search these fields of the index with these boosts, as Pyserini's "
        "--fields contents=1.0 title=0.5: BM25 over each field, summed as Lucene sums "
        "the boosted per-field queries (the index's fields: `rserini info`)",
    )


def _field_boost(text: str) -> tuple[str, float]:
    name, sep, boost = text.partition("=")
    try:
        value = float(boost)
    except ValueError:
        value = None
    if not sep or not name.strip() or value is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=BOOST (e.g. title=0.5)")
    return name.strip(), value


def field_boosts(args: argparse.Namespace) -> dict[str, float] | None:
    """``{name: boost}`` from :func:`add_field_boosts_arg`'s option, or ``None``; a field
    named twice or with another model than BM25 is an error."""
    pairs: list[tuple[str, float]] | None = getattr(args, "field_boosts", None)
    if pairs is None:
        return None
    boosts = dict(pairs)
    if len(boosts) != len(pairs):
        raise SystemExit("error: a field is named twice in the field boosts")
    if getattr(args, "model", "bm25") != "bm25":
        raise SystemExit(f"error: fields are searched with BM25, not --model {args.model}")
    return boosts


def fields_kwargs(args: argparse.Namespace) -> dict[str, object]:
    """``{"fields": {name: boost}}`` from :func:`field_boosts`, or nothing."""
    boosts = field_boosts(args)
    return {} if boosts is None else {"fields": boosts}


def progress(enabled: bool) -> bool:
    """Whether to draw a progress bar: asked for, and stderr is a terminal."""
    return enabled and sys.stderr.isatty()


def positive_int(text: str) -> int:
    """An argparse type: an integer of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive integer")
    return value


INDEX_HELP = (
    "index folder: an rserini index, a sharded one, or a Lucene index written by "
    "Anserini or Pyserini (read without a JVM, never written)"
)


def add_index_args(
    p: argparse.ArgumentParser, *, required: bool = True, converts: bool = True
) -> None:
    """Adds ``--index`` and its alternative ``--prebuilt`` (one of them is needed when
    ``required``), and ``--no-cache`` if the command ``converts`` a Lucene index."""
    g = p.add_mutually_exclusive_group(required=required)
    g.add_argument("--index", type=Path, default=None, help=INDEX_HELP)
    g.add_argument(
        "--prebuilt",
        metavar="NAME",
        default=None,
        help="one of Pyserini's prebuilt Lucene indexes by name (e.g. "
        "beir-v1.0.0-scifact.flat): the copy in Pyserini's cache ($PYSERINI_CACHE or "
        "~/.cache/pyserini), else downloaded there with its md5 checked",
    )
    if converts:
        p.add_argument(
            "--no-cache",
            action="store_true",
            help="convert a Lucene index in memory, writing no conversion cache (by "
            "default the conversion is kept in $RSERINI_CACHE, else "
            "$XDG_CACHE_HOME/rserini or ~/.cache/rserini, and reused)",
        )


def index_folder(args: argparse.Namespace) -> Path | None:
    """The folder of ``--index``, or of ``--prebuilt`` (downloaded first if not cached);
    ``None`` if neither was given."""
    if getattr(args, "prebuilt", None) is None:
        index: Path | None = args.index
        return index
    from rserini.lucene.prebuilt import prebuilt_index_path

    return prebuilt_index_path(args.prebuilt, progress=progress(True))
