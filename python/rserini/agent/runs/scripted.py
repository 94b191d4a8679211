"""A scripted agent (no language model): a fixed use of the tools that exercises every part
of a run and gives a reproducible baseline for the metrics.

It searches the question as it is, browses ``pages`` pages of that ranking with
``read_search_results``, opens the ``open_top`` best-ranked documents with ``read_document``
and answers in pi-serini's final format, citing them as ``[docid]``. When the time budget's
steer arrives it stops using tools and answers at once, as the prompt asks a model to.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rserini.agent.runs.citations import NUMERIC_DOCID
from rserini.agent.runs.trajectory import Trajectory
from rserini.agent.tools.session import SearchSession

__all__ = ["ScriptedAgent"]


@dataclass(frozen=True)
class ScriptedAgent:
    """The script; :meth:`run` plays it on one session.

    Attributes
    ----------
    pages
        Pages browsed after the first (``read_search_results`` with its defaults, then
        each page's ``nextOffset``).
    open_top
        Best-ranked documents opened (one ``read_document`` each, offset 1, limit 200).
    citation_pattern
        Regular expression of a cited docid, for the trajectory's cited set (digit runs by
        default, as pi-serini; give one for non-numeric docids).
    """

    pages: int = 2
    open_top: int = 3
    citation_pattern: str = NUMERIC_DOCID

    def __post_init__(self) -> None:
        if self.pages < 0 or self.open_top < 0:
            raise ValueError("pages and open_top must be >= 0")

    def run(
        self,
        session: SearchSession,
        query_id: str,
        question: str,
        *,
        clock: Callable[[], float] = time.perf_counter,
        metadata: dict[str, Any] | None = None,
    ) -> tuple[dict[str, Any], list[dict[str, object]]]:
        """Answers ``question`` with ``session``'s tools.

        Returns
        -------
        tuple
            The per-query run record (see :class:`~rserini.agent.runs.trajectory.Trajectory`)
            and the run's events: the session's tool events, the assistant message and
            ``agent_end``.
        """
        started = clock()
        first_event = len(session.events)
        extra: list[dict[str, object]] = []
        steered = False

        def steer() -> bool:
            nonlocal steered
            message = session.take_steer()
            if message is not None:
                steered = True
                extra.append(_message("user", message))
            return steered

        ranking: list[str] = []
        result = session.search("Start with the question's own wording.", question)
        if not result.is_error:
            ranking = [str(d) for d in result.details.get("retrievedDocids", [])]  # type: ignore[attr-defined]
            search_id = str(result.details["searchId"])
            offset = result.details.get("nextOffset")
            for _ in range(self.pages):
                if offset is None or steer():
                    break
                page = session.read_search_results(
                    "Browse deeper in the same ranking before rewriting.",
                    search_id,
                    offset=offset if isinstance(offset, int) else None,
                )
                offset = None if page.is_error else page.details.get("nextOffset")
            for docid in ranking[: self.open_top]:
                if steer():
                    break
                session.read_document("Verify the candidate's text.", docid)
        cited = ranking[: self.open_top]
        answer = _final_answer(cited)
        events = [*session.events[first_event:], *extra, _message("assistant", answer)]
        events.append({"type": "agent_end"})
        trajectory = Trajectory(query_id, question, self.citation_pattern)
        trajectory.extend(events)
        record = trajectory.to_record(
            elapsed_seconds=clock() - started,
            timed_out=session.timed_out,
            metadata={"model": "rserini-scripted", **(metadata or {})},
        )
        return record, events


def _message(role: str, text: str) -> dict[str, object]:
    return {
        "type": "message_end",
        "message": {"role": role, "content": [{"type": "text", "text": text}]},
    }


def _final_answer(cited: list[str]) -> str:
    if cited:
        sources = " ".join(f"[{docid}]" for docid in cited)
        explanation = f"The best-ranked documents for the question support the answer {sources}."
    else:
        explanation = "No document was retrieved for the question."
    return f"Explanation: {explanation}\nExact Answer: see the cited documents\nConfidence: 0%"
