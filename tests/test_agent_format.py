"""JavaScript's text forms of values and pi's head truncation, against hand-checked values
and a plain reference."""

from __future__ import annotations

import math
from decimal import ROUND_FLOOR, Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rserini.agent.tools.java_rules import round3_all
from rserini.agent.tools.jsformat import (
    js_json,
    js_number,
    js_parse_float,
    js_string_literal,
    js_to_fixed,
    js_to_number,
    js_trim,
)
from rserini.agent.tools.truncation import format_size, truncate_head


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (6, "6"),
        (6.0, "6"),
        (-2.5, "-2.5"),
        (0.1, "0.1"),
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (1.5e-6, "0.0000015"),
        (1e-7, "1e-7"),
        (123456789.125, "123456789.125"),
        (2**53, "9007199254740992"),
        (10**30, "1e+30"),
        (-0.0, "0"),
        (math.inf, "Infinity"),
    ],
)
def test_js_number(value, text):
    assert js_number(value) == text


def test_to_fixed_rounds_the_binary_value_half_up():
    assert js_to_fixed(12.345, 4) == "12.3450"
    assert js_to_fixed(1.25, 1) == "1.3"  # exact tie: up (Python's format gives 1.2)
    assert js_to_fixed(1.005, 2) == "1.00"  # 1.005 is 1.00499999... in binary
    assert js_to_fixed(-0.0, 4) == "0.0000"
    assert js_to_fixed(-0.00001, 4) == "-0.0000"


def test_sizes_print_as_pi_prints_them():
    assert [format_size(n) for n in (0, 1023, 1024, 1280, 51200, 1024 * 1024, 1_572_864)] == [
        "0B",
        "1023B",
        "1.0KB",
        "1.3KB",
        "50.0KB",
        "1.0MB",
        "1.5MB",
    ]


def test_strings_trim_and_quote_as_javascript():
    assert js_trim("\ufeff\u00a0 x \x1c") == "x \x1c"
    assert (
        js_string_literal('a"\\\n\x01\x7f\u2028\ud800') == '"a\\"\\\\\\n\\u0001\x7f\u2028\\ud800"'
    )
    assert js_json({"a": [1.0, None, True], "b": {}}, 2) == (
        '{\n  "a": [\n    1,\n    null,\n    true\n  ],\n  "b": {}\n}'
    )
    assert js_json({"a": [], "n": math.nan}) == '{"a":[],"n":null}'


_JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**23), max_value=10**23)
    | st.floats()
    | st.sampled_from([0.0, -0.0, 1e-4, 9.99e-5, 1e-7, 2.0**53, 2.0**53 + 2, 1e21, 25.0])
    | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=80, deadline=None)
@given(_JSON_VALUES, st.sampled_from([None, 2]))
def test_js_json_fast_path_equals_the_reference_writer(value, indent):
    """The C encoder's path (values whose Python text is JavaScript's) writes what the
    reference writer (every value by hand) writes, tiny, huge and non-finite numbers,
    lone surrogates and control characters included."""
    from rserini.agent.tools.jsformat import _dump

    assert js_json(value, indent) == _dump(value, " " * indent if indent else "", "")


def test_numbers_from_text():
    assert [js_to_number(t) for t in ["6", " 6 ", "0x10", "1e3", "", "  ", "+5", ".5"]] == [
        6,
        6,
        16,
        1000,
        0,
        0,
        5,
        0.5,
    ]
    assert all(math.isnan(js_to_number(t)) for t in ["abc", "1_0", "-0x10", "0b12", "1 2"])
    assert js_to_number("-Infinity") == -math.inf
    assert [js_parse_float(t) for t in ["300", "300s", " 2.5e1x", "1e", "-1"]] == [
        300,
        300,
        25,
        1,
        -1,
    ]
    assert math.isnan(js_parse_float("abc"))


def reference_truncate(text: str, max_lines: int, max_bytes: int) -> str | None:
    """The longest prefix of whole lines within both limits, or None if nothing is cut."""
    lines = text.split("\n")
    if len(lines) <= max_lines and len(text.encode()) <= max_bytes:
        return None
    best = ""
    for n in range(1, min(len(lines), max_lines) + 1):
        candidate = "\n".join(lines[:n])
        if len(candidate.encode()) > max_bytes:
            break
        best = candidate
    return best


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet=st.sampled_from("ab\u00e9\u4e2d\n"), max_size=60),
    st.integers(1, 8),
    st.integers(1, 40),
)
def test_truncate_head_keeps_the_longest_whole_line_prefix(text, max_lines, max_bytes):
    t = truncate_head(text, max_lines, max_bytes)
    expected = reference_truncate(text, max_lines, max_bytes)
    assert t.truncated == (expected is not None)
    assert t.content == (text if expected is None else expected)
    assert t.total_lines == text.count("\n") + 1
    assert t.output_bytes == len(t.content.encode())
    if t.truncated and not t.first_line_exceeds_limit:
        assert t.output_lines == t.content.count("\n") + 1
        assert t.truncated_by == ("lines" if t.output_lines == max_lines else "bytes")


def test_a_first_line_over_the_byte_limit_keeps_nothing():
    t = truncate_head("x" * 60 + "\nshort", 2000, 50)
    assert (t.content, t.first_line_exceeds_limit, t.output_lines, t.truncated_by) == (
        "",
        True,
        0,
        "bytes",
    )
    assert t.as_details()["firstLineExceedsLimit"] is True


def java_round3(score: float) -> float:
    """Reference: Math.round(x) is floor(x + 1/2) computed exactly, on the double x."""
    scaled = Decimal(score * 1000.0)
    return float((scaled + Decimal("0.5")).to_integral_value(rounding=ROUND_FLOOR)) / 1000.0


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(0, 1e6, width=32), max_size=20))
def test_scores_round_half_up_to_three_decimals(scores):
    assert round3_all(scores) == [java_round3(s) for s in scores]


def test_score_ties_round_up():
    assert round3_all([0.0005, 1.2345, 2.0004999]) == [0.001, 1.235, 2.0]
