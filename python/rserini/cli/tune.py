"""``rserini tune``: a grid of BM25 k1 x b on one index, as CSV, JSON and a heatmap."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from rserini._core import ANALYZER_PRESETS, DEFAULT_B, DEFAULT_K1, Bm25
from rserini.cli.bm25_args import add_bm25_shape
from rserini.cli.common import Subcommands, positive_int, progress
from rserini.exceptions import RseriniError


def add_commands(sub: Subcommands) -> None:
    """Adds ``tune``."""
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
        type=positive_int,
        default=None,
        help="hits per query (default: the metric's cutoff, else 1000)",
    )
    p.add_argument(
        "--sample",
        type=positive_int,
        default=None,
        metavar="N",
        help="tune on N judged queries, hold out the rest",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the sample (default 0)")
    p.add_argument("--refine", action="store_true", help="finer grid around the best cell")
    p.add_argument(
        "--refine-steps",
        type=positive_int,
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


def _grid_values(spec: str) -> list[float]:
    from rserini.tune import parse_values

    try:
        return parse_values(spec)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


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
        progress=progress(not args.quiet),
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
        progress=progress(not args.quiet),
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
