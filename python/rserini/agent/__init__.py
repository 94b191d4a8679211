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
from rserini.agent.citations import extract_citations
from rserini.agent.dispatch import dispatch
from rserini.agent.excerpt import Preview, build_excerpt, build_preview, clue_tokens
from rserini.agent.lines import LineChunk, read_chunk, split_lines
from rserini.agent.options import ToolOptions
from rserini.agent.results import ToolResult
from rserini.agent.schemas import ToolSpec, anthropic_tools, mcp_tools, openai_tools, tool_specs
from rserini.agent.scripted import ScriptedAgent
from rserini.agent.session import SearchSession
from rserini.agent.trajectory import Trajectory

__all__ = [
    "LineChunk",
    "Preview",
    "ScriptedAgent",
    "SearchSession",
    "TimeBudget",
    "ToolOptions",
    "ToolResult",
    "ToolSpec",
    "Trajectory",
    "anthropic_tools",
    "build_excerpt",
    "build_preview",
    "clue_tokens",
    "dispatch",
    "extract_citations",
    "mcp_tools",
    "openai_tools",
    "read_chunk",
    "split_lines",
    "tool_specs",
]
