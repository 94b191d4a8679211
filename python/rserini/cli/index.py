"""``rserini index``, ``delete`` and ``info``: building an index (one, or sharded),
deleting from it, describing it."""

from __future__ import annotations

import argparse
import gzip
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rserini._core import (
    ANALYZER_PRESETS,
    DEFAULT_MAX_LINE_BYTES,
    DEFAULT_MEMORY_MB,
    Index,
    corpus_files,
    lucene_info,
)
from rserini.cli.common import Subcommands, add_index_args, index_folder, progress
from rserini.distributed.options import RAY_INSTALL
from rserini.exceptions import NotAnIndexError
from rserini.folders import FolderKind, check_index_folder, folder_kind, lucene_note
from rserini.formats import parse_error
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
        help="add the documents to the existing index in --index (crash-safe commit; to a "
        "sharded folder, each document to the shard its docid names)",
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
    p.add_argument(
        "--fields",
        nargs="+",
        default=[],
        metavar="NAME",
        help="also index these members of each JSON line as fields of their own, beside the "
        "main text, with the same analyzer, as Pyserini's -fields (e.g. --fields title); "
        "search them with `rserini run --fields contents=1.0 title=0.5`",
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
    p.add_argument("--index", required=True, type=Path, help="index folder (or sharded folder)")
    p.add_argument("-q", "--quiet", action="store_true", help="no status message")
    p.set_defaults(func=_cmd_delete)

    p = sub.add_parser(
        "info",
        help="describe an index: format, counts, analyzer, sizes, segments",
        description="Describe an index folder: its format version, the rserini version that "
        "wrote it, its generation, analyzer, document, term and posting counts, average "
        "document length, sizes in bytes and segments (--json for a JSON object). Of a "
        "sharded folder: its shards, each described; of a Lucene index (or --prebuilt "
        "NAME): the Lucene version, commit generation, documents, segments and fields.",
    )
    add_index_args(p, converts=False)
    p.add_argument("--json", action="store_true", help="print as JSON")
    p.add_argument(
        "--verify",
        action="store_true",
        help="first check every file, including the checksums that loading skips (each "
        "shard's, for a sharded folder)",
    )
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
    if args.fields and args.shards is not None:
        raise SystemExit("error: --fields builds one index, not shards: drop --shards")
    if args.shards is not None:
        return _index_sharded(args)
    if args.ray is not None:
        raise SystemExit("error: --ray builds a sharded index: add --shards N")
    if args.append and args.reorder != "none":
        raise SystemExit("error: --reorder applies to a new index: drop it or --append")
    if args.append:
        if check_index_folder(args.index, write=True) is FolderKind.SHARDED:
            return _append_sharded(args)
        index = Index.load(args.index)
        if args.fields and args.fields != index.field_names()[1:]:
            have = ", ".join(index.field_names()[1:]) or "none"
            raise SystemExit(
                f"error: --fields names a new index's fields; {args.index} has its own "
                f"({have}), to which --append adds: drop --fields"
            )
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
            fields=args.fields,
        )
        index.save(args.index)
        what = "indexed"
    stats = index.stats()
    if not args.quiet:
        print(
            f"{what}: {stats.num_docs:,} documents, {stats.num_terms:,} terms, "
            f"{stats.num_postings:,} postings, {stats.num_segments} segment(s) "
            f"in {time.perf_counter() - start:.2f}s -> {args.index}"
        )
    return 0


def _index_sharded(args: argparse.Namespace) -> int:
    """``rserini index --shards N``."""
    from rserini.distributed.build import build_shards

    if args.append:
        raise SystemExit(
            "error: --append adds to the shards the folder has: drop --shards "
            "(`rserini index --append --input MORE --index SHARDED`)"
        )
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
        raise NotAnIndexError(lucene_note(folder), str(folder))


def _append_sharded(args: argparse.Namespace) -> int:
    """``rserini index --append`` to a sharded folder: each document to its shard."""
    from rserini.distributed import ShardedIndex

    start = time.perf_counter()
    added = 0
    with ShardedIndex.open(args.index) as sharded:
        for docs in _jsonl_batches(args.input, args.max_line_bytes):
            sharded.add(docs, duplicates=args.duplicates)
            added += len(docs)
        sharded.commit(threads=args.threads)
    if not args.quiet:
        print(
            f"added {added:,} documents to {sharded.num_shards} shard(s) in "
            f"{time.perf_counter() - start:.2f}s: {_sharded_documents(args.index):,} "
            f"documents -> {args.index}"
        )
    return 0


def _jsonl_batches(path: Path, max_line_bytes: int) -> Iterator[list[dict[str, object]]]:
    """The JSON documents of the files :meth:`Index.from_jsonl` reads for ``path``, in
    batches of 10,000."""
    batch: list[dict[str, object]] = []
    for file in corpus_files(path):
        opener = gzip.open if file.name.endswith(".gz") else open
        with opener(file, "rb") as lines:
            for number, line in enumerate(lines, 1):
                if len(line) > max_line_bytes:
                    raise parse_error(file, number, f"line longer than {max_line_bytes} bytes")
                if line.strip():
                    try:
                        batch.append(json.loads(line))
                    except ValueError as e:
                        raise parse_error(file, number, f"not JSON: {e}") from None
                if len(batch) == 10_000:
                    yield batch
                    batch = []
    if batch:
        yield batch


def _sharded_documents(path: Path) -> int:
    from rserini.distributed.open_shards import manifest_or_error

    return manifest_or_error(path).documents


def _cmd_delete(args: argparse.Namespace) -> int:
    if check_index_folder(args.index, write=True) is FolderKind.SHARDED:
        from rserini.distributed import ShardedIndex

        with ShardedIndex.open(args.index) as sharded:
            sharded.delete(args.docids)
            sharded.commit()
        remain = _sharded_documents(args.index)
    else:
        index = Index.load(args.index)
        index.delete(args.docids)
        index.commit()
        remain = len(index)
    if not args.quiet:
        print(f"deleted {len(set(args.docids)):,} documents; {remain:,} remain in {args.index}")
    return 0


def _cmd_info(args: argparse.Namespace) -> int:
    folder = index_folder(args)
    assert folder is not None  # argparse requires --index or --prebuilt
    kind = check_index_folder(folder)
    if kind is FolderKind.SHARDED:
        return _info_sharded(folder, args)
    if kind is FolderKind.LUCENE:
        if args.verify:
            raise SystemExit("error: --verify checks rserini's own files, not a Lucene index's")
        return _lucene_info(folder, args.json)
    index = Index.load(folder)
    if args.verify:
        index.verify()
    info = {**index.info(), "path": str(folder)}
    if args.verify:
        info["verified"] = "every file and checksum"
    _print_info(info, args.json)
    return 0


def _info_sharded(folder: Path, args: argparse.Namespace) -> int:
    """``rserini info`` of a sharded folder: its manifest and each shard's info."""
    from rserini.distributed.open_shards import check_shards, manifest_or_error

    manifest = manifest_or_error(folder)
    check_shards(folder, manifest)
    shards = []
    for entry in manifest.shards:
        shard = Index.load(folder / entry.path)
        if args.verify:
            shard.verify()
        shards.append({**shard.info(), "path": str(folder / entry.path)})
    info: dict[str, Any] = {
        "path": str(folder),
        "format": "sharded (sharded.json): searched as one index by search, run, explain",
        "shards": len(shards),
        "documents": sum(s["documents"] for s in shards),
        "deleted": sum(s["deleted"] for s in shards),
        "bytes": sum(s["bytes"] for s in shards),
        "analyzer": shards[0]["analyzer"] if shards else None,
    }
    if args.verify:
        info["verified"] = "every file and checksum of every shard"
    if args.json:
        print(json.dumps({**info, "shard_info": shards}, indent=2))
        return 0
    _print_info(info, False)
    for shard in shards:
        print(
            f"  {shard['path']}: {shard['documents']:,} documents, {shard['deleted']:,} "
            f"deleted, {shard['terms']:,} terms, generation {shard['generation']}"
        )
    return 0


def _print_info(info: dict[str, Any], as_json: bool) -> None:
    if "avgdl" in info:
        info["avgdl"] = round(info["avgdl"], 3)
    if as_json:
        print(json.dumps(info, indent=2))
        return
    for key, value in info.items():
        if key == "segments":
            print("segments:")
            for seg in value:
                print(
                    f"  {seg['name']}: {seg['documents']:,} documents, {seg['deleted']:,} deleted"
                )
        elif key == "analyzer" and isinstance(value, dict):
            print(f"analyzer: {value['name']} ({json.dumps(value)})")
        elif key == "fields":
            print(f"fields: {', '.join(value)}")
        else:
            print(f"{key}: {value:,}" if isinstance(value, int) else f"{key}: {value}")


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
