"""The sharded side of ``rserini index`` and ``rserini run``, kept out of ``rserini.cli``."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from rserini._core import read_queries
from rserini.distributed.build import build_shards
from rserini.distributed.engine import RAY_INSTALL
from rserini.distributed.sharded_index import ShardedIndex
from rserini.formats import check_run_ids, write_run


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


def run_sharded(args: argparse.Namespace, model: dict[str, Any]) -> int:
    """``rserini run`` on a sharded index."""
    if args.pyserini or args.rm3 or args.rocchio:
        raise SystemExit(
            "error: --pyserini, --rm3 and --rocchio run on one index: merge the shards "
            "(rserini.distributed.merge_shards) or drop the option"
        )
    queries = read_queries(args.queries)
    if not queries:
        raise SystemExit(f"error: {args.queries} holds no query")
    for qid, _ in queries:
        check_run_ids(qid, [])
    start = time.perf_counter()
    with ShardedIndex.open(args.index) as index:
        run = index.ranked_run(
            queries,
            args.k,
            remove_query=args.remove_query,
            threads=args.threads,
            algorithm=args.algorithm,
            **model,
        )
    elapsed = time.perf_counter() - start
    lines = write_run(run, args.output, tag=args.tag)
    if not args.quiet:
        print(
            f"{len(queries):,} queries in {elapsed:.2f}s ({len(queries) / max(elapsed, 1e-9):,.0f} "
            f"queries/s), {lines:,} lines -> {args.output}",
            file=sys.stderr,
        )
    return 0
