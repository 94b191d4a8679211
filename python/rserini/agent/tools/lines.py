"""Document lines and line chunks, as ``read_document`` pages through a document.

A document's lines are its text split as Java's ``text.split("\\\\R", -1)`` splits it: on
``\\r\\n`` or any one of ``\\n \\x0b \\x0c \\r \\x85 \\u2028 \\u2029``, keeping trailing empty
strings. So a text ending in a line break has an empty last line, and empty text is one
line. (``str.splitlines`` differs on both counts and also splits on ``\\x1c``-``\\x1e``.)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["LineChunk", "read_chunk", "split_lines"]

_LINE_BREAK = re.compile("\r\n|[\n\x0b\x0c\r\x85\u2028\u2029]")


def split_lines(text: str) -> list[str]:
    """The lines of ``text``, as Java's ``split("\\\\R", -1)`` gives them."""
    return _LINE_BREAK.split(text)


@dataclass(frozen=True)
class LineChunk:
    """Lines ``returned_line_start``..``returned_line_end`` (1-based, inclusive; ``0``/``0``
    when ``offset`` is past the end) of a document of ``total_lines`` lines, joined with
    ``\\n``. ``truncated`` says more lines follow, from ``next_offset``."""

    offset: int
    limit: int
    total_lines: int
    returned_line_start: int
    returned_line_end: int
    truncated: bool
    next_offset: int | None
    text: str


def read_chunk(lines: Sequence[str], offset: int, limit: int) -> LineChunk:
    """At most ``limit`` lines from line ``offset`` (both clamped to at least 1)."""
    offset = max(offset, 1)
    limit = max(limit, 1)
    total = len(lines)
    start = min(offset - 1, total)
    end = min(start + limit, total)
    inside = start < total
    truncated = end < total
    return LineChunk(
        offset=offset,
        limit=limit,
        total_lines=total,
        returned_line_start=start + 1 if inside else 0,
        returned_line_end=end if inside else 0,
        truncated=truncated,
        next_offset=end + 1 if truncated else None,
        text="\n".join(lines[start:end]),
    )
