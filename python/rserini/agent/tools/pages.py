"""Pages of a cached ranking and chunks of a document, as the model sees them.

The texts are pi-search's, byte for byte: a page lists absolute ranks with 4-decimal
scores, an optional ``Title:`` line and an ``Excerpt:`` line, then ready-to-copy JSON call
hints; a document chunk has a ``[docid=... lines s-e of n]`` header and a continuation line
when lines remain. Both are trimmed as JavaScript's ``trim`` trims.
"""

from __future__ import annotations

from collections.abc import Callable

from rserini.agent.tools.cache import CachedSearch
from rserini.agent.tools.jsformat import js_number, js_string_literal, js_to_fixed, js_trim
from rserini.agent.tools.lines import LineChunk

__all__ = [
    "NO_SNIPPET",
    "format_document_chunk",
    "format_search_page",
    "hit_line_spans",
    "search_page",
]

NO_SNIPPET = (
    "(No snippet available from this backend. Use read_document(docid) to inspect the document.)"
)


def search_page(
    entry: CachedSearch,
    offset: int,
    limit: int,
    preview: Callable[[int], dict[str, object] | None],
    timing: dict[str, float] | None = None,
) -> dict[str, object]:
    """The page object of pi-search (camelCase, as spilled to JSON): ranks ``offset`` to
    ``offset + limit - 1`` clamped to the ranking; ``preview(i)`` gives the title and
    snippet fields of position ``i``, or ``None`` for a hit shown without them."""
    total = len(entry)
    start = min(offset - 1, total)
    end = min(start + limit, total)
    results: list[dict[str, object]] = []
    for i in range(start, end):
        hit: dict[str, object] = {"docid": entry.docids[i], "score": entry.scores[i]}
        fields = preview(i)
        if fields is not None:
            hit.update(fields)
        hit["rank"] = i + 1
        results.append(hit)
    page: dict[str, object] = {
        "searchId": entry.search_id,
        "rawQuery": entry.raw_query,
        "queryMode": entry.query_mode,
        "totalCached": total,
        "offset": offset,
        "limit": limit,
        "returnedRankStart": start + 1 if results else 0,
        "returnedRankEnd": end if results else 0,
    }
    if end < total:
        page["nextOffset"] = end + 1
    if timing is not None:
        page["timingMs"] = timing
    page["results"] = results
    return page


def format_search_page(page: dict[str, object]) -> str:
    """The model-visible text of a page."""
    sid = page["searchId"]
    query_line = f"Plain query: {js_string_literal(str(page['rawQuery']))}"
    results = page["results"]
    assert isinstance(results, list)
    if not results:
        return "\n".join(
            [
                f"No cached hits remain for search_id={sid}.",
                query_line,
                f"Cached hits in this ranking: {page['totalCached']}",
            ]
        )
    lines = [
        f"Showing ranks {page['returnedRankStart']}-{page['returnedRankEnd']} of "
        f"{page['totalCached']} cached hits for search_id={sid}",
        query_line,
        "",
    ]
    for hit in results:
        lines += _hit_block(hit)
        lines.append("")
    if "nextOffset" in page:
        lines.append(
            f'Use read_search_results({{"search_id":"{sid}","offset":'
            f'{js_number(page["nextOffset"])},"limit":{js_number(page["limit"])}}}) '  # type: ignore[arg-type]
            "to inspect more hits from this same ranking."
        )
    lines.append("Use read_document(docid) to inspect a specific document in paginated chunks.")
    return js_trim("\n".join(lines))


def _hit_block(hit: dict[str, object]) -> list[str]:
    """The entries of one hit (an excerpt keeps its raw newlines)."""
    score = hit.get("score")
    score_text = f" score={js_to_fixed(score, 4)}" if isinstance(score, float) else ""
    block = [f"{hit['rank']}. docid={hit['docid']}{score_text}"]
    if hit.get("title"):
        block.append(f"   Title: {hit['title']}")
    if hit.get("snippet"):
        block.append(f"   Excerpt: {hit['snippet']}")
        if hit.get("snippetTruncated"):
            block.append("   Excerpt preview truncated.")
    else:
        block.append(f"   Excerpt: {NO_SNIPPET}")
    return block


def hit_line_spans(page: dict[str, object]) -> list[tuple[int, int]]:
    """For each hit of a non-empty page, the text lines (0-based, split on ``\\n``) of its
    ``docid=`` line and of its block's last line in :func:`format_search_page`'s text:
    what an output cut after line N left of it."""
    results = page["results"]
    assert isinstance(results, list)
    spans = []
    line = 3  # the two header lines and a blank one
    for hit in results:
        size = sum(entry.count("\n") + 1 for entry in _hit_block(hit))
        spans.append((line, line + size - 1))
        line += size + 1
    return spans


def format_document_chunk(docid: str, chunk: LineChunk) -> str:
    """The model-visible text of a document chunk."""
    lines = [
        f"[docid={docid} lines {chunk.returned_line_start}-{chunk.returned_line_end} "
        f"of {chunk.total_lines}]",
        "",
        chunk.text,
    ]
    if chunk.truncated and chunk.next_offset:
        lines.append("")
        lines.append(
            f'[Document truncated. Continue with read_document({{"docid":"{docid}",'
            f'"offset":{js_number(chunk.next_offset)},"limit":{js_number(chunk.limit)}}}).]'
        )
    return js_trim("\n".join(lines))
