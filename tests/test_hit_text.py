"""rserini.hit_text: the line shown beside a hit, its trimming and its highlighting."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

import rserini
from rserini.hit_text import BOLD, ELLIPSIS, RESET, display_text, highlight, text_fields, trim

BEIR = {"_id": "7", "title": "Vitamin D and bones", "text": "Deficiency is common.\nMore."}
PAIR = {"id": "d1", "contents": "\n  Routers   forward packets.\nSecond line."}


def test_display_text_is_the_title_else_the_first_line_of_text() -> None:
    assert display_text(BEIR) == "Vitamin D and bones"
    assert display_text({**BEIR, "title": " "}) == "Deficiency is common."
    assert display_text(PAIR) == "Routers forward packets."
    assert display_text({"id": "x", "n": 3}) == "3"
    assert display_text({"id": "x"}) == ""


def test_chosen_fields_in_their_order() -> None:
    assert display_text(BEIR, ["text", "title"]) == "Deficiency is common. | Vitamin D and bones"
    assert display_text(BEIR, ["missing"]) == ""
    assert text_fields(BEIR) == {"title": BEIR["title"], "text": BEIR["text"]}
    assert text_fields(BEIR, ["text", "nope"]) == {"text": BEIR["text"]}


@given(st.text(), st.integers(min_value=-2, max_value=80))
def test_trim_keeps_the_width(text: str, width: int) -> None:
    cut = trim(text, width)
    assert len(cut) <= max(width, 0)
    if len(text) <= width:
        assert cut == text
    elif width > 0:
        assert cut == text[: width - 1] + ELLIPSIS


def test_highlight_marks_the_words_whose_analyzed_form_matches() -> None:
    analyzer = rserini.Analyzer("lucene-english")
    terms = set(analyzer.analyze("vitamin deficiencies"))
    shown = highlight("Vitamin D deficiency, and vitamins.", terms, analyzer)
    assert shown == (f"{BOLD}Vitamin{RESET} D {BOLD}deficiency{RESET}, and {BOLD}vitamins{RESET}.")
    assert highlight("nothing here", terms, analyzer) == "nothing here"
    assert highlight("Vitamin", set(), analyzer) == "Vitamin"
