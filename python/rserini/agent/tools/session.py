"""One agent run over an :class:`rserini.Index`: pi-search's tools with their state.

A :class:`SearchSession` holds what pi-search keeps per process: the ranking cache
(``s1``, ``s2``, ...), the call sequence that numbers spill files, the spill folder, the
time budget and the trajectory. Sessions are cheap; many can share one ``Index`` (its
searches and reads release the GIL), one per concurrent run. One session's calls are
serialized.

Event contract
--------------
Every call appends one pi-style event to :attr:`SearchSession.events`::

    {"type": "tool_execution_end",
     "toolCallId": str,                 # the caller's id, else "call_<n>"
     "toolName": str,
     "args": dict,                      # the arguments as received ({} if not an object)
     "result": {"content": [{"type": "text", "text": str}],
                "details": dict},       # as below; {} for an error
     "isError": bool}

``details`` are pi-search's, key for key:

- ``search``: ``searchId, rawQuery, queryMode ("plain"), k (1000), totalCached,
  returnedRankStart, returnedRankEnd, nextOffset?, retrievedDocids`` (the *whole* cached
  ranking), ``previewedDocids`` (the page shown), ``timingMs?`` (``{searchRpcMs}``),
  ``truncation?, fullOutputPath?``;
- ``read_search_results``: ``searchId, rawQuery, queryMode, totalCached, offset, limit,
  returnedRankStart, returnedRankEnd, nextOffset?, retrievedDocids`` (the page),
  ``previewedDocids`` (the page), ``truncation?, fullOutputPath?``;
- ``read_document``: ``docid, offset, limit, totalLines, returnedLineStart,
  returnedLineEnd, truncated`` (more lines remain), ``nextOffset?, timingMs?``
  (``{readDocumentRpcMs}``), ``outputTruncation?, fullOutputPath?``;
- ``find_in_document`` (when enabled): ``docid, query, limit, totalLines, passages``
  (``[{lineStart, lineEnd, score}]``), ``nextOffset?`` (the best passage's first line),
  ``timingMs?`` (``{findMs}``), ``outputTruncation?, fullOutputPath?``.

Keys marked ``?`` are absent, not null, when they do not apply; ``truncation`` is pi's
``TruncationResult`` (see :mod:`~rserini.agent.tools.truncation`).
"""

from __future__ import annotations

import itertools
import math
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from rserini._core import DEFAULT_B, DEFAULT_K1, Bm25
from rserini.agent.tools import messages
from rserini.agent.tools.budget import TimeBudget
from rserini.agent.tools.cache import CachedSearch, SearchCache
from rserini.agent.tools.excerpt import build_preview, clue_tokens, document_title
from rserini.agent.tools.java_rules import round3_all
from rserini.agent.tools.jsformat import js_json, js_string_literal, js_trim
from rserini.agent.tools.lines import read_chunk, split_lines
from rserini.agent.tools.options import ToolOptions
from rserini.agent.tools.pages import (
    format_document_chunk,
    format_search_page,
    hit_line_spans,
    search_page,
)
from rserini.agent.tools.passages import PassageScorer, best_excerpt
from rserini.agent.tools.results import ToolResult
from rserini.agent.tools.schemas import ToolSpec, tool_specs
from rserini.agent.tools.spill import SpillDir, read_spill_name, search_spill_name
from rserini.agent.tools.tool_index import ToolIndex
from rserini.agent.tools.truncation import Truncation, truncate_head
from rserini.agent.tools.validation import ArgumentsError, validate_arguments

if TYPE_CHECKING:
    from rserini._core import Index

__all__ = [
    "SEARCH_K",
    "SearchSession",
    "normalize_positive_integer",
]

SEARCH_K = 1000
"""Hits fetched and cached per search."""
FIRST_PAGE_LIMIT = 5
BROWSE_LIMIT = 10
READ_LIMIT = 200
FIND_LIMIT = 3
FIND_WINDOW_LINES = 5
FIND_LINE_CHARS = 400
EXCERPT_CHARS = 220
SEARCH_SPILL_HINT = "Use read_document(docid) to inspect a document in paginated chunks."
READ_SPILL_HINT = "Use a smaller limit if you want a narrower chunk from this document."
SPILLS_KEPT = 32
"""Cut outputs readable as ``spill:<n>`` at once, with ``spill_paging`` (oldest dropped)."""


class ToolError(Exception):
    """A failed call; ``str()`` is the model-visible text."""


def normalize_positive_integer(value: object, fallback: int) -> int:
    """pi-search's rule: a finite number becomes ``max(1, floor(value))``, anything else
    the fallback. No upper cap. Numbers are JavaScript's doubles: an integer past 2**53
    is rounded to one, and one past the double range is infinite (the fallback)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return fallback
    if isinstance(value, int) and abs(value) <= 2**53:
        return max(1, value)
    try:
        number = float(value)
    except OverflowError:
        return fallback
    return max(1, math.floor(number)) if math.isfinite(number) else fallback


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 3)


class SearchSession:
    """One agent run: pi-search's tools over ``index`` with BM25 ``k1`` and ``b``.

    Parameters
    ----------
    index
        A shared index built with a document store.
    k1, b
        BM25 parameters of every search (pi-serini's benchmark default is 0.9 / 0.4; its
        recommended setting for long web documents is 25 / 1).
    options
        The behaviour switches; the default is pi-search's behaviour.
    budget
        The time budget; by default one from ``TIMEOUT_SECONDS`` (disabled when unset).
    spill_dir
        Where truncated outputs are saved in full; by default a temporary folder removed
        when the session closes.
    max_events
        Keep only the last ``max_events`` events (a long-lived session); ``None`` (default)
        keeps all of them, as an agent run's record needs.

    Raises
    ------
    ValueError
        If the index keeps no documents (built with ``store=False``), or ``k1``/``b`` are
        out of range.
    """

    def __init__(
        self,
        index: Index,
        *,
        k1: float = DEFAULT_K1,
        b: float = DEFAULT_B,
        options: ToolOptions | None = None,
        budget: TimeBudget | None = None,
        spill_dir: str | Path | None = None,
        max_events: int | None = None,
    ) -> None:
        self.reader = ToolIndex(index, Bm25(k1, b))
        if max_events is not None and max_events < 0:
            raise ValueError(f"max_events must be >= 0 (got {max_events})")
        self.max_events = max_events
        self.index = index
        self.k1 = k1
        self.b = b
        self.options = options or ToolOptions()
        self.budget = budget if budget is not None else TimeBudget()
        self.cache = SearchCache(self.options.cache_size, self.options.cache_policy)
        self.spill = SpillDir(spill_dir)
        self.events: list[dict[str, object]] = []
        self._specs = {s.name: s for s in tool_specs(self.options)}
        self._handlers: dict[str, Callable[[dict[str, object]], ToolResult]] = {
            "search": self._search,
            "read_search_results": self._read_search_results,
            "read_document": self._read_document,
            "find_in_document": self._find_in_document,
        }
        self._sequence = 0
        self._spilled: dict[str, str] = {}  # spill:<n> -> the full output (spill_paging)
        self._call_ids = itertools.count(1)
        self._lock = threading.Lock()

    # --- the public surface --------------------------------------------------------------

    @property
    def tools(self) -> list[ToolSpec]:
        """The tools this session offers, in order."""
        return list(self._specs.values())

    def call(self, name: str, arguments: object, call_id: str | None = None) -> ToolResult:
        """Runs one tool call as the agent host would: unknown tool, schema validation,
        time-budget block, then the tool. Never raises for bad model input; the result
        carries the error text. Appends one event to :attr:`events`."""
        with self._lock:
            result = self._run(name, arguments)
            self.events.append(
                {
                    "type": "tool_execution_end",
                    "toolCallId": call_id
                    if call_id is not None
                    else f"call_{next(self._call_ids)}",
                    "toolName": name,
                    "args": dict(arguments) if isinstance(arguments, Mapping) else {},
                    "result": result.as_pi(),
                    "isError": result.is_error,
                }
            )
            if self.max_events is not None and len(self.events) > self.max_events:
                del self.events[: len(self.events) - self.max_events]
            return result

    def search(self, reason: str, query: str) -> ToolResult:
        """``search(reason, query)``: ranks 1-5 of a new cached 1000-hit ranking."""
        return self.call("search", {"reason": reason, "query": query})

    def read_search_results(
        self,
        reason: str,
        search_id: str,
        offset: float | None = None,
        limit: float | None = None,
    ) -> ToolResult:
        """``read_search_results(reason, search_id, offset=6, limit=10)``: a page of a
        cached ranking."""
        return self.call(
            "read_search_results",
            _optional(reason=reason, search_id=search_id, offset=offset, limit=limit),
        )

    def read_document(
        self,
        reason: str,
        docid: str,
        offset: float | None = None,
        limit: float | None = None,
    ) -> ToolResult:
        """``read_document(reason, docid, offset=1, limit=200)``: a chunk of lines."""
        return self.call(
            "read_document", _optional(reason=reason, docid=docid, offset=offset, limit=limit)
        )

    def find_in_document(
        self, reason: str, docid: str, query: str, limit: float | None = None
    ) -> ToolResult:
        """``find_in_document(reason, docid, query, limit=3)`` (when enabled): the
        best-matching runs of lines, with line numbers."""
        return self.call(
            "find_in_document", _optional(reason=reason, docid=docid, query=query, limit=limit)
        )

    def take_steer(self) -> str | None:
        """The submit-now steer, once, after the budget's threshold (for the agent loop)."""
        return self.budget.take_steer()

    @property
    def timed_out(self) -> bool:
        """Whether the budget is spent (the run's status is then ``timeout``)."""
        return self.budget.timed_out

    def close(self) -> None:
        """Removes the temporary spill folder."""
        self.spill.cleanup()

    def __enter__(self) -> SearchSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- dispatch ------------------------------------------------------------------------

    def _run(self, name: str, arguments: object) -> ToolResult:
        spec = self._specs.get(name)
        if spec is None:
            return ToolResult(messages.unknown_tool(name), is_error=True)
        try:
            args = validate_arguments(spec, arguments)
        except ArgumentsError as e:
            return ToolResult(str(e), is_error=True)
        if self.budget.blocked:
            return ToolResult(messages.BLOCK_REASON, is_error=True)
        try:
            return self._handlers[name](args)
        except ToolError as e:
            return ToolResult(str(e), is_error=True)

    def _next_sequence(self) -> int:
        self._sequence += 1
        return self._sequence

    # --- the tools -----------------------------------------------------------------------

    def _search(self, args: dict[str, object]) -> ToolResult:
        raw_query = js_trim(str(args["query"]))
        if not raw_query:
            raise ToolError(messages.empty_query())
        start = time.perf_counter()
        # A query of Python-only whitespace (\x1c..\x1f) has no terms: no hits, as Lucene.
        pairs = self.reader.search(raw_query, SEARCH_K)
        timing = {"searchRpcMs": _ms(start)} if self.options.record_timings else None
        docids, scores = (
            (list(column) for column in zip(*pairs, strict=True)) if pairs else ([], [])
        )
        entry = self.cache.add(raw_query, docids, round3_all(scores))
        page = search_page(entry, 1, FIRST_PAGE_LIMIT, self._previewer(entry), timing)
        text, truncation, shown = self._spill_search(page, entry, self._next_sequence())
        page_docids = [hit["docid"] for hit in page["results"]]  # type: ignore[attr-defined]
        details: dict[str, object] = {
            "searchId": entry.search_id,
            "rawQuery": raw_query,
            "queryMode": entry.query_mode,
            "k": SEARCH_K,
            "totalCached": len(entry),
            "returnedRankStart": page["returnedRankStart"],
            "returnedRankEnd": page["returnedRankEnd"],
            **_optional(nextOffset=page.get("nextOffset")),
            "retrievedDocids": list(entry.docids),
            "previewedDocids": page_docids[:shown],
            **_optional(timingMs=timing),
            **truncation,
        }
        return ToolResult(text, details)

    def _read_search_results(self, args: dict[str, object]) -> ToolResult:
        offset = normalize_positive_integer(args.get("offset"), FIRST_PAGE_LIMIT + 1)
        limit = normalize_positive_integer(args.get("limit"), BROWSE_LIMIT)
        search_id = str(args["search_id"])
        entry = self.cache.get(search_id)
        if entry is None:
            if self.cache.policy == "lru" and self.cache.was_evicted(search_id):
                raise ToolError(messages.evicted_search_id(search_id, self.cache.capacity))
            raise ToolError(messages.unknown_search_id(search_id))
        page = search_page(entry, offset, limit, self._previewer(entry))
        text, truncation, shown = self._spill_search(page, entry, self._next_sequence())
        page_docids = [hit["docid"] for hit in page["results"]]  # type: ignore[attr-defined]
        details: dict[str, object] = {
            "searchId": entry.search_id,
            "rawQuery": entry.raw_query,
            "queryMode": entry.query_mode,
            "totalCached": len(entry),
            "offset": offset,
            "limit": limit,
            "returnedRankStart": page["returnedRankStart"],
            "returnedRankEnd": page["returnedRankEnd"],
            **_optional(nextOffset=page.get("nextOffset")),
            "retrievedDocids": page_docids,
            "previewedDocids": page_docids[:shown],
            **truncation,
        }
        return ToolResult(text, details)

    def _read_document(self, args: dict[str, object]) -> ToolResult:
        offset = normalize_positive_integer(args.get("offset"), 1)
        limit = normalize_positive_integer(args.get("limit"), READ_LIMIT)
        docid = str(args["docid"])
        start = time.perf_counter()
        contents = self._contents("read_document", docid)
        chunk = read_chunk(split_lines(contents), offset, limit)
        timing = {"readDocumentRpcMs": _ms(start)} if self.options.record_timings else None
        text = format_document_chunk(docid, chunk)
        seq = self._next_sequence()

        def hint(cut: Truncation) -> str:
            resume = chunk.next_offset if chunk.truncated else None
            if self.options.continue_after_cut:
                # The chunk's lines start after the header and a blank line; a line too
                # long to show at all is the only one skipped.
                shown = max(1, cut.output_lines - 2)
                if chunk.returned_line_start + shown <= chunk.returned_line_end:
                    resume = chunk.returned_line_start + shown
            if resume:
                return messages.read_document_hint(docid, resume, chunk.limit)
            return READ_SPILL_HINT

        name = read_spill_name(seq, docid, chunk.returned_line_start, chunk.returned_line_end)
        text, truncation = self._spill(text, "read", name, hint, "outputTruncation")
        details: dict[str, object] = {
            "docid": docid,
            "offset": offset,
            "limit": limit,
            "totalLines": chunk.total_lines,
            "returnedLineStart": chunk.returned_line_start,
            "returnedLineEnd": chunk.returned_line_end,
            "truncated": chunk.truncated,
            **_optional(nextOffset=chunk.next_offset),
            **_optional(timingMs=timing),
            **truncation,
        }
        return ToolResult(text, details)

    def _find_in_document(self, args: dict[str, object]) -> ToolResult:
        limit = normalize_positive_integer(args.get("limit"), FIND_LIMIT)
        docid = str(args["docid"])
        query = js_trim(str(args["query"]))
        if not query:
            raise ToolError("Invalid find_in_document arguments: query must be a non-empty string.")
        start = time.perf_counter()
        contents = self._contents("find_in_document", docid)
        lines = split_lines(contents)
        scorer = PassageScorer(self.index, query)
        found = scorer.best(lines, FIND_WINDOW_LINES, limit)
        timing = {"findMs": _ms(start)} if self.options.record_timings else None
        quoted = js_string_literal(query)
        total = len(lines)
        if not found:
            text = (
                f"[docid={docid}: no lines match {quoted} among {total} lines]\n\n"
                "Use read_document(docid) to read the document from the start."
            )
        else:
            parts = [
                f"[docid={docid}: {len(found)} passage{'s' if len(found) > 1 else ''} "
                f"matching {quoted}, best first, among {total} lines]"
            ]
            for p in found:
                shown = [
                    f"{n + 1}: {self._line_view(scorer, lines[n])}" for n in range(p.start, p.end)
                ]
                parts.append(
                    f"\nlines {p.start + 1}-{p.end} (score {p.score:.4f}):\n" + "\n".join(shown)
                )
            best = found[0].start + 1
            parts.append(
                f'\nContinue with read_document({{"docid":"{docid}","offset":{best},'
                f'"limit":{READ_LIMIT}}}) to read from the best passage.'
            )
            text = "\n".join(parts)
        seq = self._next_sequence()
        first, last = (found[0].start + 1, found[0].end) if found else (0, 0)
        name = read_spill_name(seq, f"{docid}-find", first, last)
        text, truncation = self._spill(text, "read", name, READ_SPILL_HINT, "outputTruncation")
        details: dict[str, object] = {
            "docid": docid,
            "query": query,
            "limit": limit,
            "totalLines": total,
            "passages": [
                {"lineStart": p.start + 1, "lineEnd": p.end, "score": round(p.score, 4)}
                for p in found
            ],
            **_optional(nextOffset=first or None),
            **_optional(timingMs=timing),
            **truncation,
        }
        return ToolResult(text, details)

    # --- helpers -------------------------------------------------------------------------

    def _contents(self, tool: str, docid: str) -> str:
        if not docid.strip(" \t\n\x0b\x0c\r\x1c\x1d\x1e\x1f"):
            raise ToolError(messages.empty_docid(tool))
        if docid in self._spilled:
            return self._spilled[docid]
        stored = self.reader.stored(docid)
        if stored is None:
            raise ToolError(messages.not_found(docid, tool))
        return stored[1]

    def _previewer(self, entry: CachedSearch) -> Callable[[int], dict[str, object] | None]:
        """The title and snippet fields of position ``i`` of ``entry`` (``None`` past the
        preview depth), rendered on first display and kept in the entry."""
        depth = self.options.preview_depth
        render = self._excerpt_renderer(entry.raw_query)

        def preview(i: int) -> dict[str, object] | None:
            if depth is not None and i >= depth:
                return None
            if i not in entry.previews:
                entry.previews[i] = self._preview(entry.docids[i], render)
            return entry.previews[i]

        return preview

    def _excerpt_renderer(self, query: str) -> Callable[[str, str | None], tuple[str, bool]]:
        """``(contents, title) -> (excerpt, truncated)`` for hits of ``query``."""
        if self.options.excerpt_mode == "passage":
            scorer = PassageScorer(self.index, query)
            return lambda contents, title: best_excerpt(scorer, contents, EXCERPT_CHARS)
        tokens = clue_tokens(query)

        def window(contents: str, title: str | None) -> tuple[str, bool]:
            p = build_preview(contents, title, query, EXCERPT_CHARS, tokens)
            return p.excerpt, p.excerpt_truncated

        return window

    def _preview(
        self, docid: str, render: Callable[[str, str | None], tuple[str, bool]]
    ) -> dict[str, object]:
        stored = self.reader.stored(docid)
        if stored is None:
            return {"title": None, "snippet": "[Document not found]", "snippetTruncated": False}
        fields, contents = stored
        title = document_title(fields)
        excerpt, truncated = render(contents, title)
        # The adapter maps an empty excerpt to "no snippet".
        return {"title": title, **_optional(snippet=excerpt or None), "snippetTruncated": truncated}

    def _line_view(self, scorer: PassageScorer, line: str) -> str:
        if len(line) <= FIND_LINE_CHARS:
            return line
        return best_excerpt(scorer, line, FIND_LINE_CHARS)[0]

    def _spill_search(
        self, page: dict[str, object], entry: CachedSearch, seq: int
    ) -> tuple[str, dict[str, object], int]:
        """:meth:`_spill` for a page of hits, and how many hits count as previewed: all
        (pi-search), or with ``previewed_shown_only`` those whose docid line was kept."""
        name = search_spill_name(seq, entry.search_id, page)
        text = format_search_page(page)
        results = page["results"]
        assert isinstance(results, list)
        shown = len(results)

        def hint(cut: Truncation) -> str:
            nonlocal shown
            spans = hit_line_spans(page)
            if self.options.previewed_shown_only:
                shown = sum(1 for first, _ in spans if first < cut.output_lines)
            whole = sum(1 for _, last in spans if last < cut.output_lines)
            if not self.options.continue_after_cut or whole == len(results):
                return SEARCH_SPILL_HINT
            # A hit too long to show at all is the only one skipped.
            j = max(whole, 1)
            resume = results[j]["rank"] if j < len(results) else page.get("nextOffset")
            if resume is None:
                return SEARCH_SPILL_HINT
            limit = page["limit"]
            assert isinstance(resume, int) and isinstance(limit, int)
            browse = messages.browse_cut_hint(entry.search_id, resume, limit)
            return f"{browse}\n{SEARCH_SPILL_HINT}"

        visible, truncation = self._spill(
            text, "search", name, hint, "truncation", lambda: js_json(page, 2)
        )
        return visible, truncation, shown

    def _spill(
        self,
        text: str,
        kind: str,
        name: str,
        hint: Callable[[Truncation], str] | str,
        key: str,
        full: Callable[[], str] | None = None,
    ) -> tuple[str, dict[str, object]]:
        """pi's head truncation; a cut output is saved in full (``text`` itself, or
        ``full()``, made only then) and the notice and hint (or ``hint(cut)``) replace the
        cut lines. With ``spill_paging`` the full output is also this session's document
        ``spill:<call sequence>``, and the notice names it. Returns the visible text and
        the truncation details."""
        cut = truncate_head(text)
        if not cut.truncated:
            return text, {}
        content = text if full is None else full()
        path = self.spill.write(kind, name, content)
        notice = cut.notice(path)
        if self.options.spill_paging:
            docid = f"spill:{self._sequence}"
            self._spilled[docid] = content
            while len(self._spilled) > SPILLS_KEPT:
                del self._spilled[next(iter(self._spilled))]
            notice = cut.notice(messages.spill_location(docid), saved="saved as document")
        shown_hint = hint(cut) if callable(hint) else hint
        visible = f"{cut.content}\n{notice}\n{shown_hint}"
        return visible, {key: cut.as_details(), "fullOutputPath": path}


def _optional(**values: object) -> dict[str, object]:
    return {k: v for k, v in values.items() if v is not None}
