"""Runs an agent over a query set, one fresh session per query (as pi-serini starts one
process per query), writing pi-serini's run folder: ``<query_id>.json`` records,
``raw-events/<query_id>.jsonl`` and ``run_setup.json``. A query whose record exists is
skipped, so an interrupted run resumes. Queries run ``concurrency`` at a time; a query
whose agent fails outright (:class:`~rserini.agent.runs.llm_agent.AgentRunError`: an
endpoint that keeps failing) gets no record and is listed in the summary, so a rerun
tries it again."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from rserini._core import DEFAULT_B, DEFAULT_K1
from rserini.agent.runs.llm_agent import AgentRunError
from rserini.agent.runs.records import record_path, write_record
from rserini.agent.runs.scripted import ScriptedAgent
from rserini.agent.tools.budget import DEFAULT_RATIO, TimeBudget
from rserini.agent.tools.options import ToolOptions
from rserini.agent.tools.session import SearchSession

if TYPE_CHECKING:
    from rserini._core import Index

__all__ = ["Agent", "RunSummary", "run_queries"]


class Agent(Protocol):
    """What :func:`run_queries` plays: :class:`ScriptedAgent` or
    :class:`~rserini.agent.runs.llm_agent.LLMAgent`."""

    def run(
        self,
        session: SearchSession,
        query_id: str,
        question: str,
        *,
        metadata: dict[str, Any] | None = None,
    ) -> tuple[dict[str, Any], list[dict[str, object]]]: ...


@dataclass(frozen=True)
class RunSummary:
    """What :func:`run_queries` did; ``errors`` maps the queries left without a record
    to the reason."""

    ran: int
    skipped: int
    statuses: dict[str, int]
    errors: dict[str, str] = field(default_factory=dict)


def run_queries(
    index: Index,
    queries: Sequence[tuple[str, str]],
    output: Path,
    *,
    agent: Agent | None = None,
    k1: float = DEFAULT_K1,
    b: float = DEFAULT_B,
    options: ToolOptions | None = None,
    timeout_seconds: float | None = None,
    steer_ratio: float = DEFAULT_RATIO,
    setup: dict[str, str] | None = None,
    progress: Callable[[int, int], None] | None = None,
    concurrency: int = 1,
) -> RunSummary:
    """Plays ``agent`` (default :class:`ScriptedAgent`) on every query.

    Parameters
    ----------
    index
        The shared index (with documents).
    queries
        ``(query_id, question)`` pairs; ids must be plain file names.
    output
        The run folder (created).
    k1, b
        BM25 parameters of every search.
    options
        Tool behaviour (default: pi-search's).
    timeout_seconds
        Time budget of each query (default: ``TIMEOUT_SECONDS``, none when unset).
    steer_ratio
        Share of the budget after which tools are blocked.
    setup
        Extra ``run_setup.json`` fields.
    progress
        Called with (done, total) after each query.
    concurrency
        Queries run at once (threads; each has its own session and budget).

    Raises
    ------
    RseriniError
        For a query id that cannot name a file (before anything runs).
    """
    agent = agent or ScriptedAgent()
    paths = [record_path(output, qid) for qid, _ in queries]  # checks every id first
    output.mkdir(parents=True, exist_ok=True)
    events_dir = output / "raw-events"
    events_dir.mkdir(exist_ok=True)
    (output / "run_setup.json").write_text(
        json.dumps(
            {
                "model": _model_name(agent),
                "totalQueries": str(len(queries)),
                "timeoutSeconds": "" if timeout_seconds is None else str(timeout_seconds),
                "bm25K1": str(k1),
                "bm25B": str(b),
                **(setup or {}),
            },
            indent=2,
        )
        + "\n",
        encoding="utf-8",
    )
    if concurrency < 1:
        raise ValueError(f"concurrency must be >= 1 (got {concurrency})")
    statuses: dict[str, int] = {}
    errors: dict[str, str] = {}
    lock = threading.Lock()
    todo = [q for q, path in zip(queries, paths, strict=True) if not path.exists()]
    skipped = len(queries) - len(todo)
    done = skipped
    if progress is not None and skipped:
        progress(done, len(queries))

    def one(query: tuple[str, str]) -> None:
        nonlocal done
        qid, question = query
        budget = TimeBudget(timeout_seconds, ratio=steer_ratio)
        try:
            with SearchSession(index, k1=k1, b=b, options=options, budget=budget) as session:
                record, events = agent.run(
                    session, qid, question, metadata={"output_dir": str(output)}
                )
        except AgentRunError as e:
            with lock:
                errors[qid] = str(e)
                done += 1
                if progress is not None:
                    progress(done, len(queries))
            return
        with open(events_dir / f"{qid}.jsonl", "w", encoding="utf-8") as out:
            for event in events:
                out.write(json.dumps(event, ensure_ascii=False) + "\n")
        write_record(output, record)
        with lock:
            statuses[record["status"]] = statuses.get(record["status"], 0) + 1
            done += 1
            if progress is not None:
                progress(done, len(queries))

    if concurrency == 1:
        for query in todo:
            one(query)
    else:
        with ThreadPoolExecutor(concurrency, thread_name_prefix="rserini-agent") as pool:
            list(pool.map(one, todo))
    ran = sum(statuses.values())
    return RunSummary(ran, skipped, statuses, dict(sorted(errors.items())))


def _model_name(agent: Agent) -> str:
    model = getattr(agent, "model", None)
    name = getattr(model, "name", None)
    return name if isinstance(name, str) else "rserini-scripted"
