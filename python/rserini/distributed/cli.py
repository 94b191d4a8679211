"""The sharded side of ``rserini index``, kept out of ``rserini.cli``."""

from __future__ import annotations

import argparse
import time

from rserini.distributed.build import build_shards
from rserini.distributed.engine import RAY_INSTALL


def _shard_count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of shards") from None
    if value < 1:
        raise argparse.ArgumentTypeError(
            f"{value} shards: a sharded index needs at least 1 (--shards N, N >= 1)"
        )
    return value


def add_shard_args(p: argparse.ArgumentParser) -> None:
    """``--shards`` and ``--ray`` of ``rserini index``."""
    g = p.add_argument_group("sharding (a folder of shards searched as one index)")
    g.add_argument(
        "--shards",
        type=_shard_count,
        default=None,
        metavar="N",
        help="split the documents by docid hash into N shards built in parallel; "
        "`rserini search|run --index` reads the folder as one index with the same "
        "rankings and scores",
    )
    g.add_argument(
        "--ray",
        default=None,
        metavar="ADDRESS",
        help="build the shards as Ray tasks on the cluster at ADDRESS (`auto`: the running "
        f"one; every node must see --index at the same path; needs {RAY_INSTALL})",
    )


def index_sharded(args: argparse.Namespace) -> int:
    """``rserini index --shards N``."""
    if args.append:
        raise SystemExit("error: --append adds to one index; a sharded index is built whole")
    start = time.perf_counter()
    try:
        out = build_shards(
            args.input,
            args.index,
            args.shards,
            engine="ray" if args.ray is not None else "local",
            address=args.ray,
            analyzer=args.analyzer,
            store=not args.no_store,
            threads=args.threads,
            memory_mb=args.memory_mb,
            duplicates=args.duplicates,
            max_line_bytes=args.max_line_bytes,
            reorder=args.reorder,
        )
    except ImportError as e:
        raise SystemExit(f"error: {e}") from None
    if not args.quiet:
        from rserini.distributed.open_shards import manifest_or_error

        manifest = manifest_or_error(out)
        print(
            f"indexed: {manifest.documents:,} documents in {manifest.num_shards} shard(s) "
            f"in {time.perf_counter() - start:.2f}s -> {out}"
        )
    return 0
