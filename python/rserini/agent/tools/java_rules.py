"""Java's rules for the values pi-serini's Anserini server prints: its score rounding
and ``String.isBlank``. Shared by the tools and the servers that must print what it
prints."""

from __future__ import annotations

import numpy as np

__all__ = ["java_blank", "round3_all"]

# Java's Character.isWhitespace: the Unicode separators except the no-break spaces, plus
# the ASCII controls \t \n \v \f \r and the four information separators.
_JAVA_SPACE = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2008\u2009\u200a\u2028\u2029\u205f\u3000"
)


def java_blank(text: str) -> bool:
    """Java's ``text.isBlank()``: empty, or nothing but Java whitespace."""
    return not text.strip(_JAVA_SPACE)


def round3_all(scores: list[float]) -> list[float]:
    """Each score as the Anserini server rounds it, Java's
    ``Math.round(score * 1000.0) / 1000.0``: half up, on the double product."""
    scaled = np.asarray(scores, dtype=np.float64) * 1000.0
    whole = np.floor(scaled)
    whole += scaled - whole >= 0.5
    rounded: list[float] = (whole / 1000.0).tolist()
    return rounded
