"""JavaScript's text forms of values, for model-visible text that must match pi-search's.

pi-search is TypeScript: its numbers print as ``String(n)`` and ``n.toFixed(d)``, its
strings are trimmed by ``String.prototype.trim`` and quoted by ``JSON.stringify``. Python's
own forms differ at the edges (``6.0``, ``1e-07``, round-half-even, ``\\x1c`` as space),
so the renderers use these.
"""

from __future__ import annotations

import json
import math
import re
from decimal import ROUND_HALF_UP, Decimal

__all__ = [
    "js_json",
    "js_number",
    "js_parse_float",
    "js_string_literal",
    "js_to_fixed",
    "js_to_number",
    "js_trim",
    "well_formed",
]

# ECMAScript WhiteSpace and LineTerminator: what String.prototype.trim removes.
_JS_SPACE = (
    "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def well_formed(text: str) -> str:
    """``text`` with each lone surrogate as U+FFFD, as JavaScript's UTF-8 encoders write it."""
    return text if text.isascii() else _LONE_SURROGATE.sub("\ufffd", text)


def js_trim(text: str) -> str:
    """``text.trim()``."""
    return text.strip(_JS_SPACE)


_DECIMAL_LITERAL = re.compile(r"[+-]?(?:Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)")
_RADIX_LITERAL = re.compile(r"0([xXoObB])([0-9a-fA-F]+)")
_RADIX = {"x": 16, "o": 8, "b": 2}


def js_to_number(text: str) -> float:
    """``Number(text)``: a decimal, ``Infinity`` or ``0x``/``0o``/``0b`` literal inside
    optional whitespace (blank text is 0), else NaN."""
    body = js_trim(text)
    if not body:
        return 0.0
    if _DECIMAL_LITERAL.fullmatch(body):
        return float(body.replace("Infinity", "inf"))
    radix = _RADIX_LITERAL.fullmatch(body)
    if radix:
        try:
            return float(int(radix.group(2), _RADIX[radix.group(1).lower()]))
        except ValueError:
            return math.nan
    return math.nan


def js_parse_float(text: str) -> float:
    """``parseFloat(text)``: the longest decimal prefix after leading whitespace, else NaN."""
    match = _DECIMAL_LITERAL.match(text.lstrip(_JS_SPACE))
    if not match:
        return math.nan
    # The optional exponent group makes "1e" read as 1, as parseFloat reads it.
    return float(match.group().replace("Infinity", "inf"))


def js_number(value: float) -> str:
    """``String(value)``: integers without ``.0``, exponents as ``1e+21`` / ``1e-7``."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) < 10**21:
        return str(value)
    x = float(value)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"
    # Python's repr and JavaScript pick the same shortest round-trip digits s (k of
    # them) with x = s * 10**(n - k); only the layout rule (ECMA-262 Number::toString)
    # differs.
    sign = "-" if x < 0 else ""
    exact = Decimal(repr(abs(x))).normalize()
    _, digit_tuple, exponent = exact.as_tuple()
    s = "".join(map(str, digit_tuple))
    k = len(s)
    n = int(exponent) + k
    if k <= n <= 21:
        return sign + s + "0" * (n - k)
    if 0 < n <= 21:
        return sign + s[:n] + "." + s[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * -n + s
    mantissa = s[0] + ("." + s[1:] if k > 1 else "")
    return f"{sign}{mantissa}e{'+' if n - 1 > 0 else '-'}{abs(n - 1)}"


def js_to_fixed(value: float, digits: int) -> str:
    """``value.toFixed(digits)``: the exact binary value rounded half away from zero
    (``-0`` prints as ``0``, a small negative value keeps its sign)."""
    x = float(value) + 0.0  # -0.0 + 0.0 is +0.0
    if not math.isfinite(x) or abs(x) >= 1e21:
        return js_number(x)
    return str(Decimal(x).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


def js_string_literal(text: str) -> str:
    """``JSON.stringify(text)``: lone surrogates escaped, everything else non-ASCII raw."""
    return _escape_lone_surrogates(json.dumps(text, ensure_ascii=False))


def js_json(value: object, indent: int | None = None) -> str:
    """``JSON.stringify(value, null, indent)`` for JSON-shaped values (dicts, lists,
    strings, numbers, booleans, ``None`` as ``null``): compact without ``indent``,
    numbers as JavaScript prints them (non-finite ones as ``null``)."""
    try:
        plain = _plain(value)
    except (_NotPlainError, RecursionError):
        return _dump(value, " " * indent if indent else "", "")
    # The C encoder, on values whose Python text is JavaScript's (see _plain).
    if indent:
        text = json.dumps(plain, ensure_ascii=False, indent=indent, check_circular=False)
    else:
        text = json.dumps(plain, ensure_ascii=False, separators=(",", ":"), check_circular=False)
    return _escape_lone_surrogates(text)


class _NotPlainError(Exception):
    """A value whose Python JSON text is not JavaScript's."""


_INT_TEXT_LIMIT = 10**21  # JavaScript prints larger numbers with an exponent
_EXACT_INT = 2**53  # integral doubles below this print the same digits as Python ints


def _plain(value: object) -> object:
    """``value`` with each float as Python's ``json`` must see it to print JavaScript's
    text (integral ones as ints, non-finite ones as ``None``); :class:`_NotPlainError` when
    a number or key would print differently (tiny or huge numbers, non-string keys,
    subclasses), for :func:`_dump` to write.

    Python's ``repr`` and JavaScript pick the same shortest digits; they lay them out the
    same way for non-integral doubles from 1e-4 up (below 2**53 all of them are), and for
    ints below 1e21.
    """
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return value
    if kind is int:
        if -_INT_TEXT_LIMIT < value < _INT_TEXT_LIMIT:  # type: ignore[operator]
            return value
        raise _NotPlainError
    if kind is float:
        x: float = value  # type: ignore[assignment]
        if not math.isfinite(x):
            return None
        if x.is_integer():
            if -_EXACT_INT < x < _EXACT_INT:
                return int(x)
            raise _NotPlainError
        if abs(x) >= 1e-4:
            return x
        raise _NotPlainError
    if kind is dict:
        plain = {}
        for key, member in value.items():  # type: ignore[attr-defined]
            if type(key) is not str:
                raise _NotPlainError
            plain[key] = _plain(member)
        return plain
    if kind is list or kind is tuple:
        return [_plain(member) for member in value]  # type: ignore[attr-defined]
    raise _NotPlainError


def _dump(value: object, step: str, pad: str) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return js_number(value) if math.isfinite(value) else "null"
    if isinstance(value, str):
        return js_string_literal(value)
    inner = pad + step
    if isinstance(value, dict):
        items = [
            js_string_literal(str(k)) + (": " if step else ":") + _dump(v, step, inner)
            for k, v in value.items()
        ]
        open_, close = "{", "}"
    elif isinstance(value, (list, tuple)):
        items = [_dump(v, step, inner) for v in value]
        open_, close = "[", "]"
    else:
        raise TypeError(f"not a JSON value: {type(value).__name__}")
    if not items:
        return open_ + close
    if not step:
        return open_ + ",".join(items) + close
    return f"{open_}\n{inner}" + f",\n{inner}".join(items) + f"\n{pad}{close}"


def _escape_lone_surrogates(text: str) -> str:
    if text.isascii():
        return text
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
