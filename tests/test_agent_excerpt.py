"""The search-result excerpt of pi-serini's server and the document lines of read_document."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from rserini.agent.tools.excerpt import (
    build_excerpt,
    build_preview,
    clue_tokens,
    document_title,
    matched_terms,
)
from rserini.agent.tools.lines import read_chunk, split_lines

# --- clue tokens and matching ------------------------------------------------------------


def test_clue_tokens_are_ascii_lowercase_deduplicated_without_stopwords():
    assert clue_tokens("The C++ code of Foo.Bar and foo.bar, in 2024!") == [
        "c++",
        "code",
        "foo.bar",
        "2024",
    ]
    # Non-ASCII letters split tokens: "café" gives "caf".
    assert clue_tokens("café naïve") == ["caf", "na", "ve"]
    assert clue_tokens("the of and") == []


def test_matching_is_substring_and_skips_one_letter_tokens():
    tokens = clue_tokens("x network ing")
    assert tokens == ["x", "network", "ing"]
    # "network" inside "networks", "ing" inside "routing"; "x" is too short.
    assert matched_terms("Routing between NETWORKS x", tokens) == ["network", "ing"]
    assert matched_terms("   \t", tokens) == []


def test_title_is_the_first_non_blank_string_field():
    assert document_title({"title": " \u2003", "name": 7, "headline": "H"}) == "H"
    assert document_title({"title": "T", "name": "N"}) == "T"
    # A no-break space is not Java whitespace, so it is a title.
    assert document_title({"title": "\u00a0"}) == "\u00a0"
    assert document_title({"id": "d1", "contents": "x"}) is None


# --- the window --------------------------------------------------------------------------


def test_window_starts_55_before_the_earliest_match_and_spans_220():
    contents = "a" * 100 + "needle" + "b" * 300
    excerpt = build_excerpt(contents, ["needle"])
    body = ("a" * 55 + "needle" + "b" * 300)[:220]
    assert excerpt == "..." + body + "..."


def test_window_without_match_is_the_head_and_short_text_is_whole():
    assert build_excerpt("  short text \n", []) == "short text"
    assert build_excerpt("x" * 230, ["zzz"]) == "x" * 220 + "..."
    assert build_excerpt(" \n\t ", ["a"]) == ""


def test_window_is_trimmed_inside_and_keeps_newlines():
    contents = "intro\n\n" + " " * 60 + "target line\nnext"
    excerpt = build_excerpt(contents, ["target"])
    # start = 67 - 55 = 12 falls in the run of spaces, which the trim removes.
    assert excerpt == "...target line\nnext"


def test_earliest_match_of_any_term_anchors_the_window():
    contents = "z" * 100 + "beta" + "z" * 100 + "alpha" + "z" * 100
    assert build_excerpt(contents, ["alpha", "beta"]).startswith("..." + "z" * 55 + "beta")


def test_preview_marks_truncation_against_the_untrimmed_contents():
    # The excerpt is the whole text, but the raw contents are longer by their padding.
    preview = build_preview("  whole  ", None, "whole")
    assert preview.excerpt == "whole"
    assert preview.excerpt_truncated
    assert not build_preview("whole", None, "whole").excerpt_truncated


def test_a_term_matching_only_the_title_leaves_the_window_at_the_start():
    preview = build_preview("x" * 100 + " body", "Graphene", "graphene")
    assert preview.matched_terms == ["graphene"]
    assert preview.excerpt == "x" * 100 + " body"
    assert preview.title == "Graphene"


def test_lengths_count_utf16_units_as_java_does():
    # Each emoji is two UTF-16 units: 110 of them fill the 220-unit window.
    contents = "\U0001f600" * 200
    assert build_excerpt(contents, []) == "\U0001f600" * 110 + "..."
    # A window that ends inside a pair writes the half as U+FFFD.
    assert build_excerpt("a" + "\U0001f600" * 200, []) == "a" + "\U0001f600" * 109 + "\ufffd..."


def test_lowercasing_that_lengthens_text_shifts_the_window_as_in_java():
    # "İ" lowercases to two characters, so indices in the lowered text run one ahead.
    contents = "\u0130" + "y" * 99 + "needle" + "y" * 300
    assert build_excerpt(contents, ["needle"]) == "..." + contents[46:266] + "..."


ASCII_TEXT = st.text(alphabet=st.sampled_from("ab cd\nNeedle.-"), max_size=600)


@settings(max_examples=200, deadline=None)
@given(ASCII_TEXT, st.lists(st.sampled_from(["ab", "cd", "needle", "zz"]), max_size=3))
def test_excerpt_is_a_window_of_the_trimmed_text(contents, terms):
    excerpt = build_excerpt(contents, terms)
    normalized = contents.strip("".join(map(chr, range(0x21))))
    core = excerpt.removeprefix("...").removesuffix("...")
    assert core in normalized
    assert len(core) <= 220
    if len(normalized) <= 220:
        assert excerpt == normalized


# --- document lines ----------------------------------------------------------------------


def test_lines_split_on_java_line_breaks_and_keep_trailing_empties():
    assert split_lines("") == [""]
    assert split_lines("a\n") == ["a", ""]
    assert split_lines("a\r\nb\rc\x0bd\x0ce\x85f\u2028g\u2029h") == list("abcdefgh")
    assert split_lines("a\r\n\r\nb") == ["a", "", "b"]
    assert split_lines("a\n\r") == ["a", "", ""]
    # Not line breaks for Java, unlike str.splitlines.
    assert split_lines("a\x1cb\x1dc\x1ed") == ["a\x1cb\x1dc\x1ed"]


def test_chunks_clamp_and_report_the_next_offset():
    lines = split_lines("1\n2\n3\n4\n5")
    c = read_chunk(lines, 2, 2)
    assert (c.returned_line_start, c.returned_line_end, c.truncated, c.next_offset) == (
        2,
        3,
        True,
        4,
    )
    assert c.text == "2\n3"
    last = read_chunk(lines, 4, 10)
    assert (last.text, last.truncated, last.next_offset) == ("4\n5", False, None)
    past = read_chunk(lines, 9, 10)
    assert (past.returned_line_start, past.returned_line_end, past.text) == (0, 0, "")
    assert (past.total_lines, past.truncated) == (5, False)
    clamped = read_chunk(lines, -3, 0)
    assert (clamped.offset, clamped.limit, clamped.text) == (1, 1, "1")


@settings(max_examples=200, deadline=None)
@given(
    st.text(alphabet=st.sampled_from("ab\n\r\u2028"), max_size=80),
    st.integers(1, 7),
)
def test_chunks_following_next_offset_tile_the_document(text, limit):
    lines = split_lines(text)
    got: list[str] = []
    offset: int | None = 1
    while offset is not None:
        chunk = read_chunk(lines, offset, limit)
        assert chunk.returned_line_start == offset
        assert chunk.returned_line_end - chunk.returned_line_start + 1 <= limit
        got.extend(lines[chunk.returned_line_start - 1 : chunk.returned_line_end])
        offset = chunk.next_offset
    assert got == lines
    assert "\n".join(got) == re.sub("\r\n|[\r\u2028]", "\n", text)
