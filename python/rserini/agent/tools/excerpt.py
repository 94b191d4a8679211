"""Search-result excerpts as pi-serini's Anserini server renders them.

A query-term window anchored at the earliest match, not a best passage:

1. the query is scanned for ASCII tokens ``[A-Za-z0-9][A-Za-z0-9+._-]*``, lowercased,
   stripped of 23 stopwords and deduplicated;
2. a token of two or more characters *matches* when it is a case-insensitive substring
   (no word boundaries) of ``title + "\\n" + contents``;
3. the window starts ``max(20, max_chars // 4)`` characters before the earliest match of any
   matched token in the trimmed contents (at 0 when nothing matches there) and spans
   ``max_chars`` characters, trimmed, with ``...`` on each side that was cut.

The server is Java, so lengths and offsets count UTF-16 code units, ``trim`` removes the
characters up to U+0020 only and blankness is Java's ``Character.isWhitespace``; this module
reproduces all three, so an excerpt is the server's string for any text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rserini.agent.tools.java_rules import java_blank

__all__ = [
    "SNIPPET_MAX_CHARS",
    "STOPWORDS",
    "Preview",
    "build_excerpt",
    "build_preview",
    "clue_tokens",
    "document_title",
    "matched_terms",
]

SNIPPET_MAX_CHARS = 220
"""The window length the search tool asks for."""

STOPWORDS = frozenset(
    "a an and are as at be by for from in into is it of on or that the their this to with".split()  # noqa: SIM905
)
"""The clue stopwords of the server (not Lucene's list)."""

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9+._-]*")
_TITLE_FIELDS = ("title", "name", "headline")

# Java's String.trim: every character up to U+0020.
_JAVA_TRIM = "".join(map(chr, range(0x21)))
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class Preview:
    """What the server returns for one hit: ``excerpt`` is ``""`` for empty contents,
    ``title`` ``None`` when the document has none."""

    title: str | None
    matched_terms: list[str]
    excerpt: str
    excerpt_truncated: bool


def clue_tokens(text: str) -> list[str]:
    """The distinct lowercased ASCII tokens of ``text`` that are not stopwords, in order."""
    tokens: dict[str, None] = {}
    for match in _TOKEN.finditer(text):
        token = match.group().lower()
        if token not in STOPWORDS:
            tokens.setdefault(token)
    return list(tokens)


def matched_terms(haystack: str, tokens: Sequence[str]) -> list[str]:
    """The tokens of two or more characters that occur in ``haystack``, ignoring case."""
    if java_blank(haystack) or not tokens:
        return []
    lower = haystack.lower()
    return [t for t in tokens if len(t) >= 2 and t.lower() in lower]


def document_title(fields: Mapping[str, object]) -> str | None:
    """The first non-blank string among the ``title``, ``name`` and ``headline`` fields."""
    for name in _TITLE_FIELDS:
        value = fields.get(name)
        if isinstance(value, str) and not java_blank(value):
            return value
    return None


def build_excerpt(contents: str, terms: Sequence[str], max_chars: int = SNIPPET_MAX_CHARS) -> str:
    """The window of ``contents`` around the earliest of ``terms`` (``""`` if blank)."""
    normalized = _utf16(contents.strip(_JAVA_TRIM))
    if not normalized:
        return ""
    start = 0
    if terms:
        lower = normalized.lower()
        found = [i for i in (lower.find(t.lower()) for t in terms) if i >= 0]
        if found:
            start = max(0, min(found) - max(20, max_chars // 4))
    end = min(len(normalized), start + max_chars)
    snippet = normalized[start:end].strip(_JAVA_TRIM)
    if start > 0:
        snippet = "..." + snippet
    if end < len(normalized):
        snippet += "..."
    return _from_utf16(snippet)


def build_preview(
    contents: str,
    title: str | None,
    query: str,
    max_chars: int = SNIPPET_MAX_CHARS,
    tokens: Sequence[str] | None = None,
) -> Preview:
    """The server's preview of one document for a search of ``query`` (the only clue);
    ``tokens``, if given, are ``clue_tokens(query)`` computed once for many documents."""
    haystack = (f"{title}\n" if title is not None else "") + contents
    terms = matched_terms(haystack, clue_tokens(query) if tokens is None else tokens)
    excerpt = build_excerpt(contents, terms, max_chars)
    truncated = _utf16_len(excerpt) < _utf16_len(contents)
    return Preview(title, terms, excerpt, truncated)


def _utf16(text: str) -> str:
    """``text`` with each astral character as its two surrogates, so that indices and
    lengths count UTF-16 code units as Java's do."""
    if text.isascii() or not _ASTRAL.search(text):
        return text
    return _ASTRAL.sub(lambda m: _surrogates(ord(m.group())), text)


def _surrogates(code: int) -> str:
    code -= 0x10000
    return chr(0xD800 + (code >> 10)) + chr(0xDC00 + (code & 0x3FF))


def _from_utf16(text: str) -> str:
    """Joins surrogate pairs back; a pair the window cut in half becomes U+FFFD, as a
    UTF-8 encoder writes a lone surrogate."""
    if text.isascii():
        return text
    text = _PAIR.sub(
        lambda m: chr(0x10000 + ((ord(m.group()[0]) - 0xD800) << 10) + ord(m.group()[1]) - 0xDC00),
        text,
    )
    return _LONE_SURROGATE.sub("\ufffd", text)


def _utf16_len(text: str) -> int:
    return len(text) if text.isascii() else len(text) + len(_ASTRAL.findall(text))
