"""Every fixed model-visible text of the tools that is not a page: errors, the time-budget
steer and block reason. The strings are pi-search's (and its host's), word for word; the
ones marked *improvement* exist only behind a
:class:`~rserini.agent.tools.options.ToolOptions` flag.
"""

from __future__ import annotations

from rserini.agent.tools.jsformat import js_json, js_number

__all__ = [
    "BLOCK_REASON",
    "FINAL_ANSWER_FORMAT",
    "STEER",
    "browse_cut_hint",
    "empty_docid",
    "empty_query",
    "evicted_search_id",
    "not_found",
    "read_document_hint",
    "spill_location",
    "unknown_search_id",
    "unknown_tool",
    "validation_failed",
]

FINAL_ANSWER_FORMAT = (
    "Explanation: {your explanation for your final answer. Cite supporting docids inline in "
    "square brackets [] at the end of sentences when possible, for example [123].}",
    "Exact Answer: {your succinct, final answer}",
    "Confidence: {your confidence score between 0% and 100%}",
)
"""The three lines of the final answer format the citation and calibration parsers expect."""

STEER = "\n".join(
    (
        "Time budget is nearly exhausted.",
        "Further retrieval is now blocked to preserve time for submission.",
        "Stop using tools immediately and submit your best answer right now.",
        "Your final response must use exactly this format:",
        *FINAL_ANSWER_FORMAT,
    )
)
"""The user message handed to the agent loop once the time-budget threshold passes."""

BLOCK_REASON = (
    "Time budget is nearly exhausted. Do not use more retrieval tools; "
    "submit your final answer right now."
)
"""The error text of every retrieval tool call after the threshold."""


def empty_query() -> str:
    """``search`` with a query that trims to nothing."""
    return "Invalid search arguments: query must be a non-empty string."


def unknown_search_id(search_id: str) -> str:
    """A ``search_id`` never issued (or, under FIFO, evicted)."""
    return (
        f"Invalid read_search_results arguments: search_id '{search_id}' is unknown. "
        "Call search(...) first to create a result set."
    )


def evicted_search_id(search_id: str, capacity: int) -> str:
    """*Improvement*: a ``search_id`` that the LRU cache evicted."""
    return (
        f"Invalid read_search_results arguments: search_id '{search_id}' was evicted from the "
        f"cache, which keeps the {capacity} most recently used result sets. Call search(...) "
        "again to recreate it."
    )


def not_found(docid: str, tool: str = "read_document") -> str:
    """A docid the index does not hold."""
    return (
        f"{tool} failed: docid '{docid}' was not found. "
        "Choose a docid returned by search(...) or read_search_results(...)."
    )


def empty_docid(tool: str = "read_document") -> str:
    """A blank docid, as the Anserini server words it."""
    return f"{tool} requires a non-empty string docid"


def read_document_hint(docid: str, offset: int, limit: int) -> str:
    """The ready-to-copy call that continues a document after an output cut."""
    return (
        f'Continue with read_document({{"docid":"{docid}","offset":{js_number(offset)},'
        f'"limit":{js_number(limit)}}}) to keep reading this document.'
    )


def browse_cut_hint(search_id: str, offset: int, limit: int) -> str:
    """The ready-to-copy call that shows the hits an output cut left out of a page."""
    return (
        f'Use read_search_results({{"search_id":"{search_id}","offset":{js_number(offset)},'
        f'"limit":{js_number(limit)}}}) to see the hits the cut left out.'
    )


def spill_location(docid: str) -> str:
    """How a cut output can be read in full, with ``spill_paging`` (after "Full output
    saved as document")."""
    return f'{docid}; read it with read_document({{"docid":"{docid}","offset":1,"limit":200}})'


def unknown_tool(name: str) -> str:
    """A call of a tool the session does not offer (the agent host's text)."""
    return f"Tool {name} not found"


def validation_failed(tool: str, errors: list[str], arguments: object) -> str:
    """The agent host's schema-validation error: one ``  - <path>: <message>`` line per
    problem, then the arguments as received, pretty-printed."""
    listed = "\n".join(errors) or "Unknown validation error"
    return (
        f'Validation failed for tool "{tool}":\n{listed}\n\n'
        f"Received arguments:\n{js_json(arguments, 2)}"
    )
