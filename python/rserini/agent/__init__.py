"""Agent tools over an :class:`rserini.Index`: pi-search's ``search``,
``read_search_results`` and ``read_document``, faithful by default.

Nothing here imports an optional dependency.
"""

from rserini.agent.excerpt import Preview, build_excerpt, build_preview, clue_tokens
from rserini.agent.lines import LineChunk, read_chunk, split_lines

__all__ = [
    "LineChunk",
    "Preview",
    "build_excerpt",
    "build_preview",
    "clue_tokens",
    "read_chunk",
    "split_lines",
]
