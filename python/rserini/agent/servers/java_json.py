"""JSON as pi-serini's Java server writes it (Jackson's defaults), for byte-identical RPC lines.

Compact, keys in insertion order, non-ASCII characters raw, control characters escaped as
``\\n``-style short escapes or ``\\u00XX`` (upper-case hex), and floating-point numbers as
Java's ``Double.toString``: ``25.0``, ``12.345``, ``1.0E-4``, ``1.2345E7``. Python ``int``
values are Java ints or longs and print plainly.
"""

from __future__ import annotations

import json
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


def _scalar(value: object) -> str | None:
    """The JSON text of a scalar, or ``None`` for a container."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value} is not a JSON number")
        return java_double(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, dict | list | tuple):
        return None
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def java_json(value: object) -> str:
    """``ObjectMapper.writeValueAsString(value)`` for JSON-shaped Python values.

    Iterative, so that no nesting depth (a request id nested thousands deep) can
    exhaust the stack. ``ValueError`` for NaN or an infinity (not JSON), ``TypeError``
    for a value that is not JSON-shaped.
    """
    try:
        if _plain(value):
            # The C encoder's text is Jackson's here, but for the hex case of \u00XX
            # escapes (control characters): any of those, and the writer below decides.
            text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
            if "\\u00" not in text:
                return text
    except (RecursionError, ValueError):
        pass
    return _java_json(value)


def _plain(value: object) -> bool:
    """Whether Python's ``json`` writes ``value`` as Jackson does (but for control
    characters): plain types only, string keys, and every float where ``repr`` and
    ``Double.toString`` lay out the same digits (zero, and 1e-3 up to 1e7)."""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str or kind is int or kind is bool or item is None:
            continue
        if kind is float:
            x = abs(item)  # type: ignore[arg-type]
            if x == 0 or 1e-3 <= x < 1e7:
                continue
            return False
        if kind is dict:
            for key in item:  # type: ignore[attr-defined]
                if type(key) is not str:
                    return False
            stack.extend(item.values())  # type: ignore[attr-defined]
        elif kind is list or kind is tuple:
            stack.extend(item)  # type: ignore[call-overload]
        else:
            return False
    return True


def _java_json(value: object) -> str:
    """:func:`java_json`, every value written here."""
    out: list[str] = []
    # What is left to write, last first: values, and literal text (brackets, separators).
    stack: list[object] = [value]
    while stack:
        item = stack.pop()
        if type(item) is _Text:
            out.append(item.text)
            continue
        scalar = _scalar(item)
        if scalar is not None:
            out.append(scalar)
        elif isinstance(item, dict):
            out.append("{")
            stack.append(_Text("}"))
            entries = list(item.items())
            for i in range(len(entries) - 1, -1, -1):
                key, member = entries[i]
                stack.append(member)
                stack.append(_Text(("," if i else "") + _string(str(key)) + ":"))
        else:
            out.append("[")
            stack.append(_Text("]"))
            members = list(item)  # type: ignore[call-overload]
            for i in range(len(members) - 1, -1, -1):
                stack.append(members[i])
                if i:
                    stack.append(_Text(","))
    return "".join(out)


class _Text:
    """Literal output on :func:`java_json`'s stack."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text
