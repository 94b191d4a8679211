"""The tool definitions, written once, and their forms for each agent API.

pi-search's three tools (names, descriptions, parameter schemas, prompt snippets and
guidelines word for word), plus ``find_in_document`` when enabled. :func:`openai_tools`,
:func:`openai_responses_tools`, :func:`anthropic_tools` and :func:`mcp_tools` give plain
dicts for OpenAI Chat Completions and Responses function calling, Anthropic tool use and
MCP ``tools/list``.

Strict function calling (the Responses API's default, the Agents SDK's
``strict_json_schema=True``) makes every property required, which would turn an omitted
``offset``/``limit`` into an explicit value. :func:`strict_parameters` gives the strict
form: every property required, the optional ones nullable (``"type": ["number", "null"]``);
``dispatch(..., drop_nulls=True)`` removes the nulls before the call, so pi's defaults
still apply.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from rserini.agent.tools.options import ToolOptions

__all__ = [
    "FIND_IN_DOCUMENT",
    "READ_DOCUMENT",
    "READ_SEARCH_RESULTS",
    "SEARCH",
    "ToolSpec",
    "anthropic_tools",
    "mcp_tools",
    "openai_responses_tools",
    "openai_tools",
    "strict_parameters",
    "tool_specs",
]


@dataclass(frozen=True)
class ToolSpec:
    """One tool: its JSON-schema ``parameters`` (an object; ``required`` lists the
    mandatory properties) and the prompt text pi puts in the system prompt."""

    name: str
    label: str
    description: str
    parameters: dict[str, object]
    prompt_snippet: str
    prompt_guidelines: tuple[str, ...]

    @property
    def required(self) -> tuple[str, ...]:
        """The mandatory parameters."""
        return tuple(self.parameters.get("required", ()))  # type: ignore[arg-type]


def _object(properties: dict[str, dict[str, str]], required: list[str]) -> dict[str, object]:
    # TypeBox's Type.Object: the property schemas in order, extra properties allowed.
    return {"type": "object", "properties": properties, "required": required}


def _string(description: str) -> dict[str, str]:
    return {"type": "string", "description": description}


def _number(description: str) -> dict[str, str]:
    return {"type": "number", "description": description}


SEARCH = ToolSpec(
    name="search",
    label="Search",
    description="Search the configured pi-search backend using a raw query string. The first "
    "argument must be reason, a brief rationale of at most 100 words.",
    parameters=_object(
        {
            "reason": _string(
                "Brief rationale for this search, maximum 100 words. Put the specific new "
                "clue, ranking gap, or follow-up goal first. Avoid generic filler like "
                "'searching for more information'."
            ),
            "query": _string(
                "Raw query string. Use concise lexical clues instead of long natural-language "
                "rewrites."
            ),
        },
        ["reason", "query"],
    ),
    prompt_snippet="Always supply reason first, under 100 words. Use query for a concise raw "
    "search string based on the original wording or one grounded refinement. The tool returns "
    "a search_id plus the first page of results.",
    prompt_guidelines=(
        "Always provide reason first. Keep it specific and under 100 words.",
        "Use query as a short raw lexical query string, not a structured object and not raw "
        "Lucene syntax.",
        "Start close to the original wording, then make grounded refinements only after "
        "browsing or reading.",
        "If the current ranking looks partially relevant, browse it before rewriting.",
        "After browsing a ranking that surfaces plausible candidates, inspect one with "
        "read_document(docid).",
    ),
)

READ_SEARCH_RESULTS = ToolSpec(
    name="read_search_results",
    label="Read Search Results",
    description="Read a cached search result set by search_id. Supports offset and limit for "
    "paginated browsing of ranked hits, similar to the built-in read tool. The first argument "
    "must be reason, a brief rationale of at most 100 words.",
    parameters=_object(
        {
            "reason": _string(
                "Brief rationale for browsing this result set, maximum 100 words. State why "
                "the current ranking is worth inspecting before another rewrite."
            ),
            "search_id": _string("Search result set id returned by search(...)."),
            "offset": _number("Rank to start reading from (1-indexed)."),
            "limit": _number("Maximum number of ranked hits to read."),
        },
        ["reason", "search_id"],
    ),
    prompt_snippet="Always supply reason first, with a brief rationale of at most 100 words. "
    "Then read a cached search result set by search_id in paginated ranked-hit chunks using "
    "offset and limit.",
    prompt_guidelines=(
        "Always provide reason as the first argument. Keep it specific and under 100 words.",
        "Use read_search_results to browse deeper ranks from an existing search result set "
        "before rewriting the query.",
        "If the current ranking looks partly relevant, inspect more ranks here rather than "
        "issuing another search immediately.",
        "When browse surfaces plausible candidate biographies, open one with read_document(docid).",
    ),
)

READ_DOCUMENT = ToolSpec(
    name="read_document",
    label="Read Document",
    description="Read a retrieved document by docid. Supports offset and limit for paginated "
    "line-based reading, similar to the built-in read tool. The first argument must be reason, "
    "a brief rationale of at most 100 words.",
    parameters=_object(
        {
            "reason": _string(
                "Brief rationale for opening this document, maximum 100 words. State the "
                "candidate clue or fact you expect to verify in this doc."
            ),
            "docid": _string("Document id to retrieve"),
            "offset": _number("Line number to start reading from (1-indexed)."),
            "limit": _number("Maximum number of lines to read."),
        },
        ["reason", "docid"],
    ),
    prompt_snippet="Always supply reason first, with a brief rationale of at most 100 words. "
    "Then read a retrieved document by docid in paginated line-based chunks using offset and "
    "limit.",
    prompt_guidelines=(
        "Always provide reason as the first argument. Keep it specific and under 100 words.",
        "Use read_document to verify evidence from a specific docid before answering.",
        "Start with offset=1 and a moderate limit when first reading a document.",
        "If a document is truncated and still looks relevant, continue reading the same "
        "document with the suggested next offset before launching many new searches.",
    ),
)

FIND_IN_DOCUMENT = ToolSpec(
    name="find_in_document",
    label="Find In Document",
    description="Find the lines of a document that best match a query, ranked by BM25 over "
    "short runs of lines, with their line numbers. Use it to jump into a long document before "
    "reading it with read_document. The first argument must be reason, a brief rationale of at "
    "most 100 words.",
    parameters=_object(
        {
            "reason": _string(
                "Brief rationale for searching inside this document, maximum 100 words. State "
                "the clue or fact you expect to locate."
            ),
            "docid": _string("Document id to search within."),
            "query": _string("Raw query string: the words to look for in this document."),
            "limit": _number("Maximum number of passages to return (default 3)."),
        },
        ["reason", "docid", "query"],
    ),
    prompt_snippet="Always supply reason first, under 100 words. Then find the best-matching "
    "lines of a long document by docid and a short raw query; the result gives line numbers to "
    "continue with read_document.",
    prompt_guidelines=(
        "Always provide reason as the first argument. Keep it specific and under 100 words.",
        "Use find_in_document when a relevant document is long, instead of paging through it "
        "from the start.",
        "Continue with read_document at the suggested offset to read the context of a match.",
    ),
)


def tool_specs(options: ToolOptions | None = None) -> list[ToolSpec]:
    """The tools a session with ``options`` offers, in order."""
    specs = [SEARCH, READ_SEARCH_RESULTS, READ_DOCUMENT]
    if options is not None and options.find_in_document:
        specs.append(FIND_IN_DOCUMENT)
    return specs


def openai_tools(options: ToolOptions | None = None) -> list[dict[str, object]]:
    """OpenAI Chat Completions ``tools``: ``{"type": "function", "function": {...}}``."""
    return [
        {
            "type": "function",
            "function": {
                "name": s.name,
                "description": s.description,
                "parameters": copy.deepcopy(s.parameters),
            },
        }
        for s in tool_specs(options)
    ]


def anthropic_tools(options: ToolOptions | None = None) -> list[dict[str, object]]:
    """Anthropic Messages ``tools``: ``{"name", "description", "input_schema"}``."""
    return [
        {"name": s.name, "description": s.description, "input_schema": copy.deepcopy(s.parameters)}
        for s in tool_specs(options)
    ]


def mcp_tools(options: ToolOptions | None = None) -> list[dict[str, object]]:
    """MCP ``tools/list`` entries: ``{"name", "title", "description", "inputSchema"}``."""
    return [
        {
            "name": s.name,
            "title": s.label,
            "description": s.description,
            "inputSchema": copy.deepcopy(s.parameters),
        }
        for s in tool_specs(options)
    ]


def strict_parameters(spec: ToolSpec) -> dict[str, object]:
    """``spec``'s parameters for strict function calling: every property required, the
    optional ones nullable, no other property allowed."""
    parameters = copy.deepcopy(spec.parameters)
    properties = parameters["properties"]
    assert isinstance(properties, dict)
    for name, schema in properties.items():
        if name not in spec.required:
            schema["type"] = [schema["type"], "null"]
    parameters["required"] = list(properties)
    parameters["additionalProperties"] = False
    return parameters


def openai_responses_tools(
    options: ToolOptions | None = None, *, strict: bool = False
) -> list[dict[str, object]]:
    """OpenAI Responses ``tools``: flat ``{"type": "function", "name", "description",
    "parameters", "strict"}``.

    With ``strict=False`` (default) the schemas are pi's and optional arguments stay
    optional. With ``strict=True`` they are :func:`strict_parameters`; dispatch the calls
    with ``drop_nulls=True``.
    """
    return [
        {
            "type": "function",
            "name": s.name,
            "description": s.description,
            "parameters": strict_parameters(s) if strict else copy.deepcopy(s.parameters),
            "strict": strict,
        }
        for s in tool_specs(options)
    ]
