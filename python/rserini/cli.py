"""The ``rserini`` command line: index, search, run, explain.

Each subcommand parses its arguments and calls the library; no logic lives here.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rserini._bm25_args import add_bm25_shape, add_k1_b
from rserini._core import (
    ANALYZER_PRESETS,
    DEFAULT_B,
    DEFAULT_K1,
    DEFAULT_MU,
    Bm25,
    Index,
    read_queries,
)
from rserini._feedback_args import add_feedback_args, feedback_kwargs
from rserini.exceptions import RseriniError
from rserini.formats import check_run_ids, write_run
from rserini.project import CHUNK_LINES

if TYPE_CHECKING:
    from rserini.distributed import ShardedIndex

ALGORITHMS = ("auto", "exhaustive", "maxscore", "bmw")

EPILOG = """\
examples:
  rserini search "inverted index compression"      search the files under the current folder
  rserini index --input corpus.jsonl --index idx   index a JSONL corpus (Pyserini or BEIR shape)
  rserini search --index idx --k1 25 --b 1 "long document query"
  rserini run --index idx --queries queries.jsonl --output run.trec --remove-query
"""


def _add_model_args(
    p: argparse.ArgumentParser, models: Sequence[str] = ("bm25", "tfidf", "qld")
) -> None:
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


def _add_algorithm_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--algorithm",
        choices=ALGORITHMS,
        default="auto",
        help="how the top k is found: exhaustive scoring or exact MaxScore / block-max WAND "
        "pruning; every choice returns the same hits (default: auto, the fastest)",
    )


def _model_kwargs(args: argparse.Namespace) -> dict[str, object]:
    return {
        "model": args.model,
        "variant": args.variant,
        "k1": args.k1,
        "b": args.b,
        "length": args.length,
        "delta": args.delta,
        **({"mu": args.mu} if args.model == "qld" else {}),
    }


def _open(path: Path) -> Index | ShardedIndex:
    """The index in ``path``, or the sharded index (searched as one) if it is one."""
    if (path / "sharded.json").is_file():
        from rserini.distributed import ShardedIndex

        return ShardedIndex.open(path)
    return Index.load(path)


def _progress(enabled: bool) -> bool:
    return enabled and sys.stderr.isatty()


def _cmd_index(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    if args.shards is not None:
        from rserini.distributed.cli import index_sharded

        return index_sharded(args)
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
            progress=_progress(not args.quiet),
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


def _search_project(args: argparse.Namespace, query: str) -> int:
    from rserini.project_index import ProjectIndex

    project = ProjectIndex.open(
        args.root,
        analyzer=args.analyzer or "code",
        threads=args.threads,
        progress=_progress(not args.quiet),
    )
    if not args.quiet:
        print(f"rserini: {project.refresh}", file=sys.stderr)
    hits = project.search(query, k=args.k, algorithm=args.algorithm, **_model_kwargs(args))
    if args.json:
        print(json.dumps({"query": query, "hits": [h.to_dict() for h in hits]}))
    elif not hits:
        print("no document matches the query", file=sys.stderr)
    else:
        width = max(len(h.docid) for h in hits)
        for h in hits:
            print(f"{h.docid:<{width}}  {h.score:9.4f}  {h.line.strip()[:160]}")
    return 0


def _cmd_search(args: argparse.Namespace) -> int:
    from rserini.project_index import ranked

    query = " ".join(args.query)
    if args.index is None:
        return _search_project(args, query)
    hits = ranked(_open(args.index), query, args.k, algorithm=args.algorithm, **_model_kwargs(args))
    if args.json:
        print(
            json.dumps(
                {
                    "query": query,
                    "hits": [
                        {"rank": rank, "docid": docid, "score": score}
                        for rank, (docid, score) in enumerate(hits, 1)
                    ],
                }
            )
        )
    elif not hits:
        print("no document matches the query", file=sys.stderr)
    else:
        for rank, (docid, score) in enumerate(hits, 1):
            print(f"{rank:>4}  {score:9.4f}  {docid}")
    return 0


def _cmd_run(args: argparse.Namespace) -> int:
    from rserini.eval import Feedback, retrieve_ranked

    index = _open(args.index)
    queries = read_queries(args.queries)
    if not queries:
        raise SystemExit(f"error: {args.queries} holds no query")
    if not isinstance(index, Index) and (args.pyserini or args.rm3 or args.rocchio):
        raise SystemExit("error: --pyserini, --rm3 and --rocchio run on one index, not shards")
    if args.pyserini:
        return _run_as_pyserini(args, index, queries)
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
        params = {"algorithm": args.algorithm, **_model_kwargs(args)}
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


def _run_as_pyserini(args: argparse.Namespace, index: Index, queries: list[tuple[str, str]]) -> int:
    """Writes the run Pyserini would: its rounding, tie nudging and --remove-query."""
    from rserini.pyserini import LuceneSearcher, run, write_run

    if (args.model, args.variant, args.length, args.delta) not in (
        ("bm25", "lucene", "lucene", None),
        ("qld", "lucene", "lucene", None),
    ):
        raise SystemExit(
            "error: --pyserini reproduces Lucene BM25 or --qld: drop --model/--variant/--length"
        )
    searcher = LuceneSearcher(index)
    searcher.set_bm25(args.k1, args.b)
    if args.model == "qld":
        searcher.set_qld(args.mu)
    if args.rm3:
        searcher.set_rm3(**feedback_kwargs(args))
    if args.rocchio:
        searcher.set_rocchio(**feedback_kwargs(args))
    start = time.perf_counter()
    results = run(
        searcher, queries, args.k, remove_query=args.remove_query, threads=args.threads or 1
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
    index = _open(args.index)
    print(index.explain(" ".join(args.query), args.docid, **_model_kwargs(args)), end="")
    return 0


def _cmd_eval(args: argparse.Namespace) -> int:
    from rserini.eval import EvaluationError, evaluate
    from rserini.formats import read_qrels, read_run

    qrels = read_qrels(args.qrels)
    if not qrels:
        raise EvaluationError(f"{args.qrels}: no judgement in the file")
    run = read_run(args.run)
    if not run:
        raise EvaluationError(f"{args.run}: no result line in the run")
    result = evaluate(run, qrels, args.metrics, per_query=args.per_query, missing=args.missing)
    if args.json:
        print(json.dumps(result.to_dict(), indent=1))
    else:
        print(result.to_text(per_query=args.per_query, digits=args.digits), end="")
    if not args.quiet:
        if result.missing:
            what = (
                "counted as 0 (--missing zero, as trec_eval -c)"
                if args.missing == "zero"
                else "left out of the averages (--missing skip, as trec_eval without -c)"
            )
            print(
                f"rserini: note: {len(result.missing)} judged queries have no result in the run, "
                f"{what}",
                file=sys.stderr,
            )
        if result.unjudged:
            print(
                f"rserini: note: {len(result.unjudged)} queries of the run are not judged in the "
                "qrels and were ignored",
                file=sys.stderr,
            )
    return 0


def _grid_values(spec: str) -> list[float]:
    from rserini.tune import parse_values

    try:
        return parse_values(spec)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive integer")
    return value


def _cmd_tune(args: argparse.Namespace) -> int:
    from rserini import tune

    if not args.no_plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise RseriniError(
                f"the heatmap needs matplotlib: {tune.PLOT_HINT} (or pass --no-plot)"
            ) from None
    start = time.perf_counter()
    index, queries, qrels, name = tune.open_collection(
        args.corpus,
        index=args.index,
        queries=args.queries,
        qrels=args.qrels,
        split=args.split,
        analyzer=args.analyzer,
        threads=args.threads,
        progress=_progress(not args.quiet),
    )
    loaded = time.perf_counter() - start
    report = tune.tune(
        index,
        queries,
        qrels,
        args.k1,
        args.b,
        metric=args.metric,
        sample=args.sample,
        seed=args.seed,
        refine=args.refine,
        refine_steps=args.refine_steps,
        k=args.k,
        remove_query=args.remove_query,
        missing=args.missing,
        threads=args.threads,
        progress=_progress(not args.quiet),
        name=name,
        scoring=Bm25(variant=args.variant, length=args.length, delta=args.delta),
    )
    output = args.output if args.output is not None else Path(f"tune-{name}")
    output.mkdir(parents=True, exist_ok=True)
    report.to_csv(output / "grid.csv")
    report.to_json(output / "grid.json")
    written = [output / "grid.csv", output / "grid.json"]
    if not args.no_plot:
        written.append(tune.plot(report, args.plot or output / "heatmap.png"))
    print(report.summary(), end="")
    if not args.quiet:
        if report.unmatched_qids:
            print(
                f"rserini: note: {len(report.unmatched_qids)} judged queries have no topic and "
                "were not evaluated",
                file=sys.stderr,
            )
        if report.unjudged:
            print(
                f"rserini: note: {report.unjudged} topics are not judged and were not run",
                file=sys.stderr,
            )
        print(
            f"{len(index):,} documents loaded in {loaded:.2f}s; wrote "
            + ", ".join(str(p) for p in written),
            file=sys.stderr,
        )
    return 0


def _cmd_parity(args: argparse.Namespace) -> int:
    from rserini.parity._cli import run

    return run(args)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``rserini`` command."""
    parser = argparse.ArgumentParser(
        prog="rserini",
        description="Fast, faithful lexical search: Lucene-compatible BM25 (any k1/b at query "
        "time), TF-IDF and exact top-k on a Rust core.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--version", action="version", version=f"rserini {__import__('rserini').__version__}"
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

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
        default=256,
        help="memory budget of the build in MB: past it, postings are compressed into a "
        "segment and the segments merged at the end; same index, less memory (default: 256)",
    )
    p.add_argument(
        "--max-line-bytes",
        type=int,
        default=64 << 20,
        help="longest JSONL line accepted; a longer one is an error (default: 64 MiB)",
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
    from rserini.distributed.cli import add_shard_args

    add_shard_args(p)
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

    p = sub.add_parser(
        "search",
        help="search an index, or the files under the current folder",
        description="Search an index. Without --index, the text and code files "
        "under --root (default: the current folder, honouring "
        ".gitignore; generated, binary and huge files skipped) are indexed "
        f"as chunks of {CHUNK_LINES} lines with the `code` analyzer, cached in .rserini/, "
        "and only the files that changed are re-read; hits print as "
        "path:first-last  score  first matching line.",
    )
    p.add_argument("query", nargs="+", metavar="QUERY", help="query words")
    p.add_argument("--index", type=Path, default=None, help="index folder (default: index --root)")
    p.add_argument("--root", default=".", help="folder to search when no --index is given")
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
    p.add_argument("-q", "--quiet", action="store_true", help="no progress or status messages")
    _add_model_args(p, ("bm25", "tfidf", "rrf"))
    _add_algorithm_arg(p)
    p.set_defaults(func=_cmd_search)

    p = sub.add_parser(
        "run",
        help="batch retrieval to a TREC run file",
        description="Run every query of a BEIR queries.jsonl or a qid<TAB>text TSV "
        "file and write a TREC run (qid Q0 docid rank score tag).",
    )
    p.add_argument("--index", required=True, type=Path, help="index folder")
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
    _add_model_args(p)
    add_feedback_args(p)
    _add_algorithm_arg(p)
    p.set_defaults(func=_cmd_run)

    p = sub.add_parser(
        "explain",
        help="break a document's score down by query term",
        description="Explain one document's score for a query: each query term's "
        "frequencies, idf and contribution under the chosen model and parameters, "
        "and their sum (the score search gives).",
    )
    p.add_argument("query", nargs="+", metavar="QUERY")
    p.add_argument("--index", required=True, type=Path, help="index folder")
    p.add_argument("--docid", required=True, help="document to explain")
    _add_model_args(p)
    p.set_defaults(func=_cmd_explain)

    p = sub.add_parser(
        "eval",
        help="evaluate a TREC run against qrels (trec_eval's metrics, via ir_measures)",
        description="Evaluate a TREC run (qid Q0 docid rank score tag) against TREC qrels "
        "(qid 0 docid rel) or BEIR qrels/*.tsv, with trec_eval's implementations (through "
        "ir_measures). Only judged queries count; queries of the run without judgements are "
        "ignored. Documents are ranked by score, ties by docid descending, as trec_eval does.",
    )
    p.add_argument("--qrels", required=True, type=Path, help="TREC qrels or BEIR qrels .tsv")
    p.add_argument("--run", required=True, type=Path, help="TREC run file")
    p.add_argument(
        "--metrics",
        nargs="+",
        default=["nDCG@10", "R@100", "R@1000", "MAP", "MRR@10", "P@10"],
        metavar="METRIC",
        help="ir_measures names (nDCG@10 R@100 AP RR@10 P@10 Success@10 Bpref ...), the "
        "aliases MAP, MRR@k, Recall@k, or trec_eval names (ndcg_cut.10); MRR@k is "
        "trec_eval -M k -m recip_rank (default: nDCG@10 R@100 R@1000 MAP MRR@10 P@10)",
    )
    p.add_argument("--per-query", action="store_true", help="also print every query's values")
    p.add_argument(
        "--missing",
        choices=("zero", "skip"),
        default="zero",
        help="judged queries with no result in the run: count as 0 (zero, default: "
        "trec_eval -c, as Pyserini's BEIR evaluation) or leave out of the averages (skip: "
        "trec_eval without -c)",
    )
    p.add_argument("--json", action="store_true", help="print everything as JSON")
    p.add_argument("--digits", type=int, default=4, help="decimals printed (default 4)")
    p.add_argument("-q", "--quiet", action="store_true", help="no notes on stderr")
    p.set_defaults(func=_cmd_eval)

    p = sub.add_parser(
        "tune",
        help="grid-search BM25 k1 x b on one index; CSV, JSON and a heatmap",
        description="Score every (k1, b) cell of a grid on one index (k1 and b are query-time "
        "parameters) with a trec_eval metric, optionally on a seeded sample of the judged "
        "queries with the held-out rest as a check, and optionally refine around the best "
        "cell. Writes grid.csv, grid.json and heatmap.png (best cell and the default "
        f"k1={DEFAULT_K1:g}, b={DEFAULT_B:g} marked) into --output, and prints the best cell "
        "against the default.",
    )
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument(
        "--corpus",
        type=Path,
        help="BEIR folder (corpus.jsonl[.gz], queries.jsonl, qrels/test.tsv) or JSONL corpus; "
        "indexed in memory",
    )
    src.add_argument("--index", type=Path, help="a saved index instead of --corpus")
    p.add_argument("--queries", type=Path, help="queries.jsonl or qid<TAB>text (default: BEIR's)")
    p.add_argument("--qrels", type=Path, help="TREC qrels or BEIR .tsv (default: BEIR's)")
    p.add_argument("--split", default="test", help="BEIR qrels split (default: test)")
    p.add_argument(
        "--k1",
        type=_grid_values,
        default="0.5:30:10:log",
        metavar="SPEC",
        help="k1 values: start:stop:count (evenly spaced), start:stop:count:log (log "
        "spaced) or a comma list (default: 0.5:30:10:log)",
    )
    p.add_argument(
        "--b",
        type=_grid_values,
        default="0:1:11",
        metavar="SPEC",
        help="b values, same syntax (default: 0:1:11, i.e. 0, 0.1, ..., 1)",
    )
    p.add_argument("--metric", default="nDCG@10", help="metric to maximise (default nDCG@10)")
    p.add_argument(
        "--k",
        type=_positive_int,
        default=None,
        help="hits per query (default: the metric's cutoff, else 1000)",
    )
    p.add_argument(
        "--sample",
        type=_positive_int,
        default=None,
        metavar="N",
        help="tune on N judged queries, hold out the rest",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the sample (default 0)")
    p.add_argument("--refine", action="store_true", help="finer grid around the best cell")
    p.add_argument(
        "--refine-steps",
        type=_positive_int,
        default=5,
        metavar="N",
        help="values per axis of the finer grid (default 5)",
    )
    p.add_argument(
        "--remove-query",
        action="store_true",
        help="drop a hit whose docid equals its query id (BEIR collections whose queries are "
        "documents, as Pyserini); not for collections whose query and document ids overlap "
        "by chance",
    )
    p.add_argument(
        "--missing",
        choices=("zero", "skip"),
        default="zero",
        help="judged queries without results: 0 (default, trec_eval -c) or left out",
    )
    add_bm25_shape(p)
    p.add_argument(
        "--analyzer",
        choices=ANALYZER_PRESETS,
        default="lucene-english",
        help="analyzer when indexing --corpus (default: lucene-english)",
    )
    p.add_argument("--threads", type=int, default=None, help="threads (default: all cores)")
    p.add_argument("--output", type=Path, default=None, help="output folder (default: tune-NAME)")
    p.add_argument("--plot", type=Path, default=None, help="heatmap path (default: in --output)")
    p.add_argument("--no-plot", action="store_true", help="no heatmap (no matplotlib needed)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars or notes")
    p.set_defaults(func=_cmd_tune)

    from rserini.agent.cli import add_serve_parser
    from rserini.agent.commands import add_agent_commands

    add_serve_parser(sub)
    add_agent_commands(sub)

    from rserini.parity._cli import DESCRIPTION as PARITY_DESCRIPTION
    from rserini.parity._cli import add_arguments as add_parity_arguments

    p = sub.add_parser(
        "parity",
        help="compare with Pyserini: tokens, rankings, scores, metrics (needs Pyserini)",
        description=PARITY_DESCRIPTION,
    )
    add_parity_arguments(p)
    p.set_defaults(func=_cmd_parity)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except (RseriniError, OSError) as e:
        print(f"rserini: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
