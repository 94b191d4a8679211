"""The text shown beside a hit of ``rserini search --index``: a stored document's title or
first line of text, trimmed to a width, with the words that match the query highlighted."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from rserini._core import DOCID_FIELDS, Analyzer

# The fields that name a document rather than hold its text.
ID_FIELDS = frozenset(DOCID_FIELDS)
# The fields whose first line stands for a document when it has no title, in this order.
TEXT_FIELDS = ("contents", "text", "body", "abstract")
WORD = re.compile(r"\w+(?:['\u2019]\w+)*")  # a possessive or contraction stays one word
BOLD, RESET = "\x1b[1m", "\x1b[0m"
ELLIPSIS = "…"


def text_fields(
    doc: Mapping[str, object], fields: Sequence[str] | None = None
) -> dict[str, object]:
    """The stored fields of ``doc`` to show: ``fields`` in that order (those it has), or
    every field but its id."""
    if fields is not None:
        return {name: doc[name] for name in fields if name in doc}
    return {name: value for name, value in doc.items() if name not in ID_FIELDS}


def first_line(value: object) -> str:
    """The first non-blank line of a field's value, its runs of whitespace made one space."""
    text = value if isinstance(value, str) else str(value)
    for line in text.splitlines():
        if line.strip():
            return " ".join(line.split())
    return ""


def display_text(doc: Mapping[str, object], fields: Sequence[str] | None = None) -> str:
    """One line for ``doc``: the chosen ``fields`` joined by `` | ``; by default its title,
    else the first line of its text (``contents``, ``text``...), else of its first field."""
    shown = text_fields(doc, fields)
    if fields is not None:
        return " | ".join(line for line in map(first_line, shown.values()) if line)
    for name in ("title", *TEXT_FIELDS, *shown):
        line = first_line(shown[name]) if name in shown else ""
        if line:
            return line
    return ""


def trim(text: str, width: int) -> str:
    """``text`` cut to at most ``width`` characters, the last one an ellipsis if cut."""
    if width <= 0:
        return ""
    return text if len(text) <= width else text[: width - 1] + ELLIPSIS


def highlight(text: str, terms: set[str], analyzer: Analyzer) -> str:
    """``text`` with each word whose analyzed form is one of ``terms`` in bold (ANSI)."""
    words = list(WORD.finditer(text))
    if not words or not terms:
        return text
    tokens = analyzer.analyze_batch([w.group() for w in words])
    out, end = [], 0
    for word, analyzed in zip(words, tokens, strict=True):
        if terms.intersection(analyzed):
            out += [text[end : word.start()], BOLD, word.group(), RESET]
            end = word.end()
    return "".join([*out, text[end:]])
