"""The agent tools as an MCP server over stdio (``rserini serve mcp``).

Each conversation has its own :class:`~rserini.agent.tools.session.SearchSession`, made
at its first call (see :mod:`~rserini.agent.servers.conversations`): search ids, cache
and time budget are per conversation. A host that keeps one server for many chats starts
a fresh one with the optional ``new_session`` tool or ``idle_reset``. The tools, their input schemas
and every result text (errors included, with ``isError``) are the session's; the SDK's
own argument validation is not involved, so a bad call gets pi-search's text. Each
result's ``details`` travel in ``_meta["rserini/details"]``, out of the model's sight.
Only protocol goes to stdout; logs go to stderr. Over MCP the time budget can only block:
there is no way to hand the client a steer message.

The ``mcp`` package is imported here only, when the server starts.
"""

from __future__ import annotations

import logging
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

from rserini.agent.servers.conversations import Conversations
from rserini.agent.tools.budget import TimeBudget
from rserini.agent.tools.options import ToolOptions
from rserini.agent.tools.results import ToolResult
from rserini.agent.tools.schemas import mcp_tools
from rserini.agent.tools.session import SearchSession

__all__ = [
    "INSTALL_HINT",
    "NEW_SESSION_TOOL",
    "MissingDependencyError",
    "build_server",
    "serve_stdio",
]

NEW_SESSION_TOOL = {
    "name": "new_session",
    "title": "New Session",
    "description": "Start a fresh search session for a new question or conversation: "
    "search ids restart at s1, cached rankings are forgotten and the time budget restarts "
    "at the next call.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "question": {
                "type": "string",
                "description": "The new question, kept in the session's record (optional).",
            }
        },
        "required": [],
    },
}
"""The optional fourth tool (``--new-session-tool``); not one of pi-search's."""

INSTALL_HINT = 'pip install "rserini[agent]"'
DETAILS_META_KEY = "rserini/details"

log = logging.getLogger("rserini.agent.mcp")


class MissingDependencyError(RuntimeError):
    """The MCP SDK is not installed; the message says how to install it."""


def _import_mcp() -> tuple[Any, Any]:
    try:
        import mcp_types
        from mcp.server.lowlevel import Server
    except ImportError as e:
        raise MissingDependencyError(
            f"serving MCP needs the MCP SDK (mcp>=2.3,<3), which is not installed: {INSTALL_HINT}"
        ) from e
    return Server, mcp_types


def build_server(
    conversations: Conversations,
    options: ToolOptions | None = None,
    *,
    new_session_tool: bool = False,
) -> Any:
    """An ``mcp.server.lowlevel.Server`` offering the tools of a session with
    ``options`` in ``conversations`` (plus ``new_session`` if asked)."""
    server_class, types = _import_mcp()
    import anyio.to_thread

    specs = mcp_tools(options) + ([NEW_SESSION_TOOL] if new_session_tool else [])
    tools = [
        types.Tool(
            name=t["name"],
            title=t["title"],
            description=t["description"],
            input_schema=t["inputSchema"],
        )
        for t in specs
    ]

    async def list_tools(ctx: object, params: object) -> Any:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: Any) -> Any:
        arguments = params.arguments if params.arguments is not None else {}
        key = "stdio"  # a stdio server has one client connection
        if new_session_tool and params.name == "new_session":
            question = arguments.get("question") if isinstance(arguments, dict) else None
            current, record = conversations.restart(
                key, question if isinstance(question, str) else ""
            )
            if record is not None:
                log.info("recorded %s", record)
            text = (
                f"Started session {current.id}: search ids restart at s1 and the time "
                "budget restarts at the next call."
            )
            return types.CallToolResult(content=[types.TextContent(type="text", text=text)])
        # The index releases the GIL; a worker thread keeps the event loop responsive.
        result: ToolResult = await anyio.to_thread.run_sync(
            conversations.call, key, params.name, arguments
        )
        if result.is_error:
            log.info(
                "%s failed: %s", params.name, result.text.splitlines()[0] if result.text else ""
            )
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=result.text)],
            is_error=result.is_error,
            meta={DETAILS_META_KEY: result.details},
        )

    from rserini import __version__

    return server_class(
        "rserini",
        version=__version__,
        instructions="Lexical search tools (BM25) over one rserini index: search, then browse "
        "the cached ranking with read_search_results, then read documents with read_document.",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def serve_stdio(
    index_dir: Path,
    *,
    k1: float,
    b: float,
    options: ToolOptions | None = None,
    budget: Callable[[], TimeBudget] | None = None,
    spill_dir: Path | None = None,
    record_dir: Path | None = None,
    idle_reset: float | None = None,
    new_session_tool: bool = False,
) -> None:
    """Serves MCP on stdin/stdout until the client closes the connection.

    Parameters
    ----------
    budget
        Makes each conversation's time budget (default: ``TIMEOUT_SECONDS``).
    record_dir
        Where each conversation's record and raw events are written when it ends.
    idle_reset
        Seconds of silence after which a call starts a new conversation.
    new_session_tool
        Offer ``new_session``.

    Raises
    ------
    MissingDependencyError
        If ``mcp`` is not installed.
    ValueError
        If the index keeps no documents.
    """
    _import_mcp()
    import anyio
    from mcp.server.stdio import stdio_server

    from rserini import Index

    index = Index.load(index_dir)
    make_budget = budget or TimeBudget

    def make_session() -> SearchSession:
        return SearchSession(
            index, k1=k1, b=b, options=options, budget=make_budget(), spill_dir=spill_dir
        )

    make_session().close()  # an index without documents fails now, not at the first call
    conversations = Conversations(make_session, record_dir=record_dir, idle_reset=idle_reset)
    server = build_server(conversations, options, new_session_tool=new_session_tool)
    log.info("serving %s (%d documents, k1=%s, b=%s) over MCP stdio", index_dir, len(index), k1, b)

    async def run() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    previous = signal.signal(signal.SIGTERM, _exit_on_sigterm)
    try:
        anyio.run(run)
    finally:
        signal.signal(signal.SIGTERM, previous)
        conversations.close()


def _exit_on_sigterm(signum: int, frame: FrameType | None) -> None:
    # SystemExit unwinds through the finally blocks, which remove the spill folder.
    sys.exit(0)
