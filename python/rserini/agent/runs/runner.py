"""Runs an agent over a query set, one fresh session per query (as pi-serini starts one
process per query), writing pi-serini's run folder: ``<query_id>.json`` records,
``raw-events/<query_id>.jsonl`` and ``run_setup.json``. A query whose record exists is
skipped, so an interrupted run resumes."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rserini._core import DEFAULT_B, DEFAULT_K1
from rserini.agent.runs.records import record_path, write_record
from rserini.agent.runs.scripted import ScriptedAgent
from rserini.agent.tools.budget import DEFAULT_RATIO, TimeBudget
from rserini.agent.tools.options import ToolOptions
from rserini.agent.tools.session import SearchSession

if TYPE_CHECKING:
    from rserini._core import Index

__all__ = ["RunSummary", "run_queries"]


@dataclass(frozen=True)
class RunSummary:
    """What :func:`run_queries` did."""

    ran: int
    skipped: int
    statuses: dict[str, int]


def run_queries(
    index: Index,
    queries: Sequence[tuple[str, str]],
    output: Path,
    *,
    agent: ScriptedAgent | None = None,
    k1: float = DEFAULT_K1,
    b: float = DEFAULT_B,
    options: ToolOptions | None = None,
    timeout_seconds: float | None = None,
    steer_ratio: float = DEFAULT_RATIO,
    setup: dict[str, str] | None = None,
    progress: Callable[[int, int], None] | None = None,
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
                "model": "rserini-scripted",
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
    ran = skipped = 0
    statuses: dict[str, int] = {}
    for done, ((qid, question), path) in enumerate(zip(queries, paths, strict=True), start=1):
        if path.exists():
            skipped += 1
        else:
            budget = TimeBudget(timeout_seconds, ratio=steer_ratio)
            with SearchSession(index, k1=k1, b=b, options=options, budget=budget) as session:
                record, events = agent.run(
                    session, qid, question, metadata={"output_dir": str(output)}
                )
            with open(events_dir / f"{qid}.jsonl", "w", encoding="utf-8") as out:
                for event in events:
                    out.write(json.dumps(event, ensure_ascii=False) + "\n")
            write_record(output, record)
            statuses[record["status"]] = statuses.get(record["status"], 0) + 1
            ran += 1
        if progress is not None:
            progress(done, len(queries))
    return RunSummary(ran, skipped, statuses)
