"""Recording the requests of the http and rpc servers as pi-serini run records.

These servers are pi-search's *backend*: the extension keeps the cache, pages and renders
the text, so the server sees only the requests. :class:`BackendRecorder` turns each into
the ``tool_execution_end`` event pi's harness would have logged for the tool behind it
and folds it into a conversation's record (:mod:`~rserini.agent.servers.conversations`):

- a search (``POST /search``, RPC ``search``) is a ``search`` call: *surfaced* gets every
  hit returned (pi-search caches them all), *previewed* the first five (its first page);
- a document read (``POST /read_document``, RPC ``read_document``) is a ``read_document``
  call: *opened* gets the docid, found or not (a missing one is a failed call, as in pi);
- a refused search or read is a failed call; anything else (``ping``,
  ``render_search_results``, the extension's preview fetch) is not a tool call.

Browsing (``read_search_results``) never reaches a backend, so its pages are not in
*previewed*; the tool outputs the model saw are not known either (entries have no text).

A request names its conversation with ``?conversation=KEY`` in the URL (pi-search's
``searchUrl`` and ``readDocumentUrl`` may carry it) or a ``conversation`` field in an RPC
command; requests without one share a conversation. A conversation ends after
``idle_reset`` seconds without a request (at its next request) or when the server stops.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rserini.agent.servers.conversations import Conversations

__all__ = ["FIRST_PAGE", "BackendRecorder"]

FIRST_PAGE = 5
"""Hits pi-search shows after a search (its ``previewedDocids``)."""


class BackendRecorder:
    """Records a server's search and read requests, per conversation, in ``record_dir``.

    Parameters
    ----------
    record_dir
        Where records (``<id>.json``) and raw events (``raw-events/<id>.jsonl``) go.
    transport
        ``http`` or ``rpc`` (the records' ``metadata.transport``).
    idle_reset
        Seconds without a request after which a conversation ends (``None``: never).
    """

    def __init__(self, record_dir: Path, transport: str, idle_reset: float | None = None) -> None:
        self.conversations = Conversations(
            None, record_dir=record_dir, idle_reset=idle_reset, transport=transport
        )
        self._ids = itertools.count(1)

    def search(self, key: str, arguments: Mapping[str, Any], docids: list[str]) -> None:
        """A search that returned ``docids``, best first."""
        details: dict[str, object] = {
            "retrievedDocids": docids,
            "previewedDocids": docids[:FIRST_PAGE],
        }
        self._note(key, "search", arguments, details, None)

    def read(self, key: str, arguments: Mapping[str, Any], found: bool) -> None:
        """A document read; a missing document is a failed call."""
        docid = arguments.get("docid")
        error = None if found else f"read_document failed: docid '{docid}' was not found."
        self._note(key, "read_document", arguments, {}, error)

    def refused(self, key: str, tool: str, arguments: Mapping[str, Any], error: str) -> None:
        """A search or read the server refused (``tool``: ``search`` or ``read_document``)."""
        self._note(key, tool, arguments, {}, error)

    def _note(
        self,
        key: str,
        tool: str,
        arguments: Mapping[str, Any],
        details: dict[str, object],
        error: str | None,
    ) -> None:
        content = [{"type": "text", "text": error}] if error is not None else []
        event: dict[str, object] = {
            "type": "tool_execution_end",
            "toolCallId": f"request-{next(self._ids)}",
            "toolName": tool,
            "args": dict(arguments),
            "result": {"content": content, "details": details},
            "isError": error is not None,
        }
        self.conversations.conversation(key).note([event])

    def close(self) -> None:
        """Ends every conversation, writing its record."""
        self.conversations.close()
