"""``rserini agent-eval``: the retrieval columns of agent runs."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from rserini.agent.citations import NUMERIC_DOCID
from rserini.agent.evaluation import evaluate_records
from rserini.agent.metrics import GAINS
from rserini.agent.runs import read_runs
from rserini.exceptions import RseriniError

__all__ = ["add_agent_eval"]

DESCRIPTION = """\
Evaluate a folder of per-query agent run records (<query_id>.json, as `rserini agent-run`
or pi-serini writes them) against qrels: macro and micro recall of the surfaced,
previewed, opened, cited and agent docid sets (percent), and nDCG@10, R@100 and R@1000 of
the surfaced docids in first-seen order (pi-serini's gains: 2^rel - 1). Queries without a
positive judgement are left out of every mean (see --unjudged)."""


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive integer")
    return value


def _pattern(text: str) -> str:
    try:
        re.compile(text)
    except re.error as e:
        raise argparse.ArgumentTypeError(f"{text!r} is not a regular expression: {e}") from None
    return text


def add_agent_eval(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Registers ``agent-eval`` on the ``rserini`` subcommands."""
    p = sub.add_parser(
        "agent-eval",
        help="evaluate agent runs: coverage of five docid sets, nDCG and recall",
        description=DESCRIPTION,
    )
    p.add_argument("--runs", required=True, type=Path, help="folder of <query_id>.json records")
    p.add_argument("--qrels", required=True, type=Path, help="TREC or BEIR qrels (evidence)")
    p.add_argument(
        "--gold-qrels", type=Path, default=None, help="secondary qrels, reported second (gold)"
    )
    p.add_argument(
        "--queries",
        type=Path,
        default=None,
        help="fix the query set (queries.jsonl or qid<TAB>text); a query without a record "
        "scores 0 (default: the run's records)",
    )
    p.add_argument(
        "--threshold",
        type=_positive_int,
        default=1,
        help="least relevance of a positive document (default 1; 2 for MS MARCO)",
    )
    p.add_argument(
        "--gain",
        choices=GAINS,
        default="exponential",
        help="nDCG gain: exponential 2^rel - 1 (default, pi-serini) or linear rel (trec_eval)",
    )
    p.add_argument("--ndcg-cutoffs", type=_positive_int, nargs="+", default=[10], metavar="K")
    p.add_argument(
        "--recall-cutoffs", type=_positive_int, nargs="+", default=[100, 1000], metavar="K"
    )
    p.add_argument(
        "--unjudged",
        choices=("skip", "zero"),
        default="skip",
        help="queries without positives in the nDCG and recall means: leave out (skip, "
        "default, as trec_eval) or count 0 (zero, as pi-serini's eval_retrieval); the "
        "coverage recalls always leave them out",
    )
    p.add_argument(
        "--any-query-id",
        action="store_true",
        help="read every <query_id>.json, not only numeric ids (pi-serini reads <digits>.json)",
    )
    p.add_argument(
        "--citation-pattern",
        type=_pattern,
        default=NUMERIC_DOCID,
        help="regex of one cited docid, for records without cited_docids "
        f"(default {NUMERIC_DOCID}: digit runs)",
    )
    p.add_argument("--json", action="store_true", help="print everything as JSON")
    p.set_defaults(func=_cmd_agent_eval)


def _cmd_agent_eval(args: argparse.Namespace) -> int:
    from rserini._core import read_queries
    from rserini.formats import read_qrels

    records = read_runs(args.runs, numeric_only=not args.any_query_id)
    queries = [q for q, _ in read_queries(args.queries)] if args.queries else None
    blocks = [("evidence", args.qrels)]
    if args.gold_qrels is not None:
        blocks.append(("gold", args.gold_qrels))
    results = []
    for label, path in blocks:
        qrels = read_qrels(path)
        if not qrels:
            raise RseriniError(f"{path}: no judgement in the file")
        results.append(
            evaluate_records(
                records,
                qrels,
                label=f"{label} ({path})",
                queries=queries,
                threshold=args.threshold,
                gain=args.gain,
                ndcg_cutoffs=args.ndcg_cutoffs,
                recall_cutoffs=args.recall_cutoffs,
                unjudged=args.unjudged,
                citation_pattern=args.citation_pattern,
            )
        )
    if args.json:
        print(json.dumps([r.to_dict() for r in results], indent=1))
    else:
        print("\n".join(r.to_text() for r in results), end="")
    return 0
