"""Turning a model's tool call into the result message its API expects.

Accepts the call as a dict or as the SDK's object (anything with ``model_dump()``):

- OpenAI Chat Completions ``tool_calls`` entries (``{"id", "type": "function",
  "function": {"name", "arguments": "<json>"}}``) give ``{"role": "tool", "tool_call_id",
  "content"}``;
- OpenAI Responses ``function_call`` items (``{"type": "function_call", "call_id", "name",
  "arguments"}``) give ``{"type": "function_call_output", "call_id", "output"}``;
- Anthropic ``tool_use`` blocks (``{"type": "tool_use", "id", "name", "input"}``) give
  ``{"type": "tool_result", "tool_use_id", "content": [...], "is_error"}``.

With ``drop_nulls=True`` (calls made against
:func:`~rserini.agent.tools.schemas.strict_parameters`) arguments whose value is ``null``
and that the tool does not require are removed, so their defaults apply.

Arguments that are not valid JSON are read as ``{}``, as pi's providers read them, so the
model gets the schema errors of an empty call. Failures are results with the error flag,
never exceptions.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from rserini.agent.tools.results import ToolResult
from rserini.agent.tools.session import SearchSession

__all__ = ["dispatch", "parse_arguments"]


def parse_arguments(raw: object) -> object:
    """A call's arguments: a JSON text parsed (``{}`` if it is not valid JSON, as
    JavaScript's ``JSON.parse`` sees it: no ``NaN``/``Infinity``), anything else as is."""
    if not isinstance(raw, (str, bytes, bytearray)):
        return raw
    if not raw.strip():
        return {}
    try:
        return json.loads(raw, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return {}


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


def dispatch(
    session: SearchSession, call: object, *, drop_nulls: bool = False
) -> tuple[dict[str, object], ToolResult]:
    """Runs ``call`` on ``session``; returns the result message for the model's API and
    the :class:`ToolResult` (its ``is_error`` says whether the call failed). With
    ``drop_nulls``, optional arguments given as ``null`` are left out (strict schemas).

    Raises
    ------
    ValueError
        If ``call`` is not a tool call of a known shape (a caller's bug, not the model's).
    """
    c = _as_dict(call)

    def run(name: object, arguments: object, call_id: str | None) -> ToolResult:
        if drop_nulls and isinstance(arguments, Mapping):
            spec = next((s for s in session.tools if s.name == name), None)
            required = spec.required if spec is not None else ()
            arguments = {k: v for k, v in arguments.items() if v is not None or k in required}
        return session.call(str(name), arguments, call_id)

    if c.get("type") == "tool_use":
        result = run(c.get("name"), c.get("input", {}), _id(c, "id"))
        return {
            "type": "tool_result",
            "tool_use_id": c.get("id"),
            "content": result.content,
            "is_error": result.is_error,
        }, result
    if c.get("type") == "function_call":
        result = run(c.get("name"), parse_arguments(c.get("arguments")), _id(c, "call_id"))
        return {
            "type": "function_call_output",
            "call_id": c.get("call_id"),
            "output": result.text,
        }, result
    function = c.get("function")
    if isinstance(function, Mapping):
        result = run(function.get("name"), parse_arguments(function.get("arguments")), _id(c, "id"))
        return {"role": "tool", "tool_call_id": c.get("id"), "content": result.text}, result
    raise ValueError(
        "not a tool call: expected an OpenAI tool_calls entry, an OpenAI function_call item "
        f"or an Anthropic tool_use block, got keys {sorted(c)}"
    )


def _as_dict(call: object) -> dict[str, object]:
    if isinstance(call, Mapping):
        return dict(call)
    dump = getattr(call, "model_dump", None)
    if callable(dump):
        dumped = dump()
        if isinstance(dumped, Mapping):
            return dict(dumped)
    raise ValueError(f"not a tool call: {type(call).__name__}")


def _id(call: Mapping[str, object], key: str) -> str | None:
    value = call.get(key)
    return value if isinstance(value, str) else None
