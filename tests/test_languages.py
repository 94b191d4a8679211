# ruff: noqa: RUF001  (the examples are in Cyrillic, Turkish and fullwidth letters)
"""Lucene's language analyzers (``lucene-<code>`` presets): chains, saved indexes, and no
failure on arbitrary text. Token-for-token agreement with Pyserini is checked live in
``test_parity_languages.py``."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rserini
from rserini import Analyzer, Index

LANGUAGE_PRESETS = [p for p in rserini.ANALYZER_PRESETS if p.startswith("lucene-")][1:]

# Sentences and the tokens Pyserini 1.6.0 gives for them.
EXAMPLES = {
    "lucene-ar": ("والكتاب الجديد في المكتبة ٢٠٢٤", ["كتاب", "جديد", "مكتب", "2024"]),
    "lucene-bn": ("আমি বাংলায় গান গাইতে ভালোবাসি", ["আম", "বাংলা\u09df", "গান", "গা", "ভালোবাস"]),
    "lucene-fi": (
        "Talossa asui kolme kissaa vuonna 2000",
        ["talo", "asui", "kolm", "kis", "vuon", "2000"],
    ),
    "lucene-hi": ("लड़कों ने किताबें पढ़ीं", ["लडक", "किताब", "पढिं"]),
    "lucene-te": ("పిల్లలు పాఠశాలకు వెళ్లారు ABC", ["పిల్ల", "పాఠశాలక", "వెళ్లార", "ABC"]),
    "lucene-da": ("Hestene løb over de grønne marker", ["hest", "løb", "grøn", "mark"]),
    "lucene-de": ("Die Häuser der Straße", ["haus", "strass"]),
    "lucene-fr": ("L'avion et les chevaux", ["avion", "cheval"]),
    "lucene-nl": ("het kind en de fietsen", ["kinder", "fiets"]),
    "lucene-ru": ("ещё всё его", ["ещ", "все"]),
    "lucene-tr": ("Türkiye'de IŞIK", ["türki", "ışık"]),
    "lucene-zh": ("我是中国人 Ｔｅｓｔ", ["我是", "是中", "中国", "国人", "test"]),
    "lucene-ko": ("한국어 사전", ["한국", "국어", "사전"]),
}


@pytest.mark.parametrize("preset", sorted(EXAMPLES))
def test_chains(preset: str) -> None:
    text, tokens = EXAMPLES[preset]
    assert Analyzer(preset).analyze(text) == tokens


@pytest.mark.parametrize(("code", "why"), [("ja", "Kuromoji"), ("th", "break iterator")])
def test_japanese_and_thai_say_why_they_are_missing(code: str, why: str) -> None:
    with pytest.raises(rserini.AnalyzerError, match=why):
        Analyzer(f"lucene-{code}")


@pytest.mark.parametrize("preset", ["lucene-de", "lucene-zh"])
def test_index_saves_and_reloads_its_language(tmp_path: Path, preset: str) -> None:
    docs = [
        ("a", "Die Häuser der Straße sind alt"),
        ("b", "Ein Haus am Meer"),
        ("c", "我是中国人"),
        ("d", "中国的首都是北京"),
    ]
    index = Index.build(docs, analyzer=preset, progress=False)
    index.save(tmp_path / "idx")
    loaded = Index.load(tmp_path / "idx")
    assert loaded.analyzer == Analyzer(preset)
    assert loaded.analyzer.name == preset
    query = "Häuser" if preset == "lucene-de" else "中国"
    expected = ["a", "b"] if preset == "lucene-de" else ["c", "d"]
    assert sorted(h.docid for h in loaded.search(query, k=10)) == expected
    assert [(h.docid, h.score) for h in loaded.search(query, k=10)] == [
        (h.docid, h.score) for h in index.search(query, k=10)
    ]


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=200))
def test_every_language_analyzes_any_text(text: str) -> None:
    for preset in LANGUAGE_PRESETS:
        terms = Analyzer(preset).analyze(text)
        assert all(isinstance(t, str) and t for t in terms), (preset, terms)


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(
        alphabet=st.sampled_from(list("中国人한국어カタカナｶﾞﾊﾟひらがなＡｂ1 .'’İIıçğ")), max_size=60
    )
)
def test_every_language_analyzes_cjk_and_turkish_edge_text(text: str) -> None:
    for preset in LANGUAGE_PRESETS:
        terms = Analyzer(preset).analyze(text)
        assert all(t for t in terms), (preset, terms)
        assert Analyzer(preset).analyze_batch([text, text]) == [terms, terms]
