"""``rserini index``, ``delete`` and ``info``: building an index (one, or sharded),
deleting from it, describing it."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from rserini._core import (
    ANALYZER_PRESETS,
    DEFAULT_MAX_LINE_BYTES,
    DEFAULT_MEMORY_MB,
    Index,
)
from rserini.cli.common import Subcommands, progress
from rserini.distributed.options import RAY_INSTALL


def add_commands(sub: Subcommands) -> None:
    """Adds ``index``, ``delete`` and ``info``."""
    p = sub.add_parser(
        "index",
        help="index JSONL documents into a folder",
        description="Index documents from JSONL files: Pyserini JsonCollection "
        '({"id", "contents"}) or BEIR ({"_id", "title", "text"}, '
        "indexed as title + ' ' + text); .jsonl or .jsonl.gz, a file or "
        "a folder of them.",
    )
    p.add_argument("--input", required=True, type=Path, help="JSONL file or folder")
    p.add_argument("--index", required=True, type=Path, help="output index folder")
    p.add_argument(
        "--append",
        action="store_true",
        help="add the documents to the existing index in --index (crash-safe commit)",
    )
    p.add_argument(
        "--no-store", action="store_true", help="do not keep the documents' text in the index"
    )
    p.add_argument(
        "--analyzer",
        choices=ANALYZER_PRESETS,
        default="lucene-english",
        help="analysis chain (default: lucene-english, Pyserini's default analyzer)",
    )
    p.add_argument(
        "--threads", type=int, default=None, help="indexing threads (default: all cores)"
    )
    p.add_argument(
        "--memory-mb",
        type=float,
        default=DEFAULT_MEMORY_MB,
        help="memory budget of the build in MB: past it, postings are compressed into a "
        "segment and the segments merged at the end; same index, less memory "
        f"(default: {DEFAULT_MEMORY_MB})",
    )
    p.add_argument(
        "--max-line-bytes",
        type=int,
        default=DEFAULT_MAX_LINE_BYTES,
        help="longest JSONL line accepted; a longer one is an error "
        f"(default: {DEFAULT_MAX_LINE_BYTES >> 20} MiB)",
    )
    p.add_argument(
        "--duplicates",
        choices=("error", "keep"),
        default="error",
        help="a docid given twice: refuse the corpus (default), or keep every copy, "
        "as Lucene and Pyserini do",
    )
    p.add_argument(
        "--reorder",
        choices=("none", "bp"),
        default="none",
        help="document numbering: as read (default), or bp: recursive graph bisection, "
        "which puts documents sharing terms next to each other; same results, a build "
        "several times slower",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    _add_shard_args(p)
    p.set_defaults(func=_cmd_index)

    p = sub.add_parser(
        "delete",
        help="delete documents from an index",
        description="Delete documents by docid and commit (crash-safe).",
    )
    p.add_argument("docids", nargs="+", metavar="DOCID")
    p.add_argument("--index", required=True, type=Path, help="index folder")
    p.add_argument("-q", "--quiet", action="store_true", help="no status message")
    p.set_defaults(func=_cmd_delete)

    p = sub.add_parser(
        "info",
        help="describe an index: format, counts, analyzer, sizes, segments",
        description="Describe an index folder: its format version, the rserini version that "
        "wrote it, its generation, analyzer, document, term and posting counts, average "
        "document length, sizes in bytes and segments (--json for a JSON object).",
    )
    p.add_argument("--index", required=True, type=Path, help="index folder")
    p.add_argument("--json", action="store_true", help="print as JSON")
    p.set_defaults(func=_cmd_info)


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


def _add_shard_args(p: argparse.ArgumentParser) -> None:
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


def _cmd_index(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    if args.shards is not None:
        return _index_sharded(args)
    if args.ray is not None:
        raise SystemExit("error: --ray builds a sharded index: add --shards N")
    if args.append and args.reorder != "none":
        raise SystemExit("error: --reorder applies to a new index: drop it or --append")
    if args.append:
        index = Index.load(args.index)
        added = index.add_jsonl(
            args.input, duplicates=args.duplicates, max_line_bytes=args.max_line_bytes
        )
        index.commit(threads=args.threads)
        what = f"added {added:,} documents"
    else:
        index = Index.from_jsonl(
            args.input,
            analyzer=args.analyzer,
            store=not args.no_store,
            threads=args.threads,
            progress=progress(not args.quiet),
            memory_mb=args.memory_mb,
            duplicates=args.duplicates,
            max_line_bytes=args.max_line_bytes,
            reorder=args.reorder,
        )
        index.save(args.index)
        what = "indexed"
    stats = index.stats()
    if not args.quiet:
        print(
            f"{what}: {stats['num_docs']:,} documents, {stats['num_terms']:,} terms, "
            f"{stats['num_postings']:,} postings, {stats['num_segments']} segment(s) "
            f"in {time.perf_counter() - start:.2f}s -> {args.index}"
        )
    return 0


def _index_sharded(args: argparse.Namespace) -> int:
    """``rserini index --shards N``."""
    from rserini.distributed.build import build_shards

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


def _cmd_delete(args: argparse.Namespace) -> int:
    index = Index.load(args.index)
    index.delete(args.docids)
    index.commit()
    if not args.quiet:
        print(f"deleted {len(set(args.docids)):,} documents; {len(index):,} remain in {args.index}")
    return 0


def _cmd_info(args: argparse.Namespace) -> int:
    info = {**Index.load(args.index).info(), "path": str(args.index)}
    info["avgdl"] = round(info["avgdl"], 3)
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    for key, value in info.items():
        if key == "segments":
            print("segments:")
            for seg in value:
                print(
                    f"  {seg['name']}: {seg['documents']:,} documents, {seg['deleted']:,} deleted"
                )
        elif key == "analyzer":
            print(f"analyzer: {value['name']} ({json.dumps(value)})")
        else:
            print(f"{key}: {value:,}" if isinstance(value, int) else f"{key}: {value}")
    return 0
