"""Docids cited in an agent's final answer: ``[123]``, ``[12, 34]``, ``【7】``.

Pi-serini's extractor, made configurable: the *pattern* of a docid defaults to ASCII digit
runs, so ``[12, 34]`` cites 12 and 34, ``[doc 7]`` cites 7 and ``[1990]`` cites 1990, as
in the original. Collections with other docids pass their own pattern
(``r"[A-Za-z0-9_.:-]+"``, say); it is matched inside every bracket group.
"""

from __future__ import annotations

import re

__all__ = ["NUMERIC_DOCID", "extract_citations"]

NUMERIC_DOCID = r"[0-9]+"
"""The default docid pattern: a run of ASCII digits (what pi-serini recognises)."""

# (open, close) bracket pairs, searched in this order: ASCII, then full-width.
_BRACKETS = (("[", "]"), ("【", "】"))


def extract_citations(text: str, pattern: str = NUMERIC_DOCID) -> list[str]:
    """The docids an answer cites, deduplicated in pi-serini's order.

    For each bracket pair in turn, first every group that is a docid as a whole
    (``[123]``), then every docid inside every group without nested brackets
    (``[12, 34]``); ASCII brackets before full-width ``【…】`` ones.

    Parameters
    ----------
    text
        The agent's final answer.
    pattern
        A regular expression matching one docid (default: ASCII digit runs).

    Returns
    -------
    list[str]
        The cited docids, each once, in first-seen order of that scan.

    Raises
    ------
    re.error
        If ``pattern`` is not a valid regular expression.
    """
    docid = re.compile(pattern)
    cited: dict[str, None] = {}
    for open_, close in _BRACKETS:
        o, c = re.escape(open_), re.escape(close)
        whole = re.compile(f"{o}({pattern}){c}")
        group = re.compile(f"{o}([^{o}{c}]*?){c}")
        for match in whole.finditer(text):
            if match[1]:
                cited.setdefault(match[1])
        for match in group.finditer(text):
            for inner in docid.finditer(match[1]):
                if inner[0]:
                    cited.setdefault(inner[0])
    return list(cited)
