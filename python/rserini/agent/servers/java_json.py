"""JSON as pi-serini's Java server writes it (Jackson's defaults), for byte-identical RPC lines.

Compact, keys in insertion order, non-ASCII characters raw, control characters escaped as
``\\n``-style short escapes or ``\\u00XX`` (upper-case hex), and floating-point numbers as
Java's ``Double.toString``: ``25.0``, ``12.345``, ``1.0E-4``, ``1.2345E7``. Python ``int``
values are Java ints or longs and print plainly.
"""

from __future__ import annotations

import math

__all__ = ["java_double", "java_json"]

_SHORT = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def java_double(value: float) -> str:
    """``Double.toString(value)`` (shortest round-trip digits, as JDK 19+)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1, value) < 0 else "0.0"
    sign = "-" if value < 0 else ""
    # The shortest round-trip digits of |value| and the position of its decimal point,
    # from repr ("12.345", "0.0001", "1e+16", "1.5e-07").
    mantissa, _, exponent = repr(abs(value)).partition("e")
    int_part, _, frac_part = mantissa.partition(".")
    raw = int_part + frac_part
    significant = raw.lstrip("0")
    point = len(int_part) + int(exponent or 0) - (len(raw) - len(significant))
    digits = significant.rstrip("0") or "0"
    magnitude = abs(value)
    if 1e-3 <= magnitude < 1e7:
        if point <= 0:
            return f"{sign}0.{'0' * -point}{digits}"
        whole = digits[:point].ljust(point, "0")
        frac = digits[point:] or "0"
        return f"{sign}{whole}.{frac}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{point - 1}"


def _string(text: str) -> str:
    out = []
    for ch in text:
        short = _SHORT.get(ch)
        if short is not None:
            out.append(short)
        elif ch < " ":
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def java_json(value: object) -> str:
    """``ObjectMapper.writeValueAsString(value)`` for JSON-shaped Python values."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return java_double(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, dict):
        return "{" + ",".join(f"{_string(str(k))}:{java_json(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(java_json(v) for v in value) + "]"
    raise TypeError(f"not a JSON value: {type(value).__name__}")
