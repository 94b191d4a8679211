"""One agent run folded into pi-serini's per-query record: docid sets, stats, result list.

Events are pi's (``SearchSession.events`` yields ``tool_execution_end`` ones; an agent
loop adds ``message_end`` for its assistant messages and ``agent_end`` when it stops).
The fold follows pi-serini's harness, quirks included:

- *surfaced*: every ``details.retrievedDocids`` of ``search`` and ``read_search_results``:
  the whole cached ranking (up to 1000) of every search, whether shown or not;
- *previewed*: every ``details.previewedDocids`` (the page shown), else the browse page,
  else a search's first 5;
- *opened*: the ``docid`` argument of every ``read_document`` (and ``find_in_document``)
  call, failed ones included;
- *cited*: the docids the final answer cites (:func:`extract_citations`);
- *agent*: opened, then cited.

All are deduplicated in first-seen order.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rserini.agent.runs.citations import NUMERIC_DOCID, extract_citations

__all__ = ["PI_SEARCH_TOOLS", "STATUSES", "Trajectory", "record_views", "tool_text"]

PI_SEARCH_TOOLS = ("search", "read_search_results", "read_document", "find_in_document")
"""The retrieval tools whose failures count as ``pi_search_failures``."""
STATUSES = ("completed", "timeout", "failed")
# Tools whose docid argument opens a document.
_OPENING_TOOLS = ("read_document", "find_in_document")
_FIRST_PAGE = 5
_STDERR_TAIL = 64000


def tool_text(result: Any) -> str:
    """The model-visible text of a tool result: its text parts joined by newlines."""
    if not isinstance(result, Mapping):
        return ""
    content = result.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = [
        p["text"]
        for p in content
        if isinstance(p, Mapping) and p.get("type") == "text" and isinstance(p.get("text"), str)
    ]
    return "\n".join(parts)


def _docids(value: Any) -> list[str] | None:
    """A details docid list as strings, or ``None`` when the field is absent or not a list."""
    if not isinstance(value, list):
        return None
    return [str(d) for d in value if isinstance(d, (str, int)) and not isinstance(d, bool)]


def _docid_argument(value: Any) -> str | None:
    """``String(args.docid)`` for a string or number, as the harness records it."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (str, int, float)):
        return str(value)
    return None


def _legacy_docids(text: str) -> list[str]:
    """``results[].docid`` of a JSON tool output (tools that give no details)."""
    try:
        data = json.loads(text)
    except (ValueError, TypeError):
        return []
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, list):
        return []
    return [str(r["docid"]) for r in results if isinstance(r, dict) and "docid" in r]


def _add(target: dict[str, None], docids: Iterable[str]) -> None:
    for docid in docids:
        target.setdefault(docid)


@dataclass
class Trajectory:
    """Folds the events of one agent run (see the module doc) and writes its run record.

    Parameters
    ----------
    query_id
        The query's id.
    query
        The question asked.
    citation_pattern
        Regular expression of one cited docid (default: ASCII digit runs, as pi-serini).
    """

    query_id: str
    query: str = ""
    citation_pattern: str = NUMERIC_DOCID
    tool_call_counts: dict[str, int] = field(default_factory=dict)
    result: list[dict[str, Any]] = field(default_factory=list)
    final_text: str = ""
    assistant_turns: int = 0
    saw_agent_end: bool = False
    failures: int = 0
    rewrites_after_browse: int = 0
    rewrites_without_browse: int = 0
    _surfaced: dict[str, None] = field(default_factory=dict, repr=False)
    _previewed: dict[str, None] = field(default_factory=dict, repr=False)
    _opened: dict[str, None] = field(default_factory=dict, repr=False)
    _started_args: dict[str, Any] = field(default_factory=dict, repr=False)
    _searches: int = field(default=0, repr=False)
    _browsed: bool = field(default=False, repr=False)

    def add(self, event: Mapping[str, Any]) -> None:
        """Folds one event; events of other types are ignored."""
        kind = event.get("type")
        if kind == "tool_execution_start":
            self._started_args[str(event.get("toolCallId"))] = event.get("args")
        elif kind == "tool_execution_end":
            self._tool_end(event)
        elif kind == "message_end":
            message = event.get("message")
            if isinstance(message, Mapping) and message.get("role") == "assistant":
                self.add_assistant_text(tool_text(message))
        elif kind == "agent_end":
            self.saw_agent_end = True

    def extend(self, events: Iterable[Mapping[str, Any]]) -> None:
        """Folds events in order."""
        for event in events:
            self.add(event)

    def add_assistant_text(self, text: str) -> None:
        """One assistant message: a turn, and the final answer if it has text."""
        self.assistant_turns += 1
        if text.strip():
            self.final_text = text.strip()

    def _tool_end(self, event: Mapping[str, Any]) -> None:
        name = str(event.get("toolName", ""))
        args = event.get("args")
        if not isinstance(args, Mapping):
            args = self._started_args.get(str(event.get("toolCallId")))
        if not isinstance(args, Mapping):
            args = {}
        result = event.get("result")
        details = result.get("details") if isinstance(result, Mapping) else None
        if not isinstance(details, Mapping):
            details = {}
        text = tool_text(result)
        self.tool_call_counts[name] = self.tool_call_counts.get(name, 0) + 1

        if name == "search":
            if self._searches:
                if self._browsed:
                    self.rewrites_after_browse += 1
                else:
                    self.rewrites_without_browse += 1
            self._searches += 1
            self._browsed = False
        elif name == "read_search_results":
            self._browsed = True

        if name in _OPENING_TOOLS:
            docid = _docid_argument(args.get("docid"))
            if docid is not None:
                self._opened.setdefault(docid)
        if "search" in name:
            retrieved = _docids(details.get("retrievedDocids"))
            if retrieved is None and name not in ("search", "read_search_results"):
                retrieved = _legacy_docids(text)
            _add(self._surfaced, retrieved or ())
            previewed = _docids(details.get("previewedDocids"))
            if previewed is None and retrieved is not None:
                if name == "read_search_results":
                    previewed = retrieved
                elif name == "search":
                    previewed = retrieved[:_FIRST_PAGE]
            _add(self._previewed, previewed or ())

        self.result.append(
            {"type": "tool_call", "tool_name": name, "arguments": dict(args), "output": text}
        )
        if event.get("isError") and name in PI_SEARCH_TOOLS:
            self.failures += 1
            entry: dict[str, Any] = {
                "type": "output_text",
                "tool_name": None,
                "arguments": None,
                "output": f"pi-search extension failure ({name}): {text}",
            }
            if isinstance(details.get("piSearchFailure"), Mapping):
                entry["details"] = {"piSearchFailure": dict(details["piSearchFailure"])}
            self.result.append(entry)

    @property
    def surfaced(self) -> list[str]:
        """Docids of every ranking the agent's searches cached, first seen first."""
        return list(self._surfaced)

    @property
    def previewed(self) -> list[str]:
        """Docids on the pages shown to the agent."""
        return list(self._previewed)

    @property
    def opened(self) -> list[str]:
        """Docids the agent asked to read."""
        return list(self._opened)

    @property
    def cited(self) -> list[str]:
        """Docids the final answer cites."""
        return extract_citations(self.final_text, self.citation_pattern)

    @property
    def agent(self) -> list[str]:
        """Opened, then cited: the behaviour set."""
        return list(dict.fromkeys([*self.opened, *self.cited]))

    def status(self, *, timed_out: bool = False, exited_cleanly: bool = True) -> str:
        """``timeout`` if the run was stopped at its budget; ``completed`` if it ended
        cleanly with a final answer; else ``failed``."""
        if timed_out:
            return "timeout"
        if exited_cleanly and self.saw_agent_end and self.final_text:
            return "completed"
        return "failed"

    def to_record(
        self,
        *,
        elapsed_seconds: float,
        timed_out: bool = False,
        exited_cleanly: bool = True,
        stderr: str = "",
        metadata: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The per-query run record (pi-serini's ``runs/<run>/<query_id>.json``).

        Parameters
        ----------
        elapsed_seconds
            Wall time of the run.
        timed_out
            The run was stopped at its time budget (status ``timeout``).
        exited_cleanly
            The agent loop returned normally.
        stderr
            Diagnostics of a run that did not complete (its last 64,000 characters are
            appended as a last ``output_text`` entry, after the answer, as pi-serini does).
        metadata
            Extra ``metadata`` fields (benchmark, model, ...); ``query`` and
            ``prompt_variant`` are filled in.

        Returns
        -------
        dict
            The record, ready for ``json.dumps(record, indent=2)``.
        """
        status = self.status(timed_out=timed_out, exited_cleanly=exited_cleanly)
        calls = sum(self.tool_call_counts.values())
        result = list(self.result)
        if self.final_text:
            result.append(
                {
                    "type": "output_text",
                    "tool_name": None,
                    "arguments": None,
                    "output": self.final_text,
                }
            )
        if status != "completed" and stderr:
            result.append(
                {
                    "type": "output_text",
                    "tool_name": None,
                    "arguments": None,
                    "output": f"pi stderr:\n{stderr[-_STDERR_TAIL:]}",
                }
            )
        meta = {"query": self.query, "prompt_variant": "plain_minimal", **(metadata or {})}
        return {
            "metadata": meta,
            "query_id": self.query_id,
            "tool_call_counts": dict(self.tool_call_counts),
            "status": status,
            "completion_source": "assistant_text" if status == "completed" else None,
            "surfaced_docids": self.surfaced,
            "previewed_docids": self.previewed,
            "agent_docids": self.agent,
            "opened_docids": self.opened,
            "cited_docids": self.cited,
            "stats": {
                "elapsed_seconds": round(elapsed_seconds, 3),
                "assistant_turns": self.assistant_turns,
                "tool_calls_total": calls,
                "seconds_per_assistant_turn": _per(elapsed_seconds, self.assistant_turns),
                "seconds_per_tool_call": _per(elapsed_seconds, calls),
                "search_calls": self.tool_call_counts.get("search", 0),
                "read_search_results_calls": self.tool_call_counts.get("read_search_results", 0),
                "read_document_calls": self.tool_call_counts.get("read_document", 0),
                "search_rewrites_after_browse": self.rewrites_after_browse,
                "search_rewrites_without_browse": self.rewrites_without_browse,
                "pi_search_failures": self.failures,
                "timed_out": timed_out,
            },
            "result": result,
        }


def _per(seconds: float, count: int) -> float | None:
    return round(seconds / count, 3) if count else None


def record_views(
    record: Mapping[str, Any], citation_pattern: str = NUMERIC_DOCID
) -> dict[str, list[str]]:
    """The five docid sets of a run record, with pi-serini's readers' fallbacks.

    Surfaced is ``surfaced_docids``, else the legacy ``retrieved_docids``. Opened and cited
    are the record's arrays when non-empty, else derived from ``result`` (the
    ``read_document`` arguments; the citations of the last ``output_text`` entry). Agent
    is the record's array when non-empty, else opened then cited.
    """

    def listed(key: str) -> list[str]:
        value = record.get(key)
        return [str(d) for d in value] if isinstance(value, list) else []

    surfaced = listed("surfaced_docids") or listed("retrieved_docids")
    entries = [e for e in record.get("result") or [] if isinstance(e, Mapping)]
    opened = listed("opened_docids")
    if not opened:
        found = (
            _docid_argument(e["arguments"].get("docid"))
            for e in entries
            if e.get("type") == "tool_call"
            and e.get("tool_name") in _OPENING_TOOLS
            and isinstance(e.get("arguments"), Mapping)
        )
        opened = list(dict.fromkeys(d for d in found if d is not None))
    cited = listed("cited_docids")
    if not cited:
        answers = [e for e in entries if e.get("type") == "output_text"]
        last = answers[-1].get("output") if answers else None
        cited = extract_citations(last, citation_pattern) if isinstance(last, str) else []
    agent = listed("agent_docids") or list(dict.fromkeys([*opened, *cited]))
    return {
        "surfaced": list(dict.fromkeys(surfaced)),
        "previewed": list(dict.fromkeys(listed("previewed_docids"))),
        "opened": opened,
        "cited": cited,
        "agent": agent,
    }
