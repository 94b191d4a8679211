"""``rserini serve rpc``: pi-serini's JSON-lines BM25 RPC, as its Java server speaks it.

One JSON object per line each way (UTF-8, ``\\n``; a trailing ``\\r`` is dropped, blank lines
are skipped). A request is ``{"id": ..., "type": "<command>", ...params}``; the answer
echoes the id::

    {"id":1,"type":"response","command":"search","success":true,"data":{...}}
    {"id":1,"type":"response","command":"search","success":false,"error":"<message>"}

Commands: ``ping``, ``search`` (``query``, ``query_mode`` ``"plain"``, ``k`` = 5,
``rerank_clues``), ``render_search_results`` (``docids``, ``snippet_max_chars`` = 220,
``inline_highlights`` = true, ``highlight_clues``) and ``read_document`` (``docid``,
``offset`` = 1, ``limit`` = 200), with the server's parameter rules and messages. Every
successful ``data`` carries ``timing_ms``. Differences from the Java server: there is no
Lucene query parser, so ``query_mode: "lucene"`` is an error; a line that is not UTF-8 is
refused (Java would decode it with replacement characters); a line that is not a JSON
object gets this module's message (Jackson's wording is not reproduced).

Over TCP the first stdout line is the readiness line ``{"type":"server_ready",...}``;
each connection is answered line by line. One selector loop reads and writes every
connection; commands run on a pool of ``threads`` workers, ``ping`` on the loop, so it is
never queued behind heavy commands; connections are capped and closed when idle
(:class:`ServerLimits`).
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from io import BufferedIOBase
from typing import IO, Any

from rserini.agent.servers.backend import IndexBackend
from rserini.agent.servers.backend_record import BackendRecorder
from rserini.agent.servers.connections import ServerLimits
from rserini.agent.servers.java_json import java_json
from rserini.agent.servers.request_json import (
    MAX_CLUES,
    MAX_RENDER_DOCIDS,
    MAX_REQUEST_BYTES,
    parse_request,
)
from rserini.agent.servers.selector_server import Connection, SelectorServer, Work
from rserini.agent.tools.excerpt import clue_tokens
from rserini.agent.tools.java_rules import java_blank, round3_all

__all__ = [
    "MAX_LINE_BYTES",
    "RpcHandler",
    "answer_stream",
    "serve_stdio",
    "serve_tcp",
    "tcp_server",
]

MAX_LINE_BYTES = MAX_REQUEST_BYTES
"""Longest request line read; a longer one is refused and skipped."""
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1
_TOOLS = ("search", "read_document")  # the commands that stand for pi's tool calls
_Binary = IO[bytes] | BufferedIOBase


def round3(value: float) -> float:
    """Java's ``Math.round(value * 1000.0) / 1000.0``."""
    return round3_all([value])[0]


class RpcError(Exception):
    """A command that fails; ``str()`` is the ``error`` of the response."""


def _require_string(value: object, message: str) -> str:
    if not isinstance(value, str) or java_blank(value):
        raise RpcError(message)
    return value


def _java_int(value: float) -> int:
    """Jackson's ``Number.intValue()``: integers keep their low 32 bits, doubles are cast
    as Java casts them (toward zero, saturating, NaN as 0)."""
    if isinstance(value, int):
        return (value - _INT_MIN) % 2**32 + _INT_MIN
    if math.isnan(value):
        return 0
    if math.isinf(value):
        return _INT_MAX if value > 0 else _INT_MIN
    return max(_INT_MIN, min(_INT_MAX, math.trunc(value)))


def _optional_int(value: object, default: int, message: str) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise RpcError(message)
    parsed = _java_int(value)
    if parsed <= 0:
        raise RpcError(message)
    return parsed


def _optional_bool(value: object, default: bool, message: str) -> bool:
    if value is None:
        return default
    if not isinstance(value, bool):
        raise RpcError(message)
    return value


class _Clue:
    def __init__(self, text: str, category: str, boost: float) -> None:
        self.text = text
        self.category = category
        self.boost = boost
        self.tokens = clue_tokens(text)

    def as_json(self) -> dict[str, object]:
        return {"text": self.text, "category": self.category, "boost": self.boost}


def _parse_clues(value: object) -> list[_Clue]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise RpcError("clues must be a JSON array")
    if len(value) > MAX_CLUES:
        raise RpcError(f"at most {MAX_CLUES} clues are accepted (got {len(value)})")
    clues = []
    for item in value:
        if not isinstance(item, dict):
            continue
        text = _require_string(item.get("text"), "clue text must be a non-empty string")
        category = item.get("category")
        if category not in ("required", "any"):
            category = "any"
        boost = item.get("boost")
        weight = 1.0
        if isinstance(boost, int | float) and not isinstance(boost, bool):
            try:
                weight = float(boost)
            except OverflowError:
                raise RpcError("clue boost must be a finite number") from None
        clues.append(_Clue(text, str(category), weight))
    return clues


def _rerank_bonus(haystack: str, clues: list[_Clue]) -> float:
    """The server's clue bonus: the clue's weight (0.75 required, 0.35 any) times its boost
    when all its tokens occur, half of it pro rata when some do."""
    lower = haystack.lower()
    bonus = 0.0
    for clue in clues:
        if not clue.tokens:
            continue
        matched = sum(1 for t in clue.tokens if t in lower)
        if matched == 0:
            continue
        weight = 0.75 if clue.category == "required" else 0.35
        if matched == len(clue.tokens):
            bonus += weight * clue.boost
        else:
            bonus += weight * clue.boost * (matched / len(clue.tokens)) * 0.5
    return bonus


class RpcHandler:
    """Answers request lines for one index (shared by every connection; thread-safe).

    Parameters
    ----------
    backend
        The index and its BM25 parameters.
    threads
        Commands run at once, at most.
    init_ms
        Start-up time reported in ``timing_ms.init``.
    clock
        Monotonic seconds (injectable so that tests get fixed timings).
    recorder
        Records searches and reads as run records (``--record``), per conversation (a
        command's ``conversation`` field).
    """

    def __init__(
        self,
        backend: IndexBackend,
        *,
        threads: int = 1,
        init_ms: float = 0.0,
        clock: Callable[[], float] = time.perf_counter,
        recorder: BackendRecorder | None = None,
    ) -> None:
        self.backend = backend
        self.recorder = recorder
        self.threads = threads
        self.init_ms = init_ms
        self.clock = clock
        self.started = clock()
        if threads < 1:
            raise ValueError(f"threads must be at least 1 (got {threads})")
        self._commands: dict[str, Callable[[Mapping[str, Any]], dict[str, object]]] = {
            "search": self._search,
            "render_search_results": self._render,
            "read_document": self._read_document,
            "ping": lambda _: {"ok": True},
        }

    def ready_line(self, host: str, port: int) -> str:
        """The TCP readiness line (without its newline)."""
        return java_json(
            {
                "type": "server_ready",
                "transport": "tcp",
                "host": host,
                "port": port,
                "bm25": {"k1": round3(self.backend.k1), "b": round3(self.backend.b)},
                "threads": self.threads,
                "timing_ms": {"init": round3(self.init_ms)},
            }
        )

    def handle_line(self, raw: bytes) -> str | None:
        """The response line (without its newline) to one request line, or ``None`` for a
        blank line. Never raises."""
        if raw.endswith(b"\n"):
            raw = raw[:-1]
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        try:
            text = raw.decode("utf-8")
            bad_utf8: UnicodeDecodeError | None = None
        except UnicodeDecodeError as e:
            text, bad_utf8 = raw.decode("utf-8", "replace"), e
        if java_blank(text):
            return None
        command_id: object = None
        command: object = None
        command_type = "unknown"
        try:
            try:
                command = parse_request(text)
            except ValueError as e:
                raise RpcError(f"Invalid JSON command: {e}") from None
            if not isinstance(command, dict):
                raise RpcError("Command must be a JSON object.")
            command_id = command.get("id")
            raw_type = command.get("type")
            if isinstance(raw_type, str) and not java_blank(raw_type):
                command_type = raw_type
            if bad_utf8 is not None:
                byte = bad_utf8.object[bad_utf8.start]
                raise RpcError(
                    f"Command line is not valid UTF-8 (byte 0x{byte:02x} at offset "
                    f"{bad_utf8.start})."
                )
            data = self._handle(command)
            response: dict[str, object] = {
                "id": command_id,
                "type": "response",
                "command": command_type,
                "success": True,
                "data": data,
            }
        except Exception as e:  # every failure is answered, as the Java server does
            response = {
                "id": command_id,
                "type": "response",
                "command": command_type,
                "success": False,
                "error": str(e) if isinstance(e, RpcError) else f"{type(e).__name__}: {e}",
            }
        if self.recorder is not None and command_type in _TOOLS and isinstance(command, dict):
            self._record(command, response)
        try:
            return java_json(response)
        except (TypeError, ValueError):  # an id that is not JSON-shaped cannot happen
            return java_json({**response, "id": None})

    def is_ping(self, raw: bytes) -> bool:
        """Whether a request line is a blank line or a short ``ping``: answered on the
        server's loop, never queued behind heavy commands."""
        if len(raw) > 4096:
            return False
        try:
            command = json.loads(raw)
        except ValueError:
            return not raw.strip()
        return isinstance(command, dict) and command.get("type") == "ping"

    def _record(self, command: dict[str, Any], response: dict[str, Any]) -> None:
        assert self.recorder is not None
        key = command.get("conversation")
        key = key if isinstance(key, str) else ""
        arguments = {k: v for k, v in command.items() if k not in ("id", "type", "conversation")}
        tool = str(command["type"])
        if not response["success"]:
            self.recorder.refused(key, tool, arguments, str(response["error"]))
        elif tool == "search":
            docids = [r["docid"] for r in response["data"]["results"]]
            self.recorder.search(key, arguments, docids)
        else:
            self.recorder.read(key, arguments, response["data"]["found"] is True)

    def _handle(self, command: Mapping[str, Any]) -> dict[str, object]:
        started = self.clock()
        kind = _require_string(
            command.get("type"), "Command must include a non-empty string 'type'."
        )
        handler = self._commands.get(kind)
        if handler is None:
            raise RpcError(f"Unknown command type: {kind}")
        payload = handler(command)
        now = self.clock()
        payload["timing_ms"] = {
            "command": round3((now - started) * 1000),
            "server_uptime": round3((now - self.started) * 1000),
            "init": round3(self.init_ms),
        }
        return payload

    def _search(self, command: Mapping[str, Any]) -> dict[str, object]:
        query = _require_string(command.get("query"), "search requires a non-empty string query")
        mode = command.get("query_mode")
        mode = mode if isinstance(mode, str) else "plain"
        k = _optional_int(command.get("k"), 5, "search k must be a positive integer")
        clues = _parse_clues(command.get("rerank_clues"))
        if mode == "lucene":
            raise RpcError(
                "search query_mode 'lucene' is not supported: this server has no Lucene query "
                "parser; use 'plain'"
            )
        if mode != "plain":
            raise RpcError("search query_mode must be 'plain' or 'lucene'")
        pairs = self.backend.search(query, k)
        bonuses = [0.0] * len(pairs)
        if clues:  # only then are the documents read (the Java server reads them always)
            for i, (docid, _) in enumerate(pairs):
                document = self.backend.document(docid)
                if document is not None:
                    title = f"{document.title}\n" if document.title is not None else ""
                    bonuses[i] = _rerank_bonus(title + document.contents, clues)
        scores = round3_all(
            [score + bonus for (_, score), bonus in zip(pairs, bonuses, strict=True)]
        )
        order = sorted(range(len(pairs)), key=lambda i: -scores[i])  # stable
        return {
            "mode": "search",
            "query": query,
            "query_mode": mode,
            "k": k,
            "rerank_clues": [c.as_json() for c in clues],
            "results": [{"docid": pairs[i][0], "score": scores[i]} for i in order[:k]],
        }

    def _render(self, command: Mapping[str, Any]) -> dict[str, object]:
        raw_docids = command.get("docids")
        if not isinstance(raw_docids, list):
            raise RpcError("render_search_results docids must be a JSON array of strings")
        if len(raw_docids) > MAX_RENDER_DOCIDS:
            raise RpcError(
                f"render_search_results takes at most {MAX_RENDER_DOCIDS} docids "
                f"(got {len(raw_docids)})"
            )
        docids = [
            _require_string(d, "render_search_results docids must contain only strings")
            for d in raw_docids
        ]
        max_chars = _optional_int(
            command.get("snippet_max_chars"),
            220,
            "render_search_results snippet_max_chars must be a positive integer",
        )
        inline = _optional_bool(
            command.get("inline_highlights"),
            True,
            "render_search_results inline_highlights must be a boolean",
        )
        clues = _parse_clues(command.get("highlight_clues"))
        tokens = list(dict.fromkeys(t for c in clues for t in c.tokens))
        results: list[dict[str, object]] = []
        for docid in docids:
            document = self.backend.document(docid)
            if document is None:
                results.append(
                    {
                        "docid": docid,
                        "title": None,
                        "matched_terms": [],
                        "excerpt": "[Document not found]",
                        "excerpt_truncated": False,
                    }
                )
                continue
            preview = self.backend.preview(document, tokens, max_chars, inline)
            results.append({"docid": docid, **preview})
        return {
            "mode": "render_search_results",
            "docids": docids,
            "highlight_clues": [c.as_json() for c in clues],
            "inline_highlights": inline,
            "results": results,
        }

    def _read_document(self, command: Mapping[str, Any]) -> dict[str, object]:
        docid = _require_string(
            command.get("docid"), "read_document requires a non-empty string docid"
        )
        offset = _optional_int(
            command.get("offset"), 1, "read_document offset must be a positive integer"
        )
        limit = _optional_int(
            command.get("limit"), 200, "read_document limit must be a positive integer"
        )
        document = self.backend.document(docid)
        if document is None:
            return {
                "mode": "read_document",
                "docid": docid,
                "found": False,
                "error": f"Document with docid '{docid}' not found",
            }
        chunk = self.backend.chunk(document, offset, limit)
        return {
            "mode": "read_document",
            "docid": docid,
            "found": True,
            "offset": chunk.offset,
            "limit": chunk.limit,
            "total_lines": chunk.total_lines,
            "returned_line_start": chunk.returned_line_start,
            "returned_line_end": chunk.returned_line_end,
            "truncated": chunk.truncated,
            "next_offset": chunk.next_offset,
            "text": chunk.text,
        }


def _lines(stream: _Binary) -> Iterator[bytes | None]:
    """Request lines of ``stream``; a line past :data:`MAX_LINE_BYTES` yields ``None``
    once, its rest skipped."""
    while True:
        line = stream.readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
            while True:
                rest = stream.readline(MAX_LINE_BYTES)
                if not rest or rest.endswith(b"\n"):
                    break
            yield None
            continue
        yield line


def _refused(error: str) -> str:
    """The answer to a line that was not read as a command."""
    return java_json(
        {"id": None, "type": "response", "command": "unknown", "success": False, "error": error}
    )


def _too_long() -> str:
    return _refused(f"Command line longer than {MAX_LINE_BYTES} bytes.")


def answer_stream(handler: RpcHandler, reader: _Binary, writer: _Binary) -> None:
    """Answers every request line of ``reader`` on ``writer``, in order, until EOF."""
    for line in _lines(reader):
        response = _too_long() if line is None else handler.handle_line(line)
        if response is None:
            continue
        writer.write(response.encode("utf-8", "replace") + b"\n")
        writer.flush()


def serve_stdio(handler: RpcHandler) -> None:
    """Serves requests from stdin on stdout (nothing else is written to stdout)."""
    answer_stream(handler, sys.stdin.buffer, sys.stdout.buffer)


class _Framing:
    """Cuts request lines out of a connection's bytes, as :func:`answer_stream` reads
    them (an over-long line is refused once and skipped; at EOF a last line without its
    newline is a line)."""

    def __init__(self, handler: RpcHandler) -> None:
        self.handler = handler

    def buffered(self, conn: Connection) -> int:
        return MAX_LINE_BYTES + 1

    def next(self, conn: Connection) -> tuple[Work, bool] | None:
        buf = conn.inbuf
        if conn.state.get("skipping"):
            end = buf.find(b"\n")
            if end < 0:
                buf.clear()
                return None
            del buf[: end + 1]
            conn.state["skipping"] = False
        end = buf.find(b"\n", 0, MAX_LINE_BYTES + 1)
        if end >= 0:
            line = bytes(buf[: end + 1])
            del buf[: end + 1]
        elif len(buf) > MAX_LINE_BYTES:
            conn.state["skipping"] = True
            return (lambda: ((_too_long() + "\n").encode("utf-8"), False)), True
        elif conn.eof and buf:
            line = bytes(buf)
            buf.clear()
        else:
            return None
        return (lambda: self._answer(line)), self.handler.is_ping(line)

    def _answer(self, line: bytes) -> tuple[bytes, bool]:
        response = self.handler.handle_line(line)
        if response is None:
            return b"", False
        return response.encode("utf-8", "replace") + b"\n", False


def tcp_server(
    handler: RpcHandler,
    host: str = "127.0.0.1",
    port: int = 0,
    limits: ServerLimits | None = None,
) -> SelectorServer:
    """The bound server, not yet serving (``serve_forever()``; ``shutdown()`` from another
    thread; close it, or use it as a context manager), answering on ``handler.threads``
    workers. ``limits``: :class:`ServerLimits`' defaults if ``None``."""
    limits = limits or ServerLimits()
    server = SelectorServer((host, port), _Framing(handler), handler.threads, limits, "rpc")
    server.refusal = (
        _refused(f"Too many connections (at most {limits.max_connections}).") + "\n"
    ).encode("utf-8")
    return server


def serve_tcp(
    handler: RpcHandler,
    host: str = "127.0.0.1",
    port: int = 0,
    ready: Callable[[str], None] | None = None,
    limits: ServerLimits | None = None,
) -> None:
    """Serves TCP connections until interrupted; ``ready`` (default: print to stdout) gets
    the readiness line once the port is bound."""
    with tcp_server(handler, host, port, limits) as server:
        line = handler.ready_line(host, server.server_address[1])
        if ready is None:
            print(line, flush=True)
        else:
            ready(line)
        server.serve_forever()
