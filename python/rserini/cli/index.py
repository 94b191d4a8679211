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
    lucene_info,
)
from rserini.cli.common import Subcommands, add_index_args, index_folder, progress
from rserini.distributed.options import RAY_INSTALL
from rserini.exceptions import NotAnIndexError
from rserini.folders import FolderKind, folder_kind
from rserini.languages import LANGUAGES, language_preset


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
    chain = p.add_mutually_exclusive_group()
    chain.add_argument(
        "--analyzer",
        choices=ANALYZER_PRESETS,
        default="lucene-english",
        help="analysis chain (default: lucene-english, Pyserini's default analyzer)",
    )
    chain.add_argument(
        "--language",
        default=None,
        metavar="CODE",
        help="Pyserini's -language: Lucene's analyzer for that language, the "
        f"lucene-<CODE> preset ({', '.join(LANGUAGES)}; en is lucene-english)",
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
        "document length, sizes in bytes and segments (--json for a JSON object). Of a "
        "Lucene index (or --prebuilt NAME): the Lucene version, commit generation, "
        "documents, segments and fields.",
    )
    add_index_args(p)
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
    _writable(args.index)
    if args.language is not None:
        args.analyzer = language_preset(args.language)
    if args.shards is not None:
        return _index_sharded(args)
    if args.ray is not None:
        raise SystemExit("error: --ray builds a sharded index: add --shards N")
    if args.append and args.reorder != "none":
        raise SystemExit("error: --reorder applies to a new index: drop it or --append")
    if args.append:
        index = Index.load(args.index)
        if args.language is not None and index.analyzer.name != args.analyzer:
            raise SystemExit(
                f"error: --language {args.language} is {args.analyzer}, but {args.index} "
                f"was built with {index.analyzer.name}: drop --language to append"
            )
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


def _writable(folder: Path) -> None:
    """Refuses a Lucene folder, which rserini only reads."""
    if folder_kind(folder) is FolderKind.LUCENE:
        raise NotAnIndexError(
            f"{folder} is a Lucene index: rserini searches it as it is but never writes to "
            "a Lucene folder; index the documents into a new rserini index with `rserini "
            "index --input CORPUS --index NEW_FOLDER`",
            str(folder),
        )


def _cmd_delete(args: argparse.Namespace) -> int:
    _writable(args.index)
    index = Index.load(args.index)
    index.delete(args.docids)
    index.commit()
    if not args.quiet:
        print(f"deleted {len(set(args.docids)):,} documents; {len(index):,} remain in {args.index}")
    return 0


def _cmd_info(args: argparse.Namespace) -> int:
    folder = index_folder(args)
    assert folder is not None  # argparse requires --index or --prebuilt
    if folder_kind(folder) is FolderKind.LUCENE:
        return _lucene_info(folder, args.json)
    info = {**Index.load(folder).info(), "path": str(folder)}
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


def _lucene_info(folder: Path, as_json: bool) -> int:
    """Describes a Lucene index folder (read only)."""
    info = {"kind": "lucene", **lucene_info(folder), "path": str(folder)}
    if as_json:
        print(json.dumps(info, indent=2))
        return 0
    print(f"path: {folder}")
    print(
        f"kind: Lucene index, written by Lucene {info['lucene_version']} (created by Lucene "
        f"{info['created_major']}); searched as is, never written"
    )
    print(f"generation: {info['generation']} (segments_{_base36(info['generation'])})")
    print(f"documents: {info['documents']:,}")
    print(f"deleted: {info['deleted']:,}")
    print("segments:")
    for seg in info["segments"]:
        compound = ", compound file" if seg["compound"] else ""
        print(
            f"  {seg['name']}: {seg['documents']:,} documents, {seg['deleted']:,} deleted "
            f"({seg['codec']}, Lucene {seg['lucene_version']}{compound})"
        )
    print("fields:")
    for field in info["fields"]:
        extras = [name for name in ("norms", "term_vectors") if field[name]]
        print(f"  {field['name']}: {field['index_options']}" + "".join(f", {e}" for e in extras))
    return 0


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if n == 0:
            return out
