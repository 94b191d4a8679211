"""``rserini serve``: the agent tools behind a protocol (``serve mcp``, ``http``, ``rpc``).

`add_commands` registers the command on the main parser; each server is one
subcommand added by its own function. :func:`add_tool_arguments` and
:func:`tool_options` give every server the same index, BM25 and behaviour flags.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

from rserini.agent.servers.connections import ServerLimits
from rserini.agent.servers.http_server import HTTP_THREADS
from rserini.agent.tools.budget import DEFAULT_RATIO, TimeBudget
from rserini.agent.tools.options import ToolOptions
from rserini.cli.bm25_args import add_k1_b
from rserini.cli.common import Subcommands

if TYPE_CHECKING:
    from rserini.agent.servers.backend_record import BackendRecorder

__all__ = [
    "add_commands",
    "add_http_parser",
    "add_mcp_parser",
    "add_rpc_parser",
    "add_tool_arguments",
    "time_budget",
    "tool_options",
]


def add_commands(sub: Subcommands) -> None:
    """Adds ``serve``, with one subcommand per server."""
    p = sub.add_parser(
        "serve",
        help="serve the agent tools (search, read_search_results, read_document) to agents",
        description="Serve pi-search's agent tools over one index: search (1000 BM25 hits "
        "cached per search_id), read_search_results (pages of a cached ranking) and "
        "read_document (line-based chunks), with pi-search's exact texts.",
    )
    servers: Subcommands = p.add_subparsers(dest="server", required=True, metavar="SERVER")
    add_mcp_parser(servers)
    add_http_parser(servers)
    add_rpc_parser(servers)


def add_mcp_parser(servers: Subcommands) -> None:
    """Adds ``serve mcp``."""
    p = servers.add_parser(
        "mcp",
        help="an MCP server over stdio (needs the agent extra)",
        description="Serve the tools as an MCP server on stdin/stdout (only protocol on "
        'stdout, logs on stderr). Needs the MCP SDK: pip install "rserini[agent]".',
    )
    add_tool_arguments(p)
    c = p.add_argument_group("conversations (each has its own ids, cache and budget)")
    c.add_argument(
        "--new-session-tool",
        action="store_true",
        help="offer a new_session tool that starts a fresh conversation (not one of pi's)",
    )
    c.add_argument(
        "--idle-reset",
        type=float,
        default=None,
        metavar="SECONDS",
        help="a call after this long without one starts a new conversation (default: never)",
    )
    c.add_argument(
        "--record",
        type=Path,
        default=None,
        metavar="DIR",
        help="write each conversation's run record and raw events to DIR when it ends "
        "(what agent-eval reads)",
    )
    p.set_defaults(func=_cmd_serve_mcp)


def add_tool_arguments(p: argparse.ArgumentParser) -> None:
    """The index, BM25 and behaviour flags every server shares."""
    p.add_argument("--index", required=True, type=Path, help="index folder (with documents)")
    add_k1_b(p)
    p.add_argument(
        "--timeout-seconds",
        type=float,
        default=None,
        help="time budget T of the run (default: $TIMEOUT_SECONDS; none if unset): past "
        "ratio*T every tool call is blocked",
    )
    p.add_argument(
        "--steer-ratio",
        type=float,
        default=DEFAULT_RATIO,
        help=f"share of T after which tools are blocked (default {DEFAULT_RATIO})",
    )
    p.add_argument(
        "--spill-dir",
        type=Path,
        default=None,
        help="where truncated outputs are saved in full (default: a temporary folder, "
        "removed at exit)",
    )
    g = p.add_argument_group("improvements (off by default: the defaults are pi-search's)")
    g.add_argument(
        "--lru",
        action="store_true",
        help="LRU result-set cache that says when an id was evicted (default: FIFO, as unknown)",
    )
    g.add_argument(
        "--excerpts-everywhere",
        action="store_true",
        help="excerpts on every page (default: ranks 1-50 only)",
    )
    g.add_argument(
        "--passage-excerpts",
        action="store_true",
        help="BM25 best-passage excerpts (default: the earliest-match window)",
    )
    g.add_argument(
        "--find-in-document",
        action="store_true",
        help="offer a fourth tool, find_in_document(reason, docid, query)",
    )
    g.add_argument(
        "--no-timings", action="store_true", help="no timings in details (byte-stable results)"
    )
    g.add_argument(
        "--continue-after-cut",
        action="store_true",
        help="after an output cut, hints resume at the first line or hit left out "
        "(default: after the whole requested chunk, as pi-search)",
    )
    g.add_argument(
        "--spill-paging",
        action="store_true",
        help="a cut output is readable as document spill:<n> through read_document "
        "(default: a path on the server's disk)",
    )
    g.add_argument(
        "--previewed-shown-only",
        action="store_true",
        help="previewedDocids lists only hits shown before a cut (default: the whole page)",
    )
    g.add_argument("--improved", action="store_true", help="all of the above")
    p.add_argument("-q", "--quiet", action="store_true", help="log warnings only")


def tool_options(args: argparse.Namespace) -> ToolOptions:
    """The :class:`ToolOptions` the flags of :func:`add_tool_arguments` ask for."""
    if args.improved:
        return ToolOptions.improved()
    return ToolOptions(
        cache_policy="lru" if args.lru else "fifo",
        preview_depth=None if args.excerpts_everywhere else 50,
        excerpt_mode="passage" if args.passage_excerpts else "window",
        find_in_document=args.find_in_document,
        record_timings=not args.no_timings,
        continue_after_cut=args.continue_after_cut,
        spill_paging=args.spill_paging,
        previewed_shown_only=args.previewed_shown_only,
    )


def time_budget(args: argparse.Namespace) -> TimeBudget:
    """The budget of ``--timeout-seconds`` (else ``$TIMEOUT_SECONDS``) and ``--steer-ratio``."""
    return TimeBudget(args.timeout_seconds, ratio=args.steer_ratio)


def _cmd_serve_mcp(args: argparse.Namespace) -> int:
    from rserini.agent.servers.mcp_server import MissingDependencyError, serve_stdio

    logging.basicConfig(
        stream=sys.stderr,
        level=logging.WARNING if args.quiet else logging.INFO,
        format="rserini serve mcp: %(message)s",
    )
    try:
        serve_stdio(
            args.index,
            k1=args.k1,
            b=args.b,
            options=tool_options(args),
            budget=lambda: time_budget(args),
            spill_dir=args.spill_dir,
            record_dir=args.record,
            idle_reset=args.idle_reset,
            new_session_tool=args.new_session_tool,
        )
    except (MissingDependencyError, ValueError) as e:
        print(f"rserini: error: {e}", file=sys.stderr)
        return 1
    return 0


def _add_backend_arguments(p: argparse.ArgumentParser) -> None:
    """The index, BM25, address and connection flags of the http and rpc servers."""
    p.add_argument("--index", required=True, type=Path, help="index folder (with documents)")
    add_k1_b(p)
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to bind (default 127.0.0.1: this machine only)",
    )
    p.add_argument(
        "--max-connections",
        type=int,
        default=ServerLimits.max_connections,
        help="connections open at once; one more is refused (default %(default)s)",
    )
    p.add_argument(
        "--idle-timeout",
        type=float,
        default=ServerLimits.idle_timeout,
        help="seconds before a silent connection is closed (default %(default)s)",
    )
    r = p.add_argument_group("recording (what agent-eval reads)")
    r.add_argument(
        "--record",
        type=Path,
        default=None,
        metavar="DIR",
        help="write a run record and raw events per conversation to DIR (searches surface "
        "their hits, the first 5 previewed; reads open their docid); a request names its "
        "conversation with ?conversation=KEY (http) or a conversation field (rpc)",
    )
    r.add_argument(
        "--idle-reset",
        type=float,
        default=None,
        metavar="SECONDS",
        help="with --record: a request after this long without one starts a new "
        "conversation (default: never; every conversation is written when the server stops)",
    )


def _answer_promptly() -> None:
    """A 1 ms GIL switch interval (instead of 5 ms): a cheap request waits less for the
    interpreter while another client's command runs Python code (previews, rendering)."""
    sys.setswitchinterval(0.001)


@contextlib.contextmanager
def _recorder(args: argparse.Namespace, transport: str) -> Iterator[BackendRecorder | None]:
    """The ``--record`` recorder (``None`` without it), whose records are written when
    the server stops: interrupted, or terminated (SIGTERM then unwinds as an exit)."""
    if args.record is None:
        yield None
        return
    from rserini.agent.servers.backend_record import BackendRecorder

    recorder = BackendRecorder(args.record, transport, args.idle_reset)
    previous = signal.signal(signal.SIGTERM, _exit_on_sigterm)
    try:
        yield recorder
    finally:
        signal.signal(signal.SIGTERM, previous)
        recorder.close()


def _exit_on_sigterm(signum: int, frame: FrameType | None) -> None:
    sys.exit(0)


def _limits(args: argparse.Namespace) -> ServerLimits | None:
    """The connection flags, or ``None`` after printing why they are refused."""
    try:
        return ServerLimits(args.max_connections, args.idle_timeout)
    except ValueError as e:
        print(f"rserini: error: {e}", file=sys.stderr)
        return None


def add_http_parser(servers: Subcommands) -> None:
    """Adds ``serve http``."""
    p = servers.add_parser(
        "http",
        help="pi-search's http-json backend: POST /search and POST /read_document",
        description="Serve pi-search's http-json backend contract (strict request and response "
        'shapes; a malformed request gets a 4xx and {"error": ...}). The first stdout line '
        'is {"type":"server_ready","transport":"http","host":...,"port":...}; the request '
        "log goes to stderr.",
    )
    _add_backend_arguments(p)
    p.add_argument("--port", type=int, default=0, help="port (default 0: any free port)")
    p.add_argument(
        "--excerpts-everywhere",
        action="store_true",
        help="a title and excerpt for every hit (default: ranks 1-50, as pi-search's "
        "Anserini path)",
    )
    p.add_argument("--no-timings", action="store_true", help="no timingMs in responses")
    p.add_argument(
        "--threads",
        type=int,
        default=HTTP_THREADS,
        help="requests run at once (default %(default)s)",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no request log")
    p.set_defaults(func=_cmd_serve_http)


def add_rpc_parser(servers: Subcommands) -> None:
    """Adds ``serve rpc``."""
    p = servers.add_parser(
        "rpc",
        help="pi-serini's JSON-lines BM25 RPC over TCP or stdio",
        description="Serve pi-serini's JSON-lines RPC (ping, search, render_search_results, "
        "read_document), as its Java BM25 server does. Over TCP the first stdout line is "
        '{"type":"server_ready","transport":"tcp",...}; over stdio only responses are written '
        'to stdout. query_mode "lucene" is refused: there is no Lucene query parser.',
    )
    _add_backend_arguments(p)
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--port", type=int, help="TCP port (0: any free port)")
    where.add_argument("--stdio", action="store_true", help="serve stdin/stdout")
    p.add_argument(
        "--threads", type=int, default=1, help="commands run at once (default 1, as pi-serini)"
    )
    p.set_defaults(func=_cmd_serve_rpc)


def _cmd_serve_http(args: argparse.Namespace) -> int:
    from rserini import Index
    from rserini.agent.servers.backend import IndexBackend
    from rserini.agent.servers.http_server import HttpApi, serve_http

    limits = _limits(args)
    if limits is None:
        return 1
    if args.threads < 1:
        print("rserini: error: --threads must be at least 1", file=sys.stderr)
        return 1
    try:
        backend = IndexBackend(Index.load(args.index), k1=args.k1, b=args.b)
    except ValueError as e:
        print(f"rserini: error: {e}", file=sys.stderr)
        return 1
    with _recorder(args, "http") as recorder, contextlib.suppress(KeyboardInterrupt):
        api = HttpApi(
            backend,
            preview_depth=None if args.excerpts_everywhere else 50,
            record_timings=not args.no_timings,
            threads=args.threads,
            recorder=recorder,
        )
        _answer_promptly()
        serve_http(api, args.host, args.port, quiet=args.quiet, limits=limits)
    return 0


def _cmd_serve_rpc(args: argparse.Namespace) -> int:
    import time

    from rserini import Index
    from rserini.agent.servers.backend import IndexBackend
    from rserini.agent.servers.rpc_server import RpcHandler, serve_stdio, serve_tcp

    limits = _limits(args)
    if limits is None:
        return 1
    if args.threads < 1:
        print("rserini: error: --threads must be at least 1", file=sys.stderr)
        return 1
    started = time.perf_counter()
    try:
        backend = IndexBackend(Index.load(args.index), k1=args.k1, b=args.b)
    except ValueError as e:
        print(f"rserini: error: {e}", file=sys.stderr)
        return 1
    with _recorder(args, "rpc") as recorder, contextlib.suppress(KeyboardInterrupt):
        handler = RpcHandler(
            backend,
            threads=args.threads,
            init_ms=(time.perf_counter() - started) * 1000,
            recorder=recorder,
        )
        if args.stdio:
            serve_stdio(handler)
        else:
            _answer_promptly()
            serve_tcp(handler, args.host, args.port, limits=limits)
    return 0
