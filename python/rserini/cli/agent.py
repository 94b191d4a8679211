"""``rserini agent-run`` (a scripted agent over a query set) and ``rserini agent-eval``
(the retrieval columns of agent runs)."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

from rserini.agent.llm.model import ModelSpec
from rserini.agent.runs.citations import NUMERIC_DOCID
from rserini.agent.runs.evaluation import RunEvaluation, evaluate_records
from rserini.agent.runs.llm_agent import DEFAULT_MAX_TURNS
from rserini.agent.runs.metrics import GAINS
from rserini.agent.runs.records import read_runs
from rserini.agent.tools.budget import DEFAULT_RATIO
from rserini.cli.bm25_args import add_k1_b
from rserini.cli.common import Subcommands
from rserini.exceptions import RseriniError

if TYPE_CHECKING:
    from rserini.agent.runs.answers import AnswerEvaluation

__all__ = ["add_commands"]

RUN_DESCRIPTION = """\
Run an agent over a query set with the agent tools on one index. With --model
PROVIDER:MODEL a language model is the agent, with Pi-Serini's plain_minimal prompt:
openai (Chat Completions; any compatible --base-url: vLLM, Ollama, llama.cpp server),
openai-responses (the Responses API) or anthropic (Messages); the key is --api-key or
OPENAI_API_KEY / ANTHROPIC_API_KEY (needs pip install "rserini[llm]"). Without --model a
scripted agent plays: it searches each question as it is, browses --pages more pages,
opens the --open best-ranked documents and answers citing them as [docid]. Each query gets
a fresh session (search ids restart at s1) and a pi-serini run record <query_id>.json in
--output, with its events in raw-events/<query_id>.jsonl. Queries already recorded in
--output are skipped, so a rerun resumes; a query whose endpoint kept failing gets no
record (the command then exits 1)."""

DESCRIPTION = """\
Evaluate a folder of per-query agent run records (<query_id>.json, as `rserini agent-run`
or pi-serini writes them) against qrels: macro and micro recall of the surfaced,
previewed, opened, cited and agent docid sets (percent), and nDCG@10, R@100 and R@1000 of
the surfaced docids in first-seen order (pi-serini's gains: 2^rel - 1). Queries without a
positive judgement are left out of every mean (see --unjudged). With --judge-model an LLM
judge grades each completed answer with Pi-Serini's prompt (against --answers when given,
else reference-free): accuracy (incomplete runs count as wrong), RMS calibration error
(bins of 100, at least 100 verdicts, confidence 100 when the answer gives none) and
citation precision and recall; verdicts are cached in --judge-cache."""


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
    add_model_args(p, "the agent's model")
    p.add_argument("--concurrency", type=int, default=1, help="queries run at once (default 1)")
    p.add_argument(
        "--max-turns",
        type=int,
        default=DEFAULT_MAX_TURNS,
        help=f"assistant turns before a run without an answer fails (default {DEFAULT_MAX_TURNS})",
    )
    p.add_argument(
        "--prices",
        type=float,
        nargs=2,
        default=(0.0, 0.0),
        metavar=("INPUT", "OUTPUT"),
        help="USD per million input and output tokens, for the records' cost (default 0 0)",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress or summary")
    p.set_defaults(func=_cmd_agent_run)


def add_model_args(p: argparse.ArgumentParser, what: str, prefix: str = "") -> None:
    """``--[prefix]model``, ``base-url``, ``api-key``, ``max-output-tokens``,
    ``temperature`` and ``max-retries``."""
    p.add_argument(
        f"--{prefix}model",
        default=None,
        metavar="PROVIDER:MODEL",
        help=f"{what}: openai:M, openai-responses:M or anthropic:M",
    )
    p.add_argument(
        f"--{prefix}base-url",
        default=None,
        metavar="URL",
        help="the endpoint (default: $OPENAI_BASE_URL / $ANTHROPIC_BASE_URL, else the provider's)",
    )
    p.add_argument(
        f"--{prefix}api-key",
        default=None,
        help="API key (default: $OPENAI_API_KEY / $ANTHROPIC_API_KEY)",
    )
    p.add_argument(
        f"--{prefix}max-output-tokens", type=int, default=None, help="output cap of each turn"
    )
    p.add_argument(f"--{prefix}temperature", type=float, default=None, help="sampling temperature")
    p.add_argument(
        f"--{prefix}max-retries",
        type=int,
        default=4,
        help="retries on rate limits, overload and dropped connections (default 4)",
    )


def model_spec(args: argparse.Namespace, prefix: str = "") -> ModelSpec | None:
    """The :class:`ModelSpec` the ``add_model_args`` flags give, or ``None`` without one."""
    prefix = prefix.replace("-", "_")
    name = getattr(args, f"{prefix}model")
    if name is None:
        return None
    return ModelSpec.parse(
        name,
        base_url=getattr(args, f"{prefix}base_url"),
        api_key=getattr(args, f"{prefix}api_key"),
        max_output_tokens=getattr(args, f"{prefix}max_output_tokens"),
        temperature=getattr(args, f"{prefix}temperature"),
    )


def _cmd_agent_run(args: argparse.Namespace) -> int:
    import sys
    import time

    from rserini._core import Index, read_queries
    from rserini.agent.runs.llm_agent import LLMAgent
    from rserini.agent.runs.runner import Agent, run_queries
    from rserini.agent.runs.scripted import ScriptedAgent
    from rserini.agent.tools.options import ToolOptions

    queries = read_queries(args.queries)
    if not queries:
        raise RseriniError(f"{args.queries}: no query in the file")
    if args.concurrency < 1:
        raise RseriniError(f"--concurrency must be >= 1 (got {args.concurrency})")
    spec = model_spec(args)
    agent: Agent
    if spec is not None:
        agent = LLMAgent(
            spec,
            args.citation_pattern,
            max_turns=args.max_turns,
            max_retries=args.max_retries,
            prices=tuple(args.prices),
        )
    else:
        try:
            agent = ScriptedAgent(args.pages, args.open_top, args.citation_pattern)
        except ValueError as e:
            raise RseriniError(str(e)) from None
    index = Index.load(args.index)
    started = time.perf_counter()
    interactive = not args.quiet and sys.stderr.isatty()

    def progress(done: int, total: int) -> None:
        if interactive:
            width = 30
            bar = "#" * (width * done // total)
            print(
                f"\ragent-run [{bar:<{width}}] {done}/{total} queries "
                f"({time.perf_counter() - started:.0f}s)",
                end="",
                file=sys.stderr,
                flush=True,
            )

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
            concurrency=args.concurrency,
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
    for qid, error in summary.errors.items():
        print(f"agent-run: query {qid} not recorded: {error}", file=sys.stderr)
    if summary.errors:
        print(
            f"agent-run: {len(summary.errors)} queries failed; run the same command again "
            "to retry them",
            file=sys.stderr,
        )
        return 1
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
    add_model_args(p, "the judge's model (default: no judging)", prefix="judge-")
    p.add_argument(
        "--answers",
        type=Path,
        default=None,
        help="gold answers: JSONL with query_id and answer (and query), or qid<TAB>answer",
    )
    p.add_argument(
        "--judge-cache",
        type=Path,
        default=None,
        help="folder of cached verdicts (default: <runs>/judgments)",
    )
    p.add_argument(
        "--judge-concurrency", type=int, default=1, help="verdicts asked at once (default 1)"
    )
    p.add_argument(
        "--judge-timeout",
        type=float,
        default=180.0,
        help="seconds for one verdict, retries included (default 180)",
    )
    p.add_argument("--json", action="store_true", help="print everything as JSON")
    p.set_defaults(func=_cmd_agent_eval)


def _read_answers(path: Path) -> tuple[dict[str, str], dict[str, str]]:
    """``({qid: answer}, {qid: question})`` from JSONL or ``qid<TAB>answer`` lines."""
    answers: dict[str, str] = {}
    questions: dict[str, str] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        if line.lstrip().startswith("{"):
            try:
                row = json.loads(line)
                qid, answer = str(row["query_id"]), str(row["answer"])
            except (ValueError, KeyError, TypeError) as e:
                raise RseriniError(
                    f"{path}:{n}: need a JSON object with query_id and answer ({e})"
                ) from None
            if isinstance(row.get("query"), str):
                questions[qid] = row["query"]
        else:
            qid, tab, answer = line.partition("\t")
            if not tab:
                raise RseriniError(f"{path}:{n}: expected qid<TAB>answer")
        answers[qid.strip()] = answer.strip()
    return answers, questions


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
    judged = _judge_answers(args, records, read_qrels(args.qrels), queries)
    if args.json:
        rows = [r.to_dict() for r in results]
        if judged is not None:
            rows.append({"label": "answers", **judged.to_dict()})
        print(json.dumps(rows, indent=1))
    else:
        texts = [r.to_text() for r in results]
        if judged is not None:
            texts += [judged.to_text(), _table_one(judged, results[0])]
        print("\n".join(texts), end="")
    return 0


def _judge_answers(
    args: argparse.Namespace,
    records: dict[str, dict[str, object]],
    qrels: dict[str, dict[str, int]],
    queries: list[str] | None,
) -> AnswerEvaluation | None:
    import sys

    from rserini.agent.runs.answers import evaluate_answers
    from rserini.agent.runs.judge import Judge

    spec = model_spec(args, "judge-")
    if args.judge_concurrency < 1:
        raise RseriniError(f"--judge-concurrency must be >= 1 (got {args.judge_concurrency})")
    if spec is None:
        if args.answers is not None:
            raise RseriniError("--answers needs --judge-model")
        return None
    answers, questions = _read_answers(args.answers) if args.answers else ({}, {})
    judge = Judge(
        spec,
        cache_dir=args.judge_cache or args.runs / "judgments",
        timeout_seconds=args.judge_timeout,
        max_retries=args.judge_max_retries,
    )
    interactive = sys.stderr.isatty()

    def progress(done: int, total: int) -> None:
        if interactive:
            print(f"\ragent-eval: judged {done}/{total}", end="", file=sys.stderr, flush=True)

    judged = evaluate_answers(
        records,
        qrels,
        judge,
        queries=queries,
        questions=questions,
        answers=answers,
        threshold=args.threshold,
        citation_pattern=args.citation_pattern,
        progress=progress,
        concurrency=args.judge_concurrency,
    )
    if interactive:
        print(file=sys.stderr)
    failed = sum(1 for row in judged.per_query.values() if "error" in row.get("judgment", {}))
    if failed:
        print(
            f"agent-eval: {failed} verdicts failed (counted wrong, not cached: run again "
            "to retry them)",
            file=sys.stderr,
        )
    return judged


def _table_one(judged: AnswerEvaluation, retrieval: RunEvaluation) -> str:
    """The paper's Table 1 columns side by side (recalls: macro %, first qrels)."""

    def pct(value: float | None) -> str:
        return "-" if value is None else f"{100 * value:.2f}"

    calibration = "-" if judged.calibration is None else f"{judged.calibration:.2f}"
    cells = [
        ("Accuracy", pct(judged.accuracy)),
        ("Calib. error", calibration),
        ("Surfaced", pct(retrieval.macro["surfaced"])),
        ("Previewed", pct(retrieval.macro["previewed"])),
        ("Behavior", pct(retrieval.macro["agent"])),
        ("Cit. P", pct(judged.citation_precision)),
        ("Cit. R", pct(judged.citation_recall)),
    ]
    widths = [max(len(h), len(v)) for h, v in cells]
    head = "  ".join(h.rjust(w) for (h, _), w in zip(cells, widths, strict=True))
    row = "  ".join(v.rjust(w) for (_, v), w in zip(cells, widths, strict=True))
    return f"table 1 ({retrieval.label}, macro %)\n{head}\n{row}\n"
