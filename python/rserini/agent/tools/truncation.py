"""Head truncation of tool output, as the ``pi`` agent host's ``truncateHead`` does it.

Whole leading lines are kept while both limits hold: at most ``MAX_LINES`` lines (split on
``\\n``) and ``MAX_BYTES`` UTF-8 bytes. A first line longer than the byte limit leaves
nothing (``first_line_exceeds_limit``). Sizes print as pi's ``formatSize`` prints them.
"""

from __future__ import annotations

from dataclasses import dataclass

from rserini.agent.tools.jsformat import js_to_fixed

__all__ = ["MAX_BYTES", "MAX_LINES", "Truncation", "format_size", "truncate_head", "utf8_len"]

MAX_LINES = 2000
MAX_BYTES = 50 * 1024


def utf8_len(text: str) -> int:
    """UTF-8 bytes of ``text``; a lone surrogate counts 3, as JavaScript's encoders do."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def format_size(size: int) -> str:
    """``123B``, ``1.5KB`` or ``2.0MB`` (1024-based, one decimal, half up)."""
    if size < 1024:
        return f"{size}B"
    if size < 1024 * 1024:
        return f"{js_to_fixed(size / 1024, 1)}KB"
    return f"{js_to_fixed(size / (1024 * 1024), 1)}MB"


@dataclass(frozen=True)
class Truncation:
    """pi's ``TruncationResult``; :meth:`as_details` is its JSON form in tool details."""

    content: str
    truncated: bool
    truncated_by: str | None
    total_lines: int
    total_bytes: int
    output_lines: int
    output_bytes: int
    last_line_partial: bool
    first_line_exceeds_limit: bool
    max_lines: int
    max_bytes: int

    def as_details(self) -> dict[str, object]:
        """The camelCase object pi stores in ``details.truncation``."""
        return {
            "content": self.content,
            "truncated": self.truncated,
            "truncatedBy": self.truncated_by,
            "totalLines": self.total_lines,
            "totalBytes": self.total_bytes,
            "outputLines": self.output_lines,
            "outputBytes": self.output_bytes,
            "lastLinePartial": self.last_line_partial,
            "firstLineExceedsLimit": self.first_line_exceeds_limit,
            "maxLines": self.max_lines,
            "maxBytes": self.max_bytes,
        }

    def notice(self, path: str, saved: str = "saved to") -> str:
        """The ``[Output truncated: ...]`` line that replaces the cut lines (``saved``:
        how ``path`` is introduced)."""
        omitted_lines = self.total_lines - self.output_lines
        omitted_bytes = self.total_bytes - self.output_bytes
        return (
            f"[Output truncated: showing {self.output_lines} of {self.total_lines} lines "
            f"({format_size(self.output_bytes)} of {format_size(self.total_bytes)}). "
            f"{omitted_lines} lines ({format_size(omitted_bytes)}) omitted. "
            f"Full output {saved}: {path}]"
        )


def truncate_head(text: str, max_lines: int = MAX_LINES, max_bytes: int = MAX_BYTES) -> Truncation:
    """The leading whole lines of ``text`` within both limits."""
    total_bytes = utf8_len(text)
    lines = text.split("\n")
    total_lines = len(lines)
    if total_lines <= max_lines and total_bytes <= max_bytes:
        return Truncation(
            text, False, None, total_lines, total_bytes, total_lines, total_bytes,
            False, False, max_lines, max_bytes,
        )  # fmt: skip
    if utf8_len(lines[0]) > max_bytes:
        return Truncation(
            "", True, "bytes", total_lines, total_bytes, 0, 0, False, True, max_lines, max_bytes
        )
    kept = 0
    size = 0
    by = "lines"
    for i, line in enumerate(lines[:max_lines]):
        length = utf8_len(line) + (1 if i else 0)
        if size + length > max_bytes:
            by = "bytes"
            break
        kept += 1
        size += length
    if kept >= max_lines and size <= max_bytes:
        by = "lines"
    content = "\n".join(lines[:kept])
    return Truncation(
        content, True, by, total_lines, total_bytes, kept, utf8_len(content),
        False, False, max_lines, max_bytes,
    )  # fmt: skip
