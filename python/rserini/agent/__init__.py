"""Agent tools over an :class:`rserini.Index`: pi-search's ``search``,
``read_search_results`` and ``read_document``, faithful by default.

>>> import rserini
>>> from rserini.agent import SearchSession
>>> index = rserini.Index.build([("d1", "Routers forward packets.")], progress=False)
>>> with SearchSession(index) as session:
...     print(session.search("start broad", "router").text.splitlines()[0])
Showing ranks 1-1 of 1 cached hits for search_id=s1

Nothing here imports an optional dependency; the MCP server imports ``mcp`` only when it
starts.
"""

from rserini.agent.budget import TimeBudget
from rserini.agent.dispatch import dispatch
from rserini.agent.excerpt import Preview, build_excerpt, build_preview, clue_tokens
from rserini.agent.lines import LineChunk, read_chunk, split_lines
from rserini.agent.options import ToolOptions
from rserini.agent.results import ToolResult
from rserini.agent.schemas import ToolSpec, anthropic_tools, mcp_tools, openai_tools, tool_specs
from rserini.agent.session import SearchSession

__all__ = [
    "LineChunk",
    "Preview",
    "SearchSession",
    "TimeBudget",
    "ToolOptions",
    "ToolResult",
    "ToolSpec",
    "anthropic_tools",
    "build_excerpt",
    "build_preview",
    "clue_tokens",
    "dispatch",
    "mcp_tools",
    "openai_tools",
    "read_chunk",
    "split_lines",
    "tool_specs",
]
