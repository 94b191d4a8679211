"""``rserini parity`` and ``python -m rserini.parity``: the parity harness's command line."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rserini._core import DEFAULT_B, DEFAULT_K1, DEFAULT_MU
from rserini._feedback_args import add_feedback_args, feedback_kwargs
from rserini.cli.common import Subcommands

DESCRIPTION = (
    "Index the same documents with Pyserini and rserini, run the same queries through both "
    "(Pyserini's LuceneSearcher; rserini in its Pyserini mode: Lucene BM25, Anserini's order "
    "and rounding), and report token-stream differences, identical top 10s and rankings, "
    "overlap, Kendall's tau, score differences and, with qrels, nDCG@10 and R@k of both. "
    "Exits with status 1 when a tolerance given here is missed. Needs Pyserini: "
    "`python -m rserini.parity --install`."
)


def add_commands(sub: Subcommands) -> None:
    """Adds ``parity``."""
    p = sub.add_parser(
        "parity",
        help="compare with Pyserini: tokens, rankings, scores, metrics (needs Pyserini)",
        description=DESCRIPTION,
    )
    add_arguments(p)
    p.set_defaults(func=run)


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text} is not a fraction between 0 and 1")
    return value


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Adds the harness's options to ``p``."""
    p.add_argument(
        "--corpus",
        type=Path,
        required=True,
        help="BEIR folder (corpus.jsonl[.gz], queries.jsonl, qrels/test.tsv), JSONL file or "
        "folder of JSONL files ({id, contents} or BEIR {_id, title, text})",
    )
    p.add_argument("--queries", type=Path, help="queries.jsonl or qid<TAB>text (default: BEIR's)")
    p.add_argument(
        "--qrels", type=Path, help="TREC or BEIR qrels (default: the BEIR folder's test split)"
    )
    p.add_argument(
        "--k1",
        type=float,
        nargs="+",
        default=[DEFAULT_K1],
        metavar="X",
        help=f"BM25 k1, one or more (paired with --b; default {DEFAULT_K1:g})",
    )
    p.add_argument(
        "--b",
        type=float,
        nargs="+",
        default=[DEFAULT_B],
        metavar="Y",
        help=f"BM25 b, one or more (paired with --k1; default {DEFAULT_B:g})",
    )
    p.add_argument(
        "--qld",
        action="store_true",
        help="compare query likelihood with Dirichlet smoothing (Pyserini's set_qld) "
        "instead of BM25",
    )
    p.add_argument(
        "--mu",
        type=float,
        default=DEFAULT_MU,
        help=f"Dirichlet mu with --qld (default {DEFAULT_MU:g})",
    )
    add_feedback_args(p)
    p.add_argument("--k", type=int, default=1000, help="hits per query (default 1000)")
    p.add_argument(
        "--remove-query",
        action="store_true",
        help="drop a query's own docid from its hits, as Pyserini's --remove-query",
    )
    p.add_argument("--json", type=Path, metavar="OUT", help="write the full report as JSON")
    p.add_argument(
        "--work-dir",
        type=Path,
        help="keep the Pyserini collection, index and runs here (default: temporary)",
    )
    p.add_argument(
        "--save-runs",
        type=Path,
        metavar="DIR",
        help="write both sides' runs there as TREC files, as Pyserini writes them",
    )
    p.add_argument("--threads", type=int, default=None, help="threads per side (default 2)")
    p.add_argument("--max-heap", default="4g", help="the JVM's -Xmx (default 4g)")
    g = p.add_argument_group("tolerances (exit status 1 when one is missed)")
    g.add_argument("--min-same-tokens", type=_fraction, metavar="F", help="documents")
    g.add_argument("--min-same-top10", type=_fraction, metavar="F", help="queries")
    g.add_argument("--min-same-topk", type=_fraction, metavar="F", help="queries")
    g.add_argument("--max-score-diff", type=float, metavar="X", help="output scores")
    g.add_argument("--metric-digits", type=int, metavar="N", help="metrics equal to N decimals")
    g.add_argument(
        "--acceptance",
        action="store_true",
        help="rserini's bar: --min-same-tokens 0.999 --min-same-top10 1 --min-same-topk 0.995 "
        "--max-score-diff 1e-4 --metric-digits 4 (explicit options take precedence)",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="print only failures")


def run(args: argparse.Namespace) -> int:
    """Runs a parity check from parsed arguments; returns the exit status."""
    from rserini.parity._harness import ParityError, compare
    from rserini.parity._report import Tolerances

    k1s, bs = list(args.k1), list(args.b)
    if len(k1s) == 1 and len(bs) > 1:
        k1s *= len(bs)
    if len(bs) == 1 and len(k1s) > 1:
        bs *= len(k1s)
    if len(k1s) != len(bs):
        raise ParityError(f"{len(k1s)} values of --k1 but {len(bs)} of --b: give pairs")
    mode: dict[str, object] | None = {"model": "qld", "mu": args.mu} if args.qld else None
    if args.rm3 or args.rocchio:
        if args.qld:
            raise ParityError("feedback runs over BM25: drop --qld")
        mode = {"model": "rm3" if args.rm3 else "rocchio", **feedback_kwargs(args)}
    if args.qld:
        k1s, bs = k1s[:1], bs[:1]  # BM25's parameters play no part
    tolerances = Tolerances.acceptance() if args.acceptance else Tolerances()
    for name in ("min_same_tokens", "min_same_top10", "min_same_topk", "max_score_diff"):
        if getattr(args, name) is not None:
            setattr(tolerances, name, getattr(args, name))
    if args.metric_digits is not None:
        tolerances.metric_digits = args.metric_digits
    report = compare(
        args.corpus,
        args.queries,
        args.qrels,
        settings=list(zip(k1s, bs, strict=True)),
        k=args.k,
        remove_query=args.remove_query,
        threads=args.threads,
        work_dir=args.work_dir,
        max_heap=args.max_heap,
        runs_dir=args.save_runs,
        mode=mode,
    )
    if args.json is not None:
        args.json.write_text(json.dumps(report.to_dict(), indent=1) + "\n", encoding="utf-8")
    if not args.quiet:
        print(report.to_text(), end="")
    failures = report.failures(tolerances)
    for failure in failures:
        print(f"rserini: parity: {failure}", file=sys.stderr)
    return 1 if failures else 0


def main(argv: list[str] | None = None) -> int:
    """``python -m rserini.parity``: ``--install``, ``--check``, ``index ARGS`` (Anserini's
    indexer, as ``python -m pyserini.index.lucene ARGS``), or a parity check."""
    argv = list(sys.argv[1:] if argv is None else argv)
    from rserini.exceptions import RseriniError
    from rserini.parity import _java

    try:
        if argv[:1] == ["--install"]:
            _java.install()
            return 0
        if argv[:1] == ["index"]:
            # `python -m pyserini.index.lucene ARGS` with the JVM started first.
            import runpy

            _java.boot()
            sys.argv = ["pyserini.index.lucene", *argv[1:]]
            runpy.run_module("pyserini.index.lucene", run_name="__main__", alter_sys=True)
            return 0
        if argv[:1] == ["--check"]:
            runtime = _java.boot(max_heap="512m")
            from pyserini.analysis import Analyzer, get_lucene_analyzer
            from pyserini.search.lucene import LuceneSearcher  # noqa: F401

            tokens = Analyzer(get_lucene_analyzer()).analyze("Running foxes")
            print(
                f"pyserini {_java.PYSERINI_VERSION} works with Java {runtime.major} "
                f"({runtime.origin}, {runtime.home}): 'Running foxes' -> {tokens}"
            )
            return 0
        parser = argparse.ArgumentParser(
            prog="python -m rserini.parity",
            description=DESCRIPTION
            + " Also: `--install` installs Pyserini the light way, `--check` checks it runs, "
            "`index ARGS` runs `python -m pyserini.index.lucene ARGS` on the light install.",
        )
        add_arguments(parser)
        return run(parser.parse_args(argv))
    except (RseriniError, OSError) as e:
        print(f"rserini: error: {e}", file=sys.stderr)
        return 1
