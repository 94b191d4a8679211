"""``rserini eval``: a TREC run against qrels, with trec_eval's metrics."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rserini.cli.common import Subcommands
from rserini.eval import DEFAULT_METRICS


def add_commands(sub: Subcommands) -> None:
    """Adds ``eval``."""
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
        default=list(DEFAULT_METRICS),
        metavar="METRIC",
        help="ir_measures names (nDCG@10 R@100 AP RR@10 P@10 Success@10 Bpref ...), the "
        "aliases MAP, MRR@k, Recall@k, or trec_eval names (ndcg_cut.10); MRR@k is "
        f"trec_eval -M k -m recip_rank (default: {' '.join(DEFAULT_METRICS)})",
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
