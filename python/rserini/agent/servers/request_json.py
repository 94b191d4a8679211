"""The one bound and parser for what a client sends the servers.

Every request (an HTTP body, an RPC line) is at most :data:`MAX_REQUEST_BYTES`, the
core's default query limit, so that no request can ask for more work than one maximal
query; highlight and rerank clues are at most :data:`MAX_CLUES`, and documents rendered
in one request at most :data:`MAX_RENDER_DOCIDS` (a 1 MiB line of docids times the
clues took half a minute). :func:`parse_request`
refuses numbers JSON cannot echo (``NaN``, ``Infinity``, ``1e400``) and nesting too deep
to parse, each as a ``ValueError``.
"""

from __future__ import annotations

import json
import math

__all__ = ["MAX_CLUES", "MAX_RENDER_DOCIDS", "MAX_REQUEST_BYTES", "parse_request"]

MAX_REQUEST_BYTES = 1024 * 1024
"""Longest HTTP body or RPC line read; a longer one is refused."""
MAX_CLUES = 256
"""Most highlight or rerank clues in one request."""
MAX_RENDER_DOCIDS = 1000
"""Most documents rendered by one ``render_search_results``."""


def _constant(name: str) -> object:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is out of the range of a double")
    return value


def parse_request(text: str) -> object:
    """The JSON value of ``text``, or ``ValueError`` (for a non-finite number too, and
    for nesting deeper than the parser's stack)."""
    try:
        return json.loads(text, parse_constant=_constant, parse_float=_finite)
    except RecursionError:
        raise ValueError("nested too deeply") from None
