"""Tool-argument validation as the ``pi`` host does it before a tool runs.

pi checks a call's arguments against the tool's schema with Ajv (``allErrors``,
``coerceTypes``): scalars are coerced when JavaScript can (``"6"`` to 6, ``7`` to ``"7"``,
``null`` to ``""`` or 0, booleans to ``"true"`` or 1), anything else is an error, and every
error is listed. A failed call never reaches the tool; the model gets
``Validation failed for tool "<name>": ...`` with the arguments as received.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from rserini.agent.tools.jsformat import js_number, js_to_number
from rserini.agent.tools.messages import validation_failed
from rserini.agent.tools.schemas import ToolSpec

__all__ = ["ArgumentsError", "validate_arguments"]


class ArgumentsError(ValueError):
    """Arguments that fail the tool's schema; ``str()`` is the model-visible text."""


def validate_arguments(spec: ToolSpec, arguments: object) -> dict[str, object]:
    """The arguments coerced to the schema's types.

    Raises
    ------
    ArgumentsError
        With pi's message, when the arguments are not an object, miss a required
        property or hold a value that cannot be coerced.
    """
    if not isinstance(arguments, Mapping):
        raise ArgumentsError(validation_failed(spec.name, ["  - root: must be object"], arguments))
    errors = [
        f"  - {name}: must have required property '{name}'"
        for name in spec.required
        if name not in arguments
    ]
    coerced = dict(arguments)
    properties = spec.parameters["properties"]
    assert isinstance(properties, dict)
    for name, schema in properties.items():
        if name not in arguments:
            continue
        value = _coerce(arguments[name], schema["type"])
        if value is _INVALID:
            errors.append(f"  - {name}: must be {schema['type']}")
        else:
            coerced[name] = value
    if errors:
        raise ArgumentsError(validation_failed(spec.name, errors, dict(arguments)))
    return coerced


_INVALID = object()


def _coerce(value: object, kind: str) -> object:
    if kind == "string":
        if isinstance(value, str):
            return value
        if value is None:
            return ""
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (int, float)):
            return js_number(value)
        return _INVALID
    # "number"
    if isinstance(value, bool):
        return 1 if value else 0
    if isinstance(value, (int, float)):
        return value
    if value is None:
        return 0
    if isinstance(value, str) and value:
        number = js_to_number(value)
        if not math.isnan(number):
            return number
    return _INVALID
