"""``rserini serve http``: pi-search's ``http-json`` backend, on the standard library.

Two endpoints, with pi-search's strict shapes (no extra keys anywhere, optional keys
omitted rather than ``null``):

- ``POST /search`` ``{"query": str, "limit": number >= 1, "offset"?: number >= 1}`` gives
  ``{"hits": [{"docid", "score", "title"?, "snippet"?, "snippetTruncated"?}], "nextOffset"?,
  "hasMore", "timingMs"?: {"request"}}``: ranks ``offset``.. of the BM25 ranking, scores
  rounded to 3 decimals, and for ranks 1-50 (every rank with ``preview_depth=None``) the
  Anserini server's title and excerpt for the whole query.
- ``POST /read_document`` ``{"docid": str, "offset"?: number >= 1, "limit"?: number >= 1}``
  gives ``{"found": true, "docid", "text", "title"?, "offset", "limit", "totalUnits",
  "returnedOffsetStart"?, "returnedOffsetEnd"?, "truncated", "nextOffset"?, "timingMs"?}``,
  or ``{"found": false, "docid"}`` with status 200 for an unknown docid.

Numbers are floored (pi-search sends integers). A malformed request gets a 4xx status and
``{"error": "<message>"}``, which pi-search shows as
``<backend> backend search failed: HTTP 400: {"error":"..."}``; the server carries on.

Connections are read and written by one selector loop, which hands each whole request
to a pool of ``threads`` workers (:mod:`~rserini.agent.servers.selector_server`); they are
capped (one more gets a 503) and closed when idle (:class:`ServerLimits`). Each response
goes out in one write on a ``TCP_NODELAY`` socket, so a kept-alive connection does not
wait on Nagle's algorithm.
"""

from __future__ import annotations

import io
import math
import sys
import time
from collections.abc import Callable, Mapping
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from rserini.agent.servers.backend import IndexBackend
from rserini.agent.servers.backend_record import BackendRecorder
from rserini.agent.servers.connections import ServerLimits
from rserini.agent.servers.request_json import MAX_REQUEST_BYTES, parse_request
from rserini.agent.servers.selector_server import Answer, Connection, SelectorServer, Work
from rserini.agent.tools.excerpt import SNIPPET_MAX_CHARS, clue_tokens
from rserini.agent.tools.java_rules import round3_all
from rserini.agent.tools.jsformat import js_json
from rserini.exceptions import QueryError

__all__ = ["HTTP_THREADS", "MAX_BODY_BYTES", "HttpApi", "HttpError", "http_server", "serve_http"]

MAX_BODY_BYTES = MAX_REQUEST_BYTES
"""Largest request body read."""
PREVIEW_DEPTH = 50
HTTP_THREADS = 4
"""Requests run at once, by default."""


class HttpError(Exception):
    """A refused request: ``status`` and the ``error`` message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _fields(body: object, allowed: tuple[str, ...], label: str) -> Mapping[str, Any]:
    if not isinstance(body, dict):
        raise HttpError(400, f"{label} body must be a JSON object")
    extra = [k for k in body if k not in allowed]
    if extra:
        raise HttpError(
            400, f"{label} body has unknown field {extra[0]!r} (allowed: {', '.join(allowed)})"
        )
    return body


def _number(body: Mapping[str, Any], key: str, default: int | None, label: str) -> int:
    """A JSON number >= 1, floored; ``default`` when absent (``None``: required)."""
    if key not in body:
        if default is None:
            raise HttpError(400, f"{label} body needs {key!r}")
        return default
    value = body[key]
    # A huge int is finite; it is clamped by the ranking's depth later (math.isfinite
    # would overflow converting it to a float).
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise HttpError(400, f"{label} {key!r} must be a finite number")
    if isinstance(value, float) and not math.isfinite(value):
        raise HttpError(400, f"{label} {key!r} must be a finite number")
    if value < 1:
        raise HttpError(400, f"{label} {key!r} must be >= 1 (got {js_json(value)})")
    return math.floor(value)


def _string(body: Mapping[str, Any], key: str, label: str) -> str:
    value = body.get(key)
    if not isinstance(value, str) or not value:
        raise HttpError(400, f"{label} {key!r} must be a non-empty string")
    return value


class HttpApi:
    """The two endpoints as functions of a parsed body (shared by every request thread).

    Parameters
    ----------
    backend
        The index and its BM25 parameters.
    preview_depth
        Ranks that get a title and excerpt (50, as pi-search's Anserini path); ``None``
        for every rank.
    record_timings
        Put ``timingMs`` in responses.
    threads
        Requests run at once, at most (the server's worker pool).
    recorder
        Records searches and reads as run records (``--record``), per conversation
        (``?conversation=KEY`` in the URL).
    """

    def __init__(
        self,
        backend: IndexBackend,
        *,
        preview_depth: int | None = PREVIEW_DEPTH,
        record_timings: bool = True,
        clock: Callable[[], float] = time.perf_counter,
        threads: int = HTTP_THREADS,
        recorder: BackendRecorder | None = None,
    ) -> None:
        self.backend = backend
        self.recorder = recorder
        self.preview_depth = preview_depth
        self.record_timings = record_timings
        self.clock = clock
        if threads < 1:
            raise ValueError(f"threads must be at least 1 (got {threads})")
        self.threads = threads

    def route(self, path: str) -> Callable[[object], dict[str, object]] | None:
        """The endpoint of ``path`` (query string ignored), or ``None``."""
        return {"/search": self.search, "/read_document": self.read_document}.get(
            path.split("?", 1)[0]
        )

    def search(self, body: object) -> dict[str, object]:
        """``POST /search``."""
        started = self.clock()
        fields = _fields(body, ("query", "offset", "limit"), "search")
        query = _string(fields, "query", "search")
        limit = _number(fields, "limit", None, "search")
        offset = _number(fields, "offset", 1, "search")
        # One more than the page tells whether more hits follow.
        pairs = self.backend.search(query, offset - 1 + limit + 1)
        page = pairs[offset - 1 : offset - 1 + limit]
        has_more = len(pairs) > offset - 1 + limit
        scores = round3_all([score for _, score in page])
        tokens = clue_tokens(query)
        hits: list[dict[str, object]] = []
        for i, ((docid, _), score) in enumerate(zip(page, scores, strict=True)):
            hit: dict[str, object] = {"docid": docid, "score": score}
            rank = offset + i
            if self.preview_depth is None or rank <= self.preview_depth:
                hit |= self._preview(docid, tokens)
            hits.append(hit)
        response: dict[str, object] = {"hits": hits}
        if has_more:
            response["nextOffset"] = offset + len(page)
        response["hasMore"] = has_more
        if self.record_timings:
            response["timingMs"] = {"request": round((self.clock() - started) * 1000, 3)}
        return response

    def _preview(self, docid: str, tokens: list[str]) -> dict[str, object]:
        document = self.backend.document(docid)
        if document is None:  # deleted since the search
            return {}
        preview = self.backend.preview(document, tokens, SNIPPET_MAX_CHARS)
        fields: dict[str, object] = {}
        if preview["title"] is not None:
            fields["title"] = preview["title"]
        if preview["excerpt"]:  # pi-search's adapter maps an empty excerpt to no snippet
            fields["snippet"] = preview["excerpt"]
        fields["snippetTruncated"] = preview["excerpt_truncated"]
        return fields

    def read_document(self, body: object) -> dict[str, object]:
        """``POST /read_document``."""
        started = self.clock()
        fields = _fields(body, ("docid", "offset", "limit"), "read_document")
        docid = _string(fields, "docid", "read_document")
        offset = _number(fields, "offset", 1, "read_document")
        limit = _number(fields, "limit", 200, "read_document")
        document = self.backend.document(docid)
        if document is None:
            return {"found": False, "docid": docid}
        chunk = self.backend.chunk(document, offset, limit)
        response: dict[str, object] = {"found": True, "docid": docid, "text": chunk.text}
        if document.title is not None:
            response["title"] = document.title
        response |= {"offset": chunk.offset, "limit": chunk.limit, "totalUnits": chunk.total_lines}
        if chunk.returned_line_start:  # the contract wants >= 1: omitted for an empty chunk
            response["returnedOffsetStart"] = chunk.returned_line_start
            response["returnedOffsetEnd"] = chunk.returned_line_end
        response["truncated"] = chunk.truncated
        if chunk.next_offset is not None:
            response["nextOffset"] = chunk.next_offset
        if self.record_timings:
            response["timingMs"] = {"request": round((self.clock() - started) * 1000, 3)}
        return response

    def answer(self, method: str, path: str, body: bytes | None) -> tuple[int, dict[str, object]]:
        """``(status, JSON body)`` for one request. Never raises."""
        parsed: list[object] = []
        status, reply = self._answer(method, path, body, parsed)
        if self.recorder is not None and parsed and status in (200, 400):
            self._record(path, parsed[0], status, reply)
        return status, reply

    def _record(self, path: str, body: object, status: int, reply: dict[str, object]) -> None:
        assert self.recorder is not None
        url = urlsplit(path)
        key = (parse_qs(url.query).get("conversation") or [""])[0]
        arguments = body if isinstance(body, dict) else {}
        tool = "search" if url.path == "/search" else "read_document"
        if status != 200:
            self.recorder.refused(key, tool, arguments, str(reply["error"]))
        elif tool == "search":
            hits: Any = reply["hits"]
            self.recorder.search(key, arguments, [h["docid"] for h in hits])
        else:
            self.recorder.read(key, arguments, reply["found"] is True)

    def _answer(
        self, method: str, path: str, body: bytes | None, parsed: list[object]
    ) -> tuple[int, dict[str, object]]:
        try:
            endpoint = self.route(path)
            if endpoint is None:
                raise HttpError(404, f"no endpoint {path}: POST /search or /read_document")
            if method != "POST":
                raise HttpError(405, f"{path} takes POST, not {method}")
            if body is None:
                raise HttpError(411, "the request needs a Content-Length body")
            try:
                value = parse_request(body.decode("utf-8"))
            except UnicodeDecodeError as e:
                raise HttpError(400, f"the body is not UTF-8: {e}") from None
            except ValueError as e:
                raise HttpError(400, f"the body is not JSON: {e}") from None
            parsed.append(value)  # for the recorder
            return 200, endpoint(value)
        except HttpError as e:
            return e.status, {"error": str(e)}
        except QueryError as e:  # a query over the limits
            return 400, {"error": str(e)}
        except Exception as e:  # a bug must not take the server down
            print(f"rserini serve http: {type(e).__name__}: {e}", file=sys.stderr)
            return 500, {"error": f"internal error: {type(e).__name__}: {e}"}


class _Server(SelectorServer):
    api: HttpApi
    quiet: bool


_MAX_LINE = 65536  # the standard library's longest request or header line
_MAX_HEAD = 64 * 1024  # longest header section waited for


class _Framing:
    """Cuts HTTP/1.1 requests (request line, headers, ``Content-Length`` body) out of a
    connection's bytes; the standard library's handler then answers each one."""

    server: _Server

    def buffered(self, conn: Connection) -> int:
        return _MAX_LINE + _MAX_HEAD + MAX_BODY_BYTES

    def next(self, conn: Connection) -> tuple[Work, bool] | None:
        size = _request_size(conn)
        if size is None:
            return None
        if size < 0:  # headers past the bound: refused without the handler
            conn.inbuf.clear()
            return (lambda: (_TOO_LARGE, True)), True
        request = bytes(conn.inbuf[:size])
        del conn.inbuf[:size]
        conn.state.clear()
        return (lambda: _handle(self.server, request, conn.address)), False


def _request_size(conn: Connection) -> int | None:
    """Bytes of the first whole request in ``conn.inbuf``; ``None`` if it is not whole
    yet (or never will be, at EOF); -1 for a header section past :data:`_MAX_HEAD`.
    What the standard library refuses without reading further (an over-long or
    malformed request line, a body it will not read) is whole as it stands."""
    buf = conn.inbuf
    line_end = buf.find(b"\n", 0, _MAX_LINE + 1)
    if line_end < 0:
        if len(buf) > _MAX_LINE or (conn.eof and buf):
            return len(buf)  # refused as too long, or read as it is
        return None
    words = bytes(buf[:line_end]).split()
    if len(words) != 3 or not words[2].startswith(b"HTTP/"):
        return line_end + 1  # HTTP/0.9 or malformed: no headers are read
    # Headers end at an empty line; the scan resumes where it stopped.
    pos = int(conn.state.get("scanned", line_end + 1))  # type: ignore[call-overload]
    while True:
        nl = buf.find(b"\n", pos)
        if nl < 0:
            conn.state["scanned"] = pos
            return -1 if len(buf) - line_end > _MAX_HEAD else None
        if buf[pos:nl] in (b"", b"\r"):
            head_end = nl + 1
            break
        pos = nl + 1
    length: bytes | None = None
    for line in bytes(buf[line_end + 1 : head_end]).splitlines():
        name, _, value = line.partition(b":")
        name = name.strip().lower()
        if name == b"transfer-encoding":
            return head_end  # refused (411)
        if name == b"content-length" and length is None:
            length = value.strip()
    try:
        size = int(length.decode("latin-1")) if length is not None else 0
    except ValueError:
        return head_end  # refused (400)
    if size < 0 or size > MAX_BODY_BYTES:
        return head_end  # refused (400, 413)
    if len(buf) >= head_end + size:
        return head_end + size
    return None


def _handle(server: _Server, request: bytes, address: object) -> Answer:
    """One whole request through the handler, on in-memory files."""
    handler = _Handler.__new__(_Handler)
    handler.server = server
    handler.client_address = address  # type: ignore[assignment]
    handler.rfile = io.BytesIO(request)
    handler.wfile = io.BytesIO()
    handler.close_connection = True
    handler.handle_one_request()
    return handler.wfile.getvalue(), handler.close_connection


def _error_response(status: int, message: str) -> bytes:
    body = js_json({"error": message})
    return (
        f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\n"
        "Content-Type: application/json; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n{body}"
    ).encode()


_TOO_LARGE = _error_response(431, f"header section larger than {_MAX_HEAD} bytes")


class _Handler(BaseHTTPRequestHandler):
    # Run on in-memory files by the loop's workers (_handle), not by a socketserver.
    server: _Server  # type: ignore[assignment]
    protocol_version = "HTTP/1.1"

    def _serve(self) -> None:
        body: bytes | None = None
        status: int | None = None
        reply: dict[str, object] = {}
        length = self.headers.get("Content-Length")
        if self.headers.get("Transfer-Encoding"):
            status, reply = 411, {"error": "chunked bodies are not accepted: send Content-Length"}
        elif length is not None:
            try:
                size = int(length)
                if size < 0:
                    raise ValueError
            except ValueError:
                status, reply = 400, {"error": f"bad Content-Length {length!r}"}
            else:
                if size > MAX_BODY_BYTES:
                    status, reply = 413, {"error": f"body larger than {MAX_BODY_BYTES} bytes"}
                else:
                    body = self.rfile.read(size)
        if status is None:
            status, reply = self.server.api.answer(self.command, self.path, body)
        headers = {"Allow": "POST"} if status == HTTPStatus.METHOD_NOT_ALLOWED else {}
        # An unread body would be taken for the next request.
        self._send(status, js_json(reply).encode("utf-8"), headers, close=body is None)

    # Every method is answered (405 for all but POST), in the one JSON error shape.
    do_POST = do_GET = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = _serve  # noqa: N815

    def handle_expect_100(self) -> bool:
        """The body is read before the handler runs, so there is nothing to continue."""
        return True

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The standard library's own refusals (a malformed request line or headers), in
        the same JSON error shape, closing the connection."""
        data = js_json({"error": message or HTTPStatus(code).phrase}).encode("utf-8")
        self._send(code, data, {}, close=True)

    def _send(self, status: int, data: bytes, headers: dict[str, str], *, close: bool) -> None:
        """The status line, headers and JSON body in one write."""
        self.log_request(status)
        lines = [
            f"{self.protocol_version} {status} {HTTPStatus(status).phrase}",
            f"Server: {self.version_string()}",
            f"Date: {self.date_time_string()}",
            "Content-Type: application/json; charset=utf-8",
            f"Content-Length: {len(data)}",
            *(f"{name}: {value}" for name, value in headers.items()),
        ]
        if close:
            lines.append("Connection: close")
            self.close_connection = True
        head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        if self.request_version == "HTTP/0.9":  # a bare "GET /": no status line, no headers
            head = b""
        self.wfile.write(head if self.command == "HEAD" else head + data)

    def log_message(self, format: str, *args: Any) -> None:
        if not self.server.quiet:
            super().log_message(format, *args)  # to stderr


def http_server(
    api: HttpApi,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    quiet: bool = False,
    limits: ServerLimits | None = None,
) -> SelectorServer:
    """The bound server, not yet serving (``serve_forever()``; ``shutdown()`` from another
    thread; close it, or use it as a context manager), answering on ``api.threads``
    workers. ``limits``: :class:`ServerLimits`' defaults if ``None``."""
    limits = limits or ServerLimits()
    framing = _Framing()
    server = _Server((host, port), framing, api.threads, limits, "http")
    framing.server = server
    server.api = api
    server.quiet = quiet
    server.refusal = _error_response(
        503, f"too many connections (at most {limits.max_connections})"
    )
    return server


def serve_http(
    api: HttpApi,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    quiet: bool = False,
    ready: Callable[[str], None] | None = None,
    limits: ServerLimits | None = None,
) -> None:
    """Serves until interrupted. Once the port is bound, ``ready`` (default: print to
    stdout) gets ``{"type":"server_ready","transport":"http","host":...,"port":...}``."""
    with http_server(api, host, port, quiet=quiet, limits=limits) as server:
        line = js_json(
            {
                "type": "server_ready",
                "transport": "http",
                "host": host,
                "port": server.server_address[1],
            }
        )
        if ready is None:
            print(line, flush=True)
        else:
            ready(line)
        server.serve_forever()
