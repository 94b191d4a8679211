"""``rserini search``, ``run`` and ``explain``: one query against an index (or the files
under a folder), every query of a file into a TREC run, and one document's score taken
apart."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any, cast

from rserini._core import ANALYZER_PRESETS, Analyzer, read_queries
from rserini._feedback_args import add_feedback_args, feedback_kwargs
from rserini.cli.common import (
    Subcommands,
    add_algorithm_arg,
    add_field_boosts_arg,
    add_index_args,
    add_model_args,
    field_boosts,
    fields_kwargs,
    index_folder,
    model_kwargs,
    progress,
)
from rserini.distributed.build import is_sharded
from rserini.formats import check_run_ids, write_run
from rserini.hit_text import display_text, highlight, stored_docs, text_fields, trim
from rserini.project import CHUNK_LINES
from rserini.searchable import Searchable, open_searchable, ranked


def add_commands(sub: Subcommands) -> None:
    """Adds ``search``, ``run`` and ``explain``."""
    p = sub.add_parser(
        "search",
        help="search an index, or the files under the current folder",
        description="Search an index (--index: rserini, sharded or Lucene; --prebuilt: one of "
        "Pyserini's prebuilt Lucene indexes by name). Without either, the text and code files "
        "under --root (default: the current folder, honouring "
        ".gitignore; generated, binary and huge files skipped) are indexed "
        f"as chunks of {CHUNK_LINES} lines with the `code` analyzer, cached in .rserini/, "
        "and only the files that changed are re-read; hits print as "
        "path:first-last  score  first matching line.",
    )
    p.add_argument("query", nargs="+", metavar="QUERY", help="query words")
    add_index_args(p, required=False)
    p.add_argument(
        "--root", default=".", help="folder to search when no --index or --prebuilt is given"
    )
    p.add_argument(
        "--analyzer",
        choices=ANALYZER_PRESETS,
        default=None,
        help="analyzer for the --root index (default: code)",
    )
    p.add_argument("--k", type=int, default=10, help="number of hits (default 10)")
    p.add_argument(
        "--threads", type=int, default=None, help="indexing threads (default: all cores)"
    )
    p.add_argument("--json", action="store_true", help="print hits as JSON")
    text = p.add_mutually_exclusive_group()
    text.add_argument(
        "--fields",
        type=_field_list,
        default=None,
        metavar="NAME,...",
        help="with --index: the stored fields shown after each hit, in this order (default: "
        "the title, else the first line of the text; with --json: every field)",
    )
    text.add_argument(
        "--no-text",
        action="store_true",
        help="with --index: rank, score and docid only, no stored text",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress or status messages")
    add_model_args(p, ("bm25", "tfidf", "rrf"))
    # `--fields` chooses the text shown here: the boosts take Pyserini's spelling in `run`.
    add_field_boosts_arg(p, "--search-fields")
    add_algorithm_arg(p)
    p.set_defaults(func=_cmd_search)

    p = sub.add_parser(
        "run",
        help="batch retrieval to a TREC run file",
        description="Run every query of a BEIR queries.jsonl or a qid<TAB>text TSV "
        "file and write a TREC run (qid Q0 docid rank score tag). The index is an rserini, "
        "sharded or Lucene index folder (--index), or one of Pyserini's prebuilt Lucene "
        "indexes by name (--prebuilt, read from Pyserini's cache or downloaded into it); "
        "with --pyserini the run is the one Pyserini writes on that index.",
    )
    add_index_args(p)
    p.add_argument("--queries", required=True, type=Path, help="queries.jsonl or .tsv")
    p.add_argument("--output", required=True, type=Path, help="run file to write")
    p.add_argument("--k", type=int, default=1000, help="hits per query (default 1000)")
    p.add_argument("--threads", type=int, default=None, help="search threads (default: all cores)")
    p.add_argument(
        "--remove-query",
        action="store_true",
        help="drop a hit whose docid equals its query id (as Pyserini's BEIR runs)",
    )
    p.add_argument("--tag", default="rserini", help="run tag (last column)")
    p.add_argument(
        "--pyserini",
        action="store_true",
        help="write exactly what Pyserini writes: scores rounded to 4 decimals with ties "
        "nudged apart, and --remove-query after searching k hits (Lucene BM25 only)",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no status messages")
    add_model_args(p)
    add_field_boosts_arg(p, "--fields", "--search-fields")
    add_feedback_args(p)
    add_algorithm_arg(p)
    p.set_defaults(func=_cmd_run)

    p = sub.add_parser(
        "explain",
        help="break a document's score down by query term",
        description="Explain one document's score for a query: each query term's "
        "frequencies, idf and contribution under the chosen model and parameters, "
        "and their sum (the score search gives).",
    )
    p.add_argument("query", nargs="+", metavar="QUERY")
    add_index_args(p)
    p.add_argument("--docid", required=True, help="document to explain")
    add_model_args(p)
    p.set_defaults(func=_cmd_explain)


def _search_project(args: argparse.Namespace, query: str) -> int:
    from rserini.project_index import ProjectIndex

    if not Path(args.root).is_dir():
        what = "no such folder" if not Path(args.root).exists() else "not a folder"
        raise FileNotFoundError(f"{what}: {args.root} (--root: the folder whose files to search)")
    project = ProjectIndex.open(
        args.root,
        analyzer=args.analyzer or "code",
        threads=args.threads,
        progress=progress(not args.quiet),
    )
    if not args.quiet:
        print(f"rserini: {project.refresh}", file=sys.stderr)
    hits = project.search(query, k=args.k, algorithm=args.algorithm, **model_kwargs(args))
    if args.json:
        print(json.dumps({"query": query, "hits": [h.to_dict() for h in hits]}))
    elif not hits:
        print("no document matches the query", file=sys.stderr)
    else:
        width = max(len(h.docid) for h in hits)
        for h in hits:
            print(f"{h.docid:<{width}}  {h.score:9.4f}  {h.line.strip()[:160]}")
    return 0


def _field_list(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError("name at least one field (--fields title,text)")
    return names


def _cmd_search(args: argparse.Namespace) -> int:
    query = " ".join(args.query)
    folder = index_folder(args)
    if folder is None:
        return _search_project(args, query)
    index = open_searchable(folder, cache=not args.no_cache)
    options = model_kwargs(args) | fields_kwargs(args)
    hits = ranked(index, query, args.k, algorithm=args.algorithm, **options)
    docs = [None] * len(hits) if args.no_text else stored_docs(index, [d for d, _ in hits])
    if args.json:
        rows = []
        for rank, ((docid, score), doc) in enumerate(zip(hits, docs, strict=True), 1):
            row: dict[str, object] = {"rank": rank, "docid": docid, "score": score}
            if doc is not None:
                row["fields"] = text_fields(doc, args.fields)
            rows.append(row)
        print(json.dumps({"query": query, "hits": rows}))
    elif not hits:
        print("no document matches the query", file=sys.stderr)
    else:
        _print_hits(index, query, hits, docs, args.fields)
    return 0


def _print_hits(
    index: Searchable,
    query: str,
    hits: list[tuple[str, float]],
    docs: list[dict[str, object] | None],
    fields: list[str] | None,
) -> None:
    """One line per hit: rank, score, docid and its text, cut to the terminal's width, the
    query's words in bold when stdout is a terminal."""
    width = max(len(docid) for docid, _ in hits)
    columns = shutil.get_terminal_size().columns
    analyzer: Analyzer = cast(Any, index).analyzer  # an Index's or a ShardedIndex's
    terms: set[str] = set()
    if sys.stdout.isatty() and any(doc is not None for doc in docs):
        terms = set(analyzer.analyze(query))
    for rank, ((docid, score), doc) in enumerate(zip(hits, docs, strict=True), 1):
        line = f"{rank:>4}  {score:9.4f}  {docid:<{width}}"
        text = "" if doc is None else display_text(doc, fields)
        if text:
            text = trim(text, columns - len(line) - 2)
            if terms:
                text = highlight(text, terms, analyzer)
            line = f"{line}  {text}"
        print(line.rstrip())


def _cmd_run(args: argparse.Namespace) -> int:
    from rserini.eval import Feedback, retrieve_ranked

    folder = index_folder(args)
    assert folder is not None  # argparse requires --index or --prebuilt
    if (args.pyserini or args.rm3 or args.rocchio) and is_sharded(folder):
        raise SystemExit("error: --pyserini, --rm3 and --rocchio run on one index, not shards")
    if args.pyserini:
        return _run_as_pyserini(args, folder, _queries(args))
    index = open_searchable(folder, cache=not args.no_cache)
    queries = _queries(args)
    for qid, _ in queries:
        check_run_ids(qid, [])  # before a long search, not after
    feedback: Feedback | None = "rm3" if args.rm3 else "rocchio" if args.rocchio else None
    if feedback is not None:
        if args.model != "bm25" or args.variant != "lucene" or args.length != "lucene":
            raise SystemExit(
                "error: feedback runs over Lucene BM25: drop --model/--variant/--length"
            )
        params = {"k1": args.k1, "b": args.b, **feedback_kwargs(args)}
    else:
        params = {"algorithm": args.algorithm, **model_kwargs(args)}
    params |= fields_kwargs(args)
    start = time.perf_counter()
    run = retrieve_ranked(
        index,
        queries,
        args.k,
        remove_query=args.remove_query,
        threads=args.threads,
        feedback=feedback,
        **params,
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


def _queries(args: argparse.Namespace) -> list[tuple[str, str]]:
    queries = read_queries(args.queries)
    if not queries:
        raise SystemExit(f"error: {args.queries} holds no query")
    return queries


def _run_as_pyserini(args: argparse.Namespace, index: Path, queries: list[tuple[str, str]]) -> int:
    """Writes the run Pyserini would: its rounding, tie nudging and --remove-query."""
    from rserini.pyserini import LuceneSearcher, run, write_run

    if (args.model, args.variant, args.length, args.delta) not in (
        ("bm25", "lucene", "lucene", None),
        ("qld", "lucene", "lucene", None),
    ):
        raise SystemExit(
            "error: --pyserini reproduces Lucene BM25 or --qld: drop --model/--variant/--length"
        )
    searcher = LuceneSearcher(index, cache=not args.no_cache)
    searcher.set_bm25(args.k1, args.b)
    if args.model == "qld":
        searcher.set_qld(args.mu)
    if args.rm3:
        searcher.set_rm3(**feedback_kwargs(args))
    if args.rocchio:
        searcher.set_rocchio(**feedback_kwargs(args))
    start = time.perf_counter()
    results = run(
        searcher,
        queries,
        args.k,
        remove_query=args.remove_query,
        threads=args.threads or 1,
        fields=field_boosts(args),
    )
    elapsed = time.perf_counter() - start
    for qid, hits in results.items():
        check_run_ids(qid, [hit.docid.strip() for hit in hits])
    lines = write_run(results, args.output, tag=args.tag)
    if not args.quiet:
        print(
            f"{len(queries):,} queries in {elapsed:.2f}s, {lines:,} lines -> {args.output}",
            file=sys.stderr,
        )
    return 0


def _cmd_explain(args: argparse.Namespace) -> int:
    folder = index_folder(args)
    assert folder is not None  # argparse requires --index or --prebuilt
    index = open_searchable(folder, cache=not args.no_cache)
    print(index.explain(" ".join(args.query), args.docid, **model_kwargs(args)), end="")
    return 0
