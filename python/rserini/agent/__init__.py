"""Agent tools over an :class:`rserini.Index`: pi-search's ``search``,
``read_search_results`` and ``read_document``, faithful by default.

>>> import rserini
>>> from rserini.agent import SearchSession
>>> index = rserini.Index.build([("d1", "Routers forward packets.")], progress=False)
>>> with SearchSession(index) as session:
...     print(session.search("start broad", "router").text.splitlines()[0])
Showing ranks 1-1 of 1 cached hits for search_id=s1

The package has four parts: ``tools/`` (the tools, their session and what they render),
``servers/`` (the tools behind a protocol: MCP, HTTP, JSON-lines RPC, an agent API's tool
call), ``llm/`` (model endpoints: OpenAI Chat Completions and Responses, Anthropic
Messages) and ``runs/`` (agents over query sets, their records, the judge and the
metrics). Nothing here imports an optional dependency: the MCP server imports ``mcp`` when
it starts, a model client its SDK when it is made.
"""

from rserini.agent.runs.scripted import ScriptedAgent
from rserini.agent.runs.trajectory import Trajectory
from rserini.agent.servers.dispatch import dispatch
from rserini.agent.tools.budget import TimeBudget
from rserini.agent.tools.options import ToolOptions
from rserini.agent.tools.schemas import (
    anthropic_tools,
    mcp_tools,
    openai_responses_tools,
    openai_tools,
    strict_parameters,
)
from rserini.agent.tools.session import SearchSession

__all__ = [
    "ScriptedAgent",
    "SearchSession",
    "TimeBudget",
    "ToolOptions",
    "Trajectory",
    "anthropic_tools",
    "dispatch",
    "mcp_tools",
    "openai_responses_tools",
    "openai_tools",
    "strict_parameters",
]
