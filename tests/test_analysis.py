"""Analyzer presets give pinned token streams on tricky input."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lexical_reference
import rserini
from rserini import Analyzer, AnalyzerError


def lucene(text: str) -> list[str]:
    return Analyzer("lucene-english").analyze(text)


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        # Possessives (EnglishPossessiveFilter runs before lowercasing).
        ("John's dog", ["john", "dog"]),
        ("JOHN'S", ["john"]),
        ("the boss\u2019s desk", ["boss", "desk"]),
        ("dogs' bowls", ["dog", "bowl"]),
        # Hyphens split; Porter stems each part.
        ("state-of-the-art", ["state", "art"]),
        ("e-mail", ["e", "mail"]),
        # Numbers with dots and commas stay whole.
        ("3.14 1,000,000 v2.0", ["3.14", "1,000,000", "v2.0"]),
        # Acronyms with dots, domains, emails and URLs.
        ("U.S.A.", ["u.s.a"]),
        ("user@example.com", ["user", "example.com"]),
        ("https://example.com/path?q=1", ["http", "example.com", "path", "q", "1"]),
        # Apostrophes inside words.
        ("don't O'Neil", ["don't", "o'neil"]),
        # Accents are kept (no ASCII folding in Lucene's English analyzer).
        ("Café naïve résumé", ["café", "naïv", "résumé"]),
        # Stopwords and the original Porter stemmer (not Porter2).
        (
            "The running foxes quickly jumped over the lazy dogs",
            ["run", "fox", "quickli", "jump", "over", "lazi", "dog"],
        ),
        ("generalizations abilities", ["gener", "abil"]),
        ("", []),
        ("   \t\n ", []),
        ("... --- !!!", []),
    ],
)
def test_lucene_english_pinned(text: str, tokens: list[str]) -> None:
    assert lucene(text) == tokens


def test_lucene_english_cjk_is_one_token_per_ideograph() -> None:
    assert lucene("東京") == ["東", "京"]


def test_lucene_english_very_long_token_is_split_not_dropped() -> None:
    tokens = lucene("a" * 300)
    assert "".join(tokens) == "a" * 300
    assert max(len(t) for t in tokens) == 255


def test_reference_sentence_from_pyserini() -> None:
    """The sentence whose Pyserini tokens are recorded in the project's design notes."""
    text = (
        "The Running foxes' quickly-jumped over the lazy dogs of U.S.A. in 2024 "
        "e-mail user@example.com it's"
    )
    assert lucene(text) == [
        "run",
        "fox",
        "quickli",
        "jump",
        "over",
        "lazi",
        "dog",
        "u.s.a",
        "2024",
        "e",
        "mail",
        "user",
        "example.com",
    ]


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("Don't STOP-me now_2", ["don", "t", "stop", "me", "now_2"]),
        ("café naïve 東京タワー", ["café", "naïve", "東京タワー"]),
        ("İstanbul", ["i", "stanbul"]),  # str.lower() gives i + U+0307, not a word char
        ("cafe\u0301", ["cafe"]),  # a combining mark is not \w
        ("a 2 x", ["a", "2", "x"]),
    ],
)
def test_plain_pinned(text: str, tokens: list[str]) -> None:
    assert Analyzer("plain").analyze(text) == tokens


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("getUserById", ["getuserbyid", "get", "user", "by", "id"]),
        ("HTTPSConnection", ["httpsconnection", "https", "connection"]),
        ("XMLHttpRequest", ["xmlhttprequest", "xml", "http", "request"]),
        ("HTML5Parser", ["html5parser", "html5", "parser"]),
        ("load_chunk_documents", ["load_chunk_documents", "load", "chunk", "documents"]),
        ("__init__", ["__init__"]),
        ("foo_foo", ["foo_foo", "foo", "foo"]),
        ("chunk", ["chunk"]),
    ],
)
def test_code_pinned(text: str, tokens: list[str]) -> None:
    assert Analyzer("code").analyze(text) == tokens


words = st.text(alphabet=st.sampled_from("abcXYZ09_ -.éÉß東İΣ\u0301'\t"), min_size=0, max_size=40)


@settings(max_examples=400, derandomize=True)
@given(words)
def test_plain_equals_python_regex(text: str) -> None:
    assert Analyzer("plain").analyze(text) == re.findall(r"\w+", text.lower())


@settings(max_examples=400, derandomize=True)
@given(words)
def test_code_equals_reference(text: str) -> None:
    assert Analyzer("code").analyze(text) == lexical_reference.tokenize(text, "code")


def test_whitespace_keeps_tokens_verbatim() -> None:
    assert Analyzer("whitespace").analyze(" Foo  bar-Baz\tQ. ") == ["Foo", "bar-Baz", "Q."]


def test_custom_chain_overrides_one_step() -> None:
    no_stem = Analyzer("lucene-english", stemmer="none")
    assert no_stem.analyze("The running dogs") == ["running", "dogs"]
    assert no_stem.name == "custom"
    snowball = Analyzer("plain", stemmer="snowball-english", stopwords="lucene-english")
    assert snowball.analyze("the generously running") == ["generous", "run"]
    own = Analyzer("plain", stopwords=["Foo", "bar"])
    assert own.analyze("foo BAR baz") == ["baz"]


def test_presets_and_config() -> None:
    languages = [p for p in rserini.ANALYZER_PRESETS if p.startswith("lucene-")][1:]
    assert rserini.ANALYZER_PRESETS[:4] == ["lucene-english", "plain", "code", "whitespace"]
    assert rserini.ANALYZER_PRESETS[4:] == languages
    assert {"lucene-de", "lucene-fr", "lucene-zh", "lucene-ru"} <= set(languages)
    for name in rserini.ANALYZER_PRESETS:
        analyzer = Analyzer(name)
        assert analyzer.name == name
        assert analyzer.config["name"] == name
        assert analyzer == Analyzer(name)
        assert analyzer.config["language"] == (name[7:] if name in languages else None)
    assert Analyzer() == Analyzer("lucene-english")


def test_analyze_batch_equals_analyze() -> None:
    analyzer = Analyzer()
    texts = ["The quick brown fox", "", "U.S.A. 3.5 e-mail", "東京 café"] * 10
    assert analyzer.analyze_batch(texts) == [analyzer.analyze(t) for t in texts]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"name": "klingon"},
        {"tokenizer": "regex"},
        {"stemmer": "lancaster"},
        {"stopwords": "french"},
        {"name": "lucene-english", "code_subtokens": True},
    ],
)
def test_bad_analyzer_options(kwargs: dict[str, object]) -> None:
    with pytest.raises(AnalyzerError) as info:
        Analyzer(**kwargs)
    assert "choose" in str(info.value) or "need" in str(info.value)


def test_index_applies_its_analyzer_to_queries() -> None:
    index = rserini.Index.build([("a", "Running dogs")], analyzer="lucene-english", progress=False)
    assert [h.docid for h in index.search("the RUNS of a dog")] == ["a"]
    assert index.query_terms("the dogs dog x") == [("dog", 2, True), ("x", 1, False)]
    code = rserini.Index.build(
        [("f.py", "def getUserById(): pass")], analyzer="code", progress=False
    )
    assert code.analyzer.name == "code"
    assert [h.docid for h in code.search("user")] == ["f.py"]
