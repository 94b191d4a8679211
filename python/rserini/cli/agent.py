"""``rserini agent-run`` (a scripted agent over a query set) and ``rserini agent-eval``
(the retrieval columns of agent runs)."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from rserini.agent.runs.citations import NUMERIC_DOCID
from rserini.agent.runs.evaluation import evaluate_records
from rserini.agent.runs.metrics import GAINS
from rserini.agent.runs.records import read_runs
from rserini.agent.tools.budget import DEFAULT_RATIO
from rserini.cli.bm25_args import add_k1_b
from rserini.cli.common import Subcommands
from rserini.exceptions import RseriniError

__all__ = ["add_commands"]

RUN_DESCRIPTION = """\
Run a scripted agent (no language model) over a query set with the agent tools on one
index: it searches each question as it is, browses --pages more pages of that ranking,
opens the --open best-ranked documents and answers citing them as [docid]. Each query gets
a fresh session (search ids restart at s1) and a pi-serini run record <query_id>.json in
--output, with its events in raw-events/<query_id>.jsonl. Queries already recorded in
--output are skipped."""

DESCRIPTION = """\
Evaluate a folder of per-query agent run records (<query_id>.json, as `rserini agent-run`
or pi-serini writes them) against qrels: macro and micro recall of the surfaced,
previewed, opened, cited and agent docid sets (percent), and nDCG@10, R@100 and R@1000 of
the surfaced docids in first-seen order (pi-serini's gains: 2^rel - 1). Queries without a
positive judgement are left out of every mean (see --unjudged)."""


def _add_citation_pattern(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument(
        "--citation-pattern",
        type=_pattern,
        default=NUMERIC_DOCID,
        help=f"{what} (default {NUMERIC_DOCID}: digit runs, as pi-serini)",
    )


def _pattern(text: str) -> str:
    try:
        re.compile(text)
    except re.error as e:
        raise argparse.ArgumentTypeError(f"{text!r} is not a regular expression: {e}") from None
    return text


def add_commands(sub: Subcommands) -> None:
    """Registers ``agent-run`` and ``agent-eval`` on the ``rserini`` subcommands."""
    _add_agent_run(sub)
    _add_agent_eval(sub)


def _add_agent_run(sub: Subcommands) -> None:
    p = sub.add_parser(
        "agent-run",
        help="run the scripted agent (no LLM) over a query set; one run record per query",
        description=RUN_DESCRIPTION,
    )
    p.add_argument("--index", required=True, type=Path, help="index folder (with documents)")
    p.add_argument("--queries", required=True, type=Path, help="queries.jsonl or qid<TAB>text")
    p.add_argument("--output", required=True, type=Path, help="run folder to write")
    add_k1_b(p)
    p.add_argument("--pages", type=int, default=2, help="pages browsed after the first (default 2)")
    p.add_argument(
        "--open", type=int, default=3, dest="open_top", help="top documents opened (default 3)"
    )
    _add_citation_pattern(p, "regex of one cited docid")
    p.add_argument(
        "--timeout-seconds",
        type=float,
        default=None,
        help="time budget per query (default: $TIMEOUT_SECONDS; none if unset)",
    )
    p.add_argument(
        "--steer-ratio",
        type=float,
        default=DEFAULT_RATIO,
        help=f"share of the budget after which tools are blocked (default {DEFAULT_RATIO})",
    )
    p.add_argument(
        "--improved",
        action="store_true",
        help="the tools' improvements (LRU cache, excerpts on every page, best passages)",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress or summary")
    p.set_defaults(func=_cmd_agent_run)


def _cmd_agent_run(args: argparse.Namespace) -> int:
    import sys
    import time

    from rserini._core import Index, read_queries
    from rserini.agent.runs.runner import run_queries
    from rserini.agent.runs.scripted import ScriptedAgent
    from rserini.agent.tools.options import ToolOptions

    queries = read_queries(args.queries)
    if not queries:
        raise RseriniError(f"{args.queries}: no query in the file")
    try:
        agent = ScriptedAgent(args.pages, args.open_top, args.citation_pattern)
    except ValueError as e:
        raise RseriniError(str(e)) from None
    index = Index.load(args.index)
    started = time.perf_counter()
    interactive = not args.quiet and sys.stderr.isatty()

    def progress(done: int, total: int) -> None:
        if interactive and (done % 50 == 0 or done == total):
            print(f"\ragent-run: {done}/{total} queries", end="", file=sys.stderr, flush=True)

    try:
        summary = run_queries(
            index,
            queries,
            args.output,
            agent=agent,
            k1=args.k1,
            b=args.b,
            options=ToolOptions.improved() if args.improved else None,
            timeout_seconds=args.timeout_seconds,
            steer_ratio=args.steer_ratio,
            setup={"indexPath": str(args.index), "queryFile": str(args.queries)},
            progress=progress,
        )
    except ValueError as e:  # an index without documents, k1 or b out of range
        raise RseriniError(str(e)) from None
    if interactive:
        print(file=sys.stderr)
    if not args.quiet:
        statuses = ", ".join(f"{n} {s}" for s, n in sorted(summary.statuses.items()))
        print(
            f"agent-run: {summary.ran} queries run ({statuses or 'none'}), {summary.skipped} "
            f"already done, in {time.perf_counter() - started:.1f}s -> {args.output}",
            file=sys.stderr,
        )
    return 0


def _add_agent_eval(sub: Subcommands) -> None:
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
        type=int,
        default=1,
        help="least relevance of a positive document (default 1; 2 for MS MARCO)",
    )
    p.add_argument(
        "--gain",
        choices=GAINS,
        default="exponential",
        help="nDCG gain: exponential 2^rel - 1 (default, pi-serini) or linear rel (trec_eval)",
    )
    p.add_argument("--ndcg-cutoffs", type=int, nargs="+", default=[10], metavar="K")
    p.add_argument("--recall-cutoffs", type=int, nargs="+", default=[100, 1000], metavar="K")
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
    _add_citation_pattern(p, "regex of one cited docid, for records without cited_docids")
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
